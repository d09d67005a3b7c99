"""Analysis every game's report uses: intervals over duplicate deals and the openskill ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.analysis import ladder, stats

# ----- intervals --------------------------------------------------------------------------------------


def test_cluster_ci_of_singleton_clusters_is_the_usual_standard_error():
    values = np.random.default_rng(1).normal(size=400)
    mean, half = stats.cluster_mean_ci(values, np.arange(400))
    assert mean == pytest.approx(values.mean())
    assert half == pytest.approx(stats.Z95 * values.std(ddof=1) / math.sqrt(400))


def test_clusters_of_copies_widen_the_interval_to_the_cluster_count():
    values = np.random.default_rng(2).normal(size=100)
    _, alone = stats.cluster_mean_ci(values, np.arange(100))
    _, copied = stats.cluster_mean_ci(np.repeat(values, 4), np.repeat(np.arange(100), 4))
    _, naive = stats.cluster_mean_ci(np.repeat(values, 4), np.arange(400))
    assert copied == pytest.approx(alone)  # four copies of a deal carry no more information than one
    assert naive < 0.6 * copied


def test_wilson_interval_known_values():
    assert stats.wilson_interval(0.5, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    low, high = stats.wilson_interval(0.0, 50)
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.0713, abs=1e-4)


def test_proportion_with_independent_rows_is_plain_wilson():
    hits = np.array([1] * 30 + [0] * 70)
    share, low, high = stats.proportion_ci(hits, np.arange(100))
    assert share == 0.3
    # the cluster variance's small-sample factor G/(G-1) makes the effective size n - 1
    assert (low, high) == pytest.approx(stats.wilson_interval(0.3, 99), rel=1e-9)


# ----- openskill ratings ------------------------------------------------------------------------------


def test_one_finishing_order_is_rated_exactly_as_openskill_rates_it():
    model = ladder.rating_model()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 1, 4, 2])
    rated = ladder.rate_finishing_orders(["a", "b", "c", "d"], np.array([[0, 1, 2, 3]]), np.array([[0, 1, 2, 3]]),
                                         np.array([[2, 1, 4, 2]])).set_index("agent")
    for name, team in zip("abcd", expected, strict=True):
        assert rated.loc[name, "rating"] == pytest.approx(team[0].mu)
        assert rated.loc[name, "sigma"] == pytest.approx(team[0].sigma)
        assert rated.loc[name, "high"] - rated.loc[name, "rating"] == pytest.approx(2 * team[0].sigma)
    assert rated.loc["a", "rating"] == rated.loc["d", "rating"]  # a tie is a tie


def test_an_agent_on_two_teams_of_a_row_gets_the_sum_of_both_updates():
    model = ladder.rating_model()
    first, copy, other = (model.rating() for _ in range(3))
    after = model.rate([[first], [other], [copy]], ranks=[1, 2, 3])
    rated = ladder.rate_finishing_orders(["a", "b"], np.array([[0, 1, 0]]), np.array([[0, 1, 2]]),
                                         np.array([[1, 2, 3]])).set_index("agent")
    assert rated.loc["a", "rating"] == pytest.approx(after[0][0].mu + after[2][0].mu - model.mu)
    shrink = 2 - (after[0][0].sigma ** 2 + after[2][0].sigma ** 2) / model.sigma ** 2
    assert rated.loc["a", "sigma"] == pytest.approx(model.sigma * math.sqrt(1 - shrink))
    assert rated.loc["b", "rating"] == pytest.approx(after[1][0].mu)


def test_ratings_recover_the_order_of_known_plackett_luce_strengths():
    rng = np.random.default_rng(5)
    strength = np.array([4.0, 2.0, 1.0, 0.5])
    agents, places = [], []
    for _ in range(600):
        seating = rng.permutation(4)[:3]
        order = []
        left = list(seating)
        while left:  # Plackett-Luce: the next to finish is drawn in proportion to strength
            weights = strength[left] / strength[left].sum()
            order.append(left.pop(rng.choice(len(left), p=weights)))
        agents.append(seating)
        places.append([1 + order.index(code) for code in seating])
    rated = ladder.rate_finishing_orders(["w", "x", "y", "z"], np.array(agents), np.tile(np.arange(3), (600, 1)),
                                         np.array(places))
    assert rated["agent"].tolist() == ["w", "x", "y", "z"]
    assert rated["rated"].sum() == 600 * 3


def test_rows_of_one_agent_only_or_one_team_are_not_rated():
    rated = ladder.rate_finishing_orders(["a", "b"], np.array([[0, 0, 0], [0, 1, 0]]),
                                         np.array([[0, 1, 2], [0, 0, 0]]), np.array([[1, 2, 3], [1, 1, 1]]))
    assert rated["rated"].tolist() == [0, 0] and rated["rating"].isna().all()
