"""``mcts``'s search sizes and budgets, each from one function that the Python agent and the compiled lineup both
call."""

from __future__ import annotations

import numpy as np

from agents.base import make_agent
from agents.knorri import lineup, mcts, search_rules
from agents.knorri.opponent_models import MODEL_COUNT
from agents.knorri.search_rules import (
    GREEDY_MODEL,
    MAXN,
    NODES_PER_ITERATION,
    RANDOM_MODEL,
    largest_budget,
    phase1_samples,
    phase2_budget,
    random_seats_seen,
    tree_capacity,
)


def test_a_tree_holds_its_root_and_a_fixed_number_of_nodes_per_iteration():
    assert tree_capacity(0) == 1
    assert tree_capacity(100) == 1 + 100 * NODES_PER_ITERATION
    assert tree_capacity(np.int64(7)) == tree_capacity(7)  # the compiled lineup passes its iterations as int64


def test_phase1_shares_the_budget_evenly_and_plays_every_choice_at_least_once():
    assert phase1_samples(100, 3) == 33
    assert phase1_samples(2, 5) == 1


def test_the_python_agent_sizes_its_tree_for_its_largest_budget():
    """One tree serves all of its budgets, so it is sized for the largest: ``line_iters`` (five times ``iters``
    by default), ``chance_iters`` (five times ``iters`` by default, three in version 3, once in version 2) or
    ``iters``."""
    agent = make_agent("mcts:iters=37", game=mcts.GAME)
    agent.reset(0, 4, 1)
    assert agent._tree_size() == tree_capacity(5 * 37)
    first = make_agent("mcts:iters=37,version=1", game=mcts.GAME)
    first.reset(0, 4, 1)
    assert first._tree_size() == tree_capacity(37)
    small_line = make_agent("mcts:iters=37,line_iters=10,version=2", game=mcts.GAME)
    small_line.reset(0, 4, 1)
    assert small_line._tree_size() == tree_capacity(37)
    small_both = make_agent("mcts:iters=37,line_iters=10,chance_iters=50", game=mcts.GAME)
    small_both.reset(0, 4, 1)
    assert small_both._tree_size() == tree_capacity(50)


def test_a_timed_agent_sizes_its_tree_as_for_its_fixed_iteration_count():
    agent = make_agent("mcts:time=0.01", game=mcts.GAME)
    agent.reset(0, 3, 1)
    assert agent._tree_size() == tree_capacity(mcts.TIMED_TREE_ITERATIONS)


def test_the_compiled_lineup_takes_its_sizes_from_the_same_functions():
    assert lineup.search_rules is search_rules and mcts.search_rules is search_rules
    for name in ("tree_capacity", "phase1_samples", "largest_budget", "phase2_budget", "settle_rule",
                 "playout_horizon"):
        assert not hasattr(lineup, name) and not hasattr(mcts, name), name  # no copy of its own


def test_a_phase2_search_spends_the_budget_its_tree_needs():
    """The best-line budget where the values are exact, the chance budget where another seat is modelled random
    (a chance node averages noisy draws), else ``iters``; one tree is sized for the largest."""
    assert phase2_budget(10, 20, 30, True, True) == 20
    assert phase2_budget(10, 20, 30, False, True) == 30
    assert phase2_budget(10, 20, 30, False, False) == 10
    assert largest_budget(10, 20, 30) == 30 and largest_budget(40, 20, 30) == 40
    seen = np.full((3, MODEL_COUNT), -0.7)
    assert random_seats_seen(np.array([RANDOM_MODEL, GREEDY_MODEL, GREEDY_MODEL]), 1, seen, False)
    assert not random_seats_seen(np.array([RANDOM_MODEL, GREEDY_MODEL, MAXN]), 0, seen, False)


def test_a_seat_not_yet_seen_choosing_is_not_searched_as_a_random_player():
    """An empty posterior ties, and ``random`` is its first candidate: such a seat gets the ``iters`` budget and
    whole playouts (``random_seats_seen``), unless the models were given (``others=random``)."""
    models = np.array([MAXN, RANDOM_MODEL, RANDOM_MODEL])
    evidence = np.zeros((3, MODEL_COUNT))
    evidence[1] = -0.7  # seat 1 has been seen choosing, seat 2 not
    assert not random_seats_seen(models, 0, evidence, False)
    assert random_seats_seen(models, 0, evidence, True)
    evidence[2] = -1.1
    assert random_seats_seen(models, 0, evidence, False)


def test_only_a_search_with_chance_nodes_cuts_its_playouts():
    one_random = np.array([MAXN, RANDOM_MODEL, GREEDY_MODEL, GREEDY_MODEL])
    assert search_rules.playout_horizon(4, 40, True, one_random, 0) == 40
    assert search_rules.playout_horizon(4, 40, False, one_random, 0) == 0


def test_from_version_5_a_chance_search_cuts_its_playouts_only_with_two_random_seats_or_more():
    """With one other seat modelled random the rest play the rollout and a hand ends soon: whole playouts. The
    searching seat itself never counts."""
    one_random = np.array([MAXN, RANDOM_MODEL, GREEDY_MODEL, GREEDY_MODEL])
    two_random = np.array([MAXN, RANDOM_MODEL, RANDOM_MODEL, GREEDY_MODEL])
    hero_random = np.array([RANDOM_MODEL, RANDOM_MODEL, GREEDY_MODEL, GREEDY_MODEL])
    assert search_rules.playout_horizon(5, 40, True, one_random, 0) == 0
    assert search_rules.playout_horizon(5, 40, True, two_random, 0) == 40
    assert search_rules.playout_horizon(5, 40, True, hero_random, 0) == 0
    assert search_rules.playout_horizon(5, 40, False, two_random, 0) == 0


def test_from_version_6_a_chance_search_cuts_its_playouts_only_where_most_other_seats_are_modelled_random():
    """At 3 and 4 seats that is version 5's rule; at 5 and 6 seats two random seats no longer cut, three do."""
    def models(n_seats: int, random_seats: int) -> np.ndarray:
        seats = [MAXN] + [RANDOM_MODEL] * random_seats + [GREEDY_MODEL] * (n_seats - 1 - random_seats)
        return np.array(seats)

    for n_seats in (3, 4):
        for random_seats in range(n_seats):
            table = models(n_seats, random_seats)
            assert (search_rules.playout_horizon(6, 40, True, table, 0)
                    == search_rules.playout_horizon(5, 40, True, table, 0))
    assert search_rules.playout_horizon(6, 40, True, models(5, 2), 0) == 0
    assert search_rules.playout_horizon(6, 40, True, models(5, 3), 0) == 40
    assert search_rules.playout_horizon(6, 40, True, models(6, 2), 0) == 0
    assert search_rules.playout_horizon(6, 40, True, models(6, 3), 0) == 40
    assert search_rules.playout_horizon(6, 40, False, models(6, 5), 0) == 0
