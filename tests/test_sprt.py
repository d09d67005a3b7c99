"""The duel's sequential test: its LLR and bounds, its running moments, and its error rates on synthetic duels.

The error-rate tests simulate thousands of duels at once in NumPy: a matrix of paired differences with a known
mean, one row per duel, through the same functions the duel uses (``running_moments``, ``Sprt.llr``,
``first_crossings``), looking where the duel looks (after every deal, or after each batch from ``MIN_DEALS`` on).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.duel.play import BATCH_DEALS, MIN_DEALS
from experiments.duel.sprt import CONTINUE, H0, H1, Sprt, first_crossings, interval, running_moments, sequential_test

DUELS = 2000  # simulated duels per case: an error rate of 0.05 is measured to +- 0.005 (one standard error)


def simulate(test: Sprt, draw, max_deals: int, every: int, duels: int = DUELS, seed: int = 0) -> np.ndarray:
    """Each simulated duel's decision (1 H1, -1 H0, 0 none by ``max_deals``), looking every ``every`` deals."""
    diffs = draw(np.random.default_rng(seed), (duels, max_deals))
    n, mean, variance = running_moments(diffs)
    at = np.asarray([d for d in range(every, max_deals + 1, every) if d >= MIN_DEALS]) - 1
    _, way = first_crossings(test.llr(n[at], mean[:, at], variance[:, at]), test.bounds)
    return way


def normal(mu: float, sigma: float):
    """Normal paired differences."""
    return lambda rng, shape: rng.normal(mu, sigma, shape)


# A hand's paired difference like a game's: mostly a tie, small swings, rare large ones, skewed; a deal averages 4.
HAND_VALUES = np.array([-9.0, -4.0, -1.0, 0.0, 1.0, 4.0, 9.0])
HAND_SHARES = np.array([0.004, 0.03, 0.10, 0.70, 0.12, 0.04, 0.006])


def lumpy(mu: float, rotations: int = 4):
    """Differences of deals of ``rotations`` hands drawn from ``HAND_VALUES``, shifted to have mean ``mu``."""
    shift = mu - float(HAND_VALUES @ HAND_SHARES)

    def draw(rng, shape):
        hands = rng.choice(HAND_VALUES, size=(*shape, rotations), p=HAND_SHARES)
        return hands.mean(axis=-1) + shift

    return draw


def lumpy_sd(rotations: int = 4) -> float:
    """The standard deviation of a ``lumpy`` deal's difference."""
    mean = float(HAND_VALUES @ HAND_SHARES)
    return math.sqrt(float(((HAND_VALUES - mean) ** 2) @ HAND_SHARES) / rotations)


def within_rate(decisions: np.ndarray, which: int, rate: float) -> tuple[float, float]:
    """The share of duels deciding ``which``, and the most it may be: ``rate`` plus three standard errors."""
    return float(np.mean(decisions == which)), rate + 3 * math.sqrt(rate * (1 - rate) / len(decisions))


# ----- the statistics --------------------------------------------------------------------------------------
def test_the_bounds_are_walds_from_alpha_and_beta():
    lower, upper = Sprt(alpha=0.05, beta=0.05).bounds
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    lower, upper = Sprt(alpha=0.01, beta=0.1).bounds
    assert lower == pytest.approx(math.log(0.1 / 0.99)) and upper == pytest.approx(math.log(0.9 / 0.01))


def test_the_llr_is_the_normal_log_likelihood_ratio_at_the_sample_variance():
    rng = np.random.default_rng(1)
    x = rng.normal(0.03, 0.7, 300)
    test = Sprt(delta0=-0.01, delta1=0.06)
    s2 = x.var(ddof=1)
    direct = np.sum((x - test.delta0) ** 2 - (x - test.delta1) ** 2) / (2 * s2)
    assert float(test.llr(len(x), x.mean(), s2)) == pytest.approx(direct)


def test_the_llr_is_positive_above_the_midpoint_and_negative_below_it():
    test = Sprt(delta0=0.0, delta1=0.1)
    assert test.llr(100, 0.06, 1.0) > 0 > test.llr(100, 0.04, 1.0)
    assert float(test.llr(100, 0.05, 1.0)) == 0.0


def test_differences_all_equal_give_an_infinite_llr_on_the_side_of_their_mean():
    test = Sprt()
    n, mean, variance = running_moments(np.full(20, 0.0))
    assert variance[-1] == 0.0 and test.llr(n[-1], mean[-1], variance[-1]) == -np.inf
    assert test.llr(20, 0.3, 0.0) == np.inf and test.decision(-np.inf) == H0 and test.decision(np.inf) == H1


def test_running_moments_are_every_prefix_mean_and_sample_variance():
    x = np.random.default_rng(2).normal(5.0, 2.0, 50)
    n, mean, variance = running_moments(x)
    assert n.tolist() == list(range(1, 51))
    assert np.allclose(mean, [x[:k].mean() for k in range(1, 51)])
    assert variance[0] == 0.0 and np.allclose(variance[1:], [x[:k].var(ddof=1) for k in range(2, 51)])


def test_running_moments_work_row_by_row():
    x = np.random.default_rng(3).normal(size=(3, 10))
    n, mean, variance = running_moments(x)
    assert np.allclose(mean[1], running_moments(x[1])[1]) and np.allclose(variance[2], running_moments(x[2])[2])


def test_the_first_crossing_is_the_first_look_past_either_bound():
    llr = np.array([[0.5, 3.1, -4.0], [-1.0, -3.0, 5.0], [0.0, 1.0, 2.0]])
    index, way = first_crossings(llr, (-2.9, 2.9))
    assert index.tolist() == [1, 1, -1] and way.tolist() == [1, -1, 0]


def test_the_interval_is_the_mean_plus_or_minus_1_96_standard_errors():
    low, high = interval(100, 0.2, 0.25)
    assert low == pytest.approx(0.2 - 1.959964 * 0.05) and high == pytest.approx(0.2 + 1.959964 * 0.05)
    assert all(math.isnan(v) for v in interval(1, 0.2, 0.0))


@pytest.mark.parametrize(("name", "kwargs"), [
    ("alpha", {"alpha": 0.0}), ("alpha", {"alpha": 0.5}), ("beta", {"beta": -0.1}), ("beta", {"beta": 1.2}),
    ("delta1", {"delta0": 0.05, "delta1": 0.05}), ("delta0", {"delta0": math.nan}), ("alpha", {"alpha": "x"}),
])
def test_a_bad_parameter_is_refused_in_a_line_that_names_it(name, kwargs):
    with pytest.raises(ValueError, match=f"^{name} "):
        Sprt(**kwargs)


def test_the_sequential_test_decides_at_the_first_look_past_a_bound():
    test = Sprt(delta0=0.0, delta1=0.5)
    diffs = np.concatenate([np.random.default_rng(4).normal(1.0, 0.5, 200)])
    verdict = sequential_test(diffs, test, [10, 20, 40, 200])
    assert verdict.decision == H1 and verdict.deals == 10 and verdict.llr >= test.bounds[1]
    assert verdict.mean == pytest.approx(diffs[:10].mean()) and verdict.sd == pytest.approx(diffs[:10].std(ddof=1))


def test_with_no_bound_crossed_the_verdict_is_the_last_look_reached():
    diffs = np.random.default_rng(5).normal(0.025, 1.0, 30)
    verdict = sequential_test(diffs, Sprt(), [16, 20, 24, 28, 32])
    assert verdict.decision == CONTINUE and verdict.deals == 28
    assert sequential_test(diffs[:10], Sprt(), [16, 20]).deals == 0


@pytest.mark.parametrize("mu", [0.0, 0.125, 0.25])
def test_walds_expected_deals_match_simulated_duels(mu):
    test = Sprt(delta0=0.0, delta1=0.25)
    diffs = np.random.default_rng(6).normal(mu, 1.0, (DUELS, 3000))
    n, mean, variance = running_moments(diffs)
    index, way = first_crossings(test.llr(n[MIN_DEALS - 1:], mean[:, MIN_DEALS - 1:], variance[:, MIN_DEALS - 1:]),
                                 test.bounds)
    assert (way != 0).all()
    taken = float(np.mean(index + MIN_DEALS))
    # the LLR overshoots its bound a little at the look that stops it, so the walk takes a few deals more
    assert test.expected_deals(mu, 1.0) <= taken <= 1.15 * test.expected_deals(mu, 1.0)


def test_a_single_deal_says_nothing_of_the_spread_so_its_llr_is_0():
    assert float(Sprt().llr(1, 5.0, 0.0)) == 0.0


# ----- the error rates ---------------------------------------------------------------------------------------
# The normal model depends on delta / sigma alone; 0.25 makes a duel about 100 deals, the hard end (a game's
# delta1 = 0.05 against a deal's sd of 0.3 to 1 is 0.05 to 0.17, hundreds of deals, nearer the normal limit).
@pytest.mark.parametrize("every", [BATCH_DEALS, 4 * BATCH_DEALS])
def test_normal_duels_accept_h1_at_delta0_at_most_alpha_of_the_time(every):
    test = Sprt(delta0=0.0, delta1=0.25)
    decisions = simulate(test, normal(0.0, 1.0), 1500, every, seed=every)
    rate, most = within_rate(decisions, 1, test.alpha)
    assert rate <= most and np.mean(decisions == 0) < 0.01


@pytest.mark.parametrize("every", [BATCH_DEALS, 4 * BATCH_DEALS])
def test_normal_duels_accept_h0_at_delta1_at_most_beta_of_the_time(every):
    test = Sprt(delta0=0.0, delta1=0.25)
    decisions = simulate(test, normal(0.25, 1.0), 1500, every, seed=10 + every)
    rate, most = within_rate(decisions, -1, test.beta)
    assert rate <= most and np.mean(decisions == 0) < 0.01


@pytest.mark.parametrize("ratio", [0.25, 0.1])
def test_lumpy_skewed_duels_keep_both_error_rates(ratio):
    test = Sprt(delta0=0.0, delta1=ratio * lumpy_sd())
    deals, duels = (1500, DUELS) if ratio == 0.25 else (6000, 1000)
    at_delta0 = simulate(test, lumpy(0.0), deals, BATCH_DEALS, duels, seed=20)
    at_delta1 = simulate(test, lumpy(test.delta1), deals, BATCH_DEALS, duels, seed=30)
    rate, most = within_rate(at_delta0, 1, test.alpha)
    assert rate <= most
    rate, most = within_rate(at_delta1, -1, test.beta)
    assert rate <= most and np.mean(at_delta0 == 0) < 0.01 and np.mean(at_delta1 == 0) < 0.01


def test_unequal_alpha_and_beta_hold_each_at_its_edge():
    test = Sprt(delta0=-0.1, delta1=0.15, alpha=0.1, beta=0.02)
    rate, most = within_rate(simulate(test, normal(-0.1, 1.0), 1500, BATCH_DEALS, seed=41), 1, test.alpha)
    assert rate <= most
    rate, most = within_rate(simulate(test, normal(0.15, 1.0), 1500, BATCH_DEALS, seed=42), -1, test.beta)
    assert rate <= most


def test_beyond_the_edges_the_errors_are_rarer_still():
    test = Sprt(delta0=0.0, delta1=0.25)
    worse = simulate(test, normal(-0.25, 1.0), 1000, BATCH_DEALS, seed=50)
    better = simulate(test, normal(0.5, 1.0), 1000, BATCH_DEALS, seed=51)
    assert np.mean(worse == 1) < 0.005 and np.mean(better == -1) < 0.005
