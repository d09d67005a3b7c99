"""``mcts``'s search sizes and budgets, each from one function that the Python agent and the compiled lineup both
call."""

from __future__ import annotations

import numpy as np

from agents.base import make_agent
from agents.knorri import lineup, mcts
from agents.knorri.search import (
    GREEDY_MODEL,
    MAXN,
    NODES_PER_ITERATION,
    RANDOM_MODEL,
    has_chance_seats,
    largest_budget,
    phase1_samples,
    phase2_budget,
    tree_capacity,
)


def test_a_tree_holds_its_root_and_a_fixed_number_of_nodes_per_iteration():
    assert tree_capacity(0) == 1
    assert tree_capacity(100) == 1 + 100 * NODES_PER_ITERATION
    assert tree_capacity(np.int64(7)) == tree_capacity(7)  # the compiled lineup passes its iterations as int64


def test_phase1_shares_the_budget_evenly_and_plays_every_choice_at_least_once():
    assert phase1_samples(100, 3) == 33
    assert phase1_samples(2, 5) == 1


def test_the_python_agent_grows_its_tree_to_that_capacity():
    """One tree serves all of its budgets, so it is sized for the largest: ``line_iters`` (five times ``iters``
    by default), ``chance_iters`` (three times ``iters`` by default in version 3, ``iters`` in version 2) or
    ``iters``."""
    agent = make_agent("mcts:iters=37", game=mcts.GAME)
    agent.reset(0, 4, 1)
    assert agent._tree_for(4).capacity == tree_capacity(5 * 37)
    first = make_agent("mcts:iters=37,version=1", game=mcts.GAME)
    first.reset(0, 4, 1)
    assert first._tree_for(4).capacity == tree_capacity(37)
    small_line = make_agent("mcts:iters=37,line_iters=10,version=2", game=mcts.GAME)
    small_line.reset(0, 4, 1)
    assert small_line._tree_for(4).capacity == tree_capacity(37)
    small_both = make_agent("mcts:iters=37,line_iters=10,chance_iters=50", game=mcts.GAME)
    small_both.reset(0, 4, 1)
    assert small_both._tree_for(4).capacity == tree_capacity(50)


def test_a_timed_agent_sizes_its_tree_as_for_its_fixed_iteration_count():
    agent = make_agent("mcts:time=0.01", game=mcts.GAME)
    agent.reset(0, 3, 1)
    assert agent._tree_for(3).capacity == tree_capacity(mcts.TIMED_TREE_ITERATIONS)


def test_the_compiled_lineup_takes_its_sizes_from_the_same_functions():
    assert lineup.tree_capacity is tree_capacity and lineup.phase1_samples is phase1_samples
    assert mcts.tree_capacity is tree_capacity and mcts.phase1_samples is phase1_samples
    assert lineup.largest_budget is mcts.largest_budget and lineup.phase2_budget is mcts.phase2_budget


def test_a_phase2_search_spends_the_budget_its_tree_needs():
    """The best-line budget where the values are exact, the chance budget where another seat is modelled random
    (a chance node averages noisy draws), else ``iters``; one tree is sized for the largest."""
    assert phase2_budget(10, 20, 30, True, True) == 20
    assert phase2_budget(10, 20, 30, False, True) == 30
    assert phase2_budget(10, 20, 30, False, False) == 10
    assert largest_budget(10, 20, 30) == 30 and largest_budget(40, 20, 30) == 40
    assert has_chance_seats(np.array([RANDOM_MODEL, GREEDY_MODEL, GREEDY_MODEL]), hero=1)
    assert not has_chance_seats(np.array([RANDOM_MODEL, GREEDY_MODEL, MAXN]), hero=0)
