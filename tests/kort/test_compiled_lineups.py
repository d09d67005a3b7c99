"""Kort's built-in agents in compiled code: the runner's rows, the compiled tracker, and what mcts may not see.

A lineup of built-in specs plays whole matches inside numba (``agents.kort.lineup``); for the
same config and seed it must write exactly the rows the reference engine writes with the
Python agents. The compiled tracker must deduce what ``KortTracker`` deduces at every decision,
and the compiled search must decide the same whatever the cards its seat cannot see.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from agents.base import make_agent
from agents.deal_sampling import BINOMIAL
from agents.kort import decision, lineup
from agents.kort.compiled_tracker import (
    cannot_hold,
    hidden_hands,
    may_hold_trump,
    new_trackers,
    observe,
    rows_of,
    start_match,
    tracker_choice,
)
from agents.kort.decision import known_hidden_hands
from agents.kort.mcts import MCTSAgent
from agents.kort.playout import new_view, table_view
from agents.kort.sampler import HandSampler
from agents.kort.tracker import KortTracker
from agents.kort.tracker import tracker_choice as python_tracker_choice
from agents.kort.values import match_win_chance
from agents.kort.view import Table
from agents.lineup import agent_table, seat_search
from agents.search_tree import SearchSettings
from experiments.runner import routes
from experiments.runner.execute import run_experiment
from kort.test_runner import config, read
from sim import games
from sim.kort import compiled
from sim.kort.compiled.state import I_FIRST_VOTER, I_VOTE
from sim.kort.encoding import BAVAN_NO, BAVAN_YES, FIRST_PACKET, NUM_ACTIONS, Phase
from sim.kort.reference import KortMatch
from sim.rng import MASK64, SplitMix64, derive_seed

MCTS = "mcts:iters=30"


@pytest.fixture
def lineup_calls(monkeypatch):
    """Counts the matches the compiled lineups play for the runner (the path taken, seen from outside)."""
    calls = []
    play = lineup.play_lineups

    def counted(options, seeds, seatings):
        calls.append(len(seeds))
        return play(options, seeds, seatings)

    monkeypatch.setattr(lineup, "play_lineups", counted)
    return calls


@pytest.mark.parametrize(("agents", "assign", "options"), [
    (["greedy"] * 4, "fixed", {}),
    (["greedy"] * 4, "fixed", {"target_wins": 3, "first_holder": 2}),
    (["tracker"] * 4, "fixed", {}),
    (["tracker", "greedy", "tracker", "greedy"], "rotate", {"target_wins": 3}),
    (["greedy:redeal=never", "greedy", "greedy:redeal=never", "greedy"], "fixed", {"target_wins": 3}),
    ([MCTS, "random", "mcts:iters=8,seed=-3,rollout=greedy,horizon=match", "tracker"], "fixed", {"target_wins": 2}),
], ids=["greedy", "greedy-to-3", "tracker", "tracker-greedy", "greedy-redeal-never", "mcts-mix"])
def test_a_built_in_lineup_plays_compiled_and_writes_the_reference_engines_rows(
        agents, assign, options, tmp_path, lineup_calls):
    run = config(agents=agents, assign=assign, matches=200, chunk_hands=70, options=options)
    assert routes.choose_route(games.adapter("kort"), "kort", [agents], False) == routes.LINEUP
    run_experiment(run, tmp_path / "compiled")
    played = sum(lineup_calls)
    assert played >= 200
    run_experiment(dataclasses.replace(run, engine="reference"), tmp_path / "reference")
    assert sum(lineup_calls) == played  # the reference run played no compiled match
    for table in ("hands", "rounds"):
        pd.testing.assert_frame_equal(read(tmp_path / "compiled", table), read(tmp_path / "reference", table))
    matches = read(tmp_path / "compiled")
    assert len(matches) == played and matches.decisions.min() > 0
    if "greedy:redeal=never" in agents:
        assert matches.redeals.sum() > 0  # greedy redeals; its redeal=never partner...
        rounds = read(tmp_path / "compiled", "rounds")
        assert (rounds.redeals[rounds.holder % 2 == 0] == 0).all()  # ... never does, holding the trump


def test_only_built_in_specs_without_a_time_budget_play_compiled(tmp_path, lineup_calls):
    player = lineup.LINEUP_PLAYER
    assert player.accepts(["random", "greedy:redeal=never", "tracker", "mcts:iters=5,c=0.4,rollout=greedy"])
    assert not lineup.LINEUP_PLAYER.accepts(["random", "greedy", "tracker", "mcts:time=0.01"])
    assert not lineup.LINEUP_PLAYER.accepts(["random", "agents.kort.greedy:GreedyAgent", "tracker", "greedy"])
    run = config(agents=["agents.kort.greedy:GreedyAgent", "greedy"] * 2, matches=4, options={"target_wins": 1})
    run_experiment(run, tmp_path / "python")
    run_experiment(dataclasses.replace(run, log_actions=True), tmp_path / "logged")
    assert not lineup_calls  # a user's agent by import path, or an action log, keeps the reference path


# ----- the compiled tracker ----------------------------------------------------------------------------


def _twin_matches(seeds, target_wins=3):
    """Reference and compiled matches from the same seeds, stepped together at every decision by the protocol.

    Yields (match, rows, compiled trackers, seat, its Python tracker) before each decision: every seat's
    compiled tracker up to date, and the Python tracker of the seat to move updated from its observation.
    """
    for seed in seeds:
        match = KortMatch({"target_wins": target_wins}, seed=seed)
        cards, ints, deck, rng = compiled.new_position()
        compiled.new_match(cards, ints, deck, rng, target_wins, 0, seed)
        known, counts = new_trackers()
        for seat in range(4):
            start_match(known[seat], counts[seat], seat, ints)
        pythons = [KortTracker(seat) for seat in range(4)]
        stream = SplitMix64(seed)
        while not match.done:
            seat = match.to_move
            pythons[seat].update(match.observation(seat))
            yield match, (cards, ints, deck, rng), (known, counts), seat, pythons[seat]
            action = stream.choice(match.legal_actions())
            stage, kind = compiled.phase(ints), compiled.lead_kind(ints, seat % 2)
            trick, plays = compiled.trick_no(ints), compiled.trick_plays(ints)
            match.apply(action)
            compiled.apply_action(cards, ints, deck, rng, action)
            for s in range(4):
                observe(known[s], counts[s], ints, seat, stage, action, kind, trick, plays)


def test_the_compiled_tracker_deduces_what_the_python_tracker_does_at_every_decision():
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    view = new_view()
    seen = Counter()
    for match, (cards, ints, _, _), (known, counts), seat, python in _twin_matches(range(24)):
        observation = match.observation(seat)
        own = compiled.own_hand(cards, seat)
        for other in range(4):
            assert int(cannot_hold(known[seat], counts[seat], own, other)) == python.cannot_hold(other)
            assert may_hold_trump(known[seat], counts[seat], own, other) == python.may_hold_trump(other)
            if other != seat and python.trump is not None:
                low, high = python.trump_bounds(other)
                assert (low, high) == (counts[seat][4 + other], counts[seat][8 + other])
                seen["bounded"] += low > 0 or high < 13
                seen["void"] += python.voids[other] != 0
                seen["known"] += python.known[other] != 0
        python_known, python_counts = rows_of(python)
        assert np.array_equal(python_known, known[seat]) and np.array_equal(python_counts, counts[seat])
        count = compiled.legal_actions(cards, ints, legal)
        table_view(cards, ints, seat, view)
        expected = python_tracker_choice(python, Table.from_observation(observation), match.legal_actions())
        assert tracker_choice(known[seat], counts[seat], cards, ints, view, legal, count) == expected
        seen[Phase(match.phase).name] += 1
    assert all(seen[kind] for kind in ("bounded", "void", "known", "TRUMP", "LEAD", "DECLARE", "FOLLOW")), seen


def test_the_python_mcts_and_the_lineup_seat_set_up_each_search_through_one_compiled_call_with_equal_inputs():
    """One search: the agent's ``prepare`` and the lineup's ``mcts_choice`` both start through
    ``decision.start_search``, and from the agent's observation it builds the root, the root's view and the hidden
    cards' tables the lineup builds from the engine's rows and its compiled tracker rows."""
    assert lineup.mcts_choice is decision.mcts_choice
    assert "start_search" in decision.mcts_choice.py_func.__code__.co_names
    assert "start_search" in MCTSAgent.prepare.__code__.co_names
    work, view = decision.search_work(1), new_view()
    agents = [MCTSAgent(iters=1) for _ in range(4)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, 4, 0)
    seen = Counter()
    for k, (match, (cards, ints, _, _), (known, counts), seat, python) in enumerate(_twin_matches(range(6))):
        agent, observation = agents[seat], match.observation(seat)
        agent.tracker = python  # already updated with the observation
        agent._search_rng[0] = work.search_rng[0] = derive_seed(k, 3)
        agent.prepare(observation)
        tables = decision.start_search(known[seat].copy(), counts[seat].copy(), cards, ints, view, work)
        assert agent._search_rng[0] == work.search_rng[0]  # the same stand-in deal drawn
        for ours, theirs in zip((*agent._tree.root, *agent._tree.root_view), (*work.root, *view), strict=True):
            assert np.array_equal(ours, theirs)
        mine = hidden_hands(*rows_of(python), *compiled.seen_rows(observation)[:2], BINOMIAL)
        for field, ours, theirs in zip(tables._fields, mine, tables, strict=True):
            assert np.array_equal(np.asarray(ours), np.asarray(theirs)), field
        seen[Phase(match.phase).name] += 1
    assert all(seen[kind] for kind in ("TRUMP", "LEAD", "DECLARE", "FOLLOW")), seen


# ----- what compiled mcts may not see ----------------------------------------------------------------------


def _hidden_twin(match, rows, tracker, seat, seed):
    """Rows of the same match with everything ``seat`` cannot see redrawn consistently with what it has seen:
    the other hands (or, while the holder chooses trumps, the undealt deck), the deck's order, the match's
    stream, and a partner's first Bavan vote."""
    cards, ints, deck, rng = (row.copy() for row in rows)
    observation = match.observation(seat)
    hands, undealt = HandSampler(known_hidden_hands(tracker, observation)).sample(
        np.array([seed * 7919 + 1], dtype=np.uint64))
    if observation.phase == Phase.TRUMP:
        deck[FIRST_PACKET:] = undealt
    else:
        compiled.deal_hidden(cards, np.array(hands, dtype=np.uint64), seat)
        deck[:] = np.random.default_rng(seed).permutation(deck)
    rng[:] = rng + np.uint64(seed + 1)
    first = ints[I_FIRST_VOTER]
    if observation.phase == Phase.VOTE and first != seat and ints[I_VOTE + first] >= 0:
        ints[I_VOTE + first] = BAVAN_YES + BAVAN_NO - ints[I_VOTE + first]
    return cards, ints, deck, rng


def test_compiled_mcts_decides_the_same_whatever_the_cards_it_cannot_see():
    agent = lineup.compiled_agent(MCTS)
    win_chance = match_win_chance(3)
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    checked = Counter()
    for k, (match, rows, (known, counts), seat, python) in enumerate(_twin_matches(range(100, 106))):
        if k % 5 or compiled.legal_actions(rows[0], rows[1], legal) == 1:
            continue
        twin = _hidden_twin(match, rows, python, seat, k)
        assert not all(np.array_equal(a, b) for a, b in zip(rows, twin, strict=True))
        decisions = []
        for cards, ints, _, _ in (rows, twin):
            view = new_view()
            table_view(cards, ints, seat, view)
            streams = np.full(4, k, dtype=np.uint64)
            settings = SearchSettings(seat, agent.iters, 0.25, agent.policy, agent.horizon, win_chance)
            work = decision.search_work(30)
            action = decision.mcts_choice(cards, ints, settings, known[seat].copy(), counts[seat].copy(), streams,
                                            view, work)
            _, stats, size = work.tree
            decisions.append((action, size[0], stats[:size[0]].tolist()))
        assert decisions[0] == decisions[1]
        checked[Phase(match.phase).name] += 1
    assert sum(checked.values()) >= 30 and checked["FOLLOW"] and checked["LEAD"], checked


@pytest.mark.parametrize("spec", ["mcts", "mcts:iters=50,c=0.4,rollout=greedy,horizon=match,seed=-3"])
def test_a_lineup_seat_searches_with_the_settings_its_python_agent_searches_with(spec):
    """One declaration of the search's parameters: the lineup's seat record is read from the agent
    (``compiled_record``), and the settings the kernel builds from it at a decision are the agent's own."""
    agent, record = make_agent(spec, game="kort"), lineup.compiled_agent(spec)
    agent.reset(2, 4, 0)
    values = match_win_chance(3)
    ours = agent.search_settings(values)
    theirs = seat_search(agent_table([record]), 0, 2, values)
    for field, mine, kernels in zip(ours._fields, ours, theirs, strict=True):
        assert np.array_equal(mine, kernels), field
    assert record.spec_seed == (int(spec.partition("seed=")[2] or 0) & MASK64)
