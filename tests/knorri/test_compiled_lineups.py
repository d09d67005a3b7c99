"""Built-in Knorri lineups on the compiled path (``agents.knorri.lineup``): the reference path's rows, row for row,
searches handed only what the seat may know, and agents by import path kept on the reference path."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import deck_nobody_captures

import agents.knorri.lineup as compiled_lineup
from agents.base import make_agent
from agents.knorri import decision
from agents.knorri.lineup_seats import compiled_seat
from agents.knorri.tracker import KnorriTracker
from experiments.runner import routes
from sim import games
from sim.cards import card_list
from sim.knorri import compiled
from sim.knorri.compiled import position_rows
from sim.knorri.compiled.state import C_HANDS_HASH, I_CRC, I_DECISIONS, I_HIST_LEN, I_REDEALS
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64, agent_seed


def _rotations(lineup: list[str], matches: int) -> list[list[str]]:
    """The lineup turned one seat further at every match, so each agent sits everywhere."""
    return [lineup[i % len(lineup):] + lineup[:i % len(lineup)] for i in range(matches)]


def play_matches(n_seats, seeds, seatings, match_hands, log_actions=False, engine="auto", options=None):
    """Knorri matches played as a run plays them (the route chosen, then followed)."""
    return routes.play_matches("knorri", n_seats, seeds, seatings, match_hands, log_actions, options, engine=engine)


def _both_paths(n_seats: int, lineup: str, matches: int, match_hands: int = 1, options=None):
    specs = lineup.split(";")
    seeds = [7_000 + 13 * i for i in range(matches)]
    seatings = _rotations(specs, matches)
    return [play_matches(n_seats, seeds, seatings, match_hands, log_actions=True, engine=engine, options=options)
            for engine in ("compiled", "reference")]


def _assert_same_rows(fast, reference):
    for name, column in reference.hands.items():
        np.testing.assert_array_equal(np.ma.getmaskarray(fast.hands[name]), np.ma.getmaskarray(column), err_msg=name)
        np.testing.assert_array_equal(np.ma.filled(fast.hands[name], 0), np.ma.filled(column, 0), err_msg=name)
        assert fast.hands[name].dtype == column.dtype, name
    for name, column in reference.actions.items():
        np.testing.assert_array_equal(fast.actions[name], column, err_msg=name)


COVERING = "random;greedy;loginf;mcts:iters=30,others=loginf,pick=visits"  # the earlier mcts lets hands repeat


# 100 matches a lineup (25 whole turns of the table at 4 seats): every seat meets every agent many times, the
# repeat cut-off is among COVERING's endings, and the Python agents on the reference path cost half what twice as
# many did.
@pytest.mark.parametrize(("n_seats", "lineup", "matches", "match_hands"), [
    (4, "loginf;loginf;loginf;loginf", 100, 1),
    (4, "loginf:rollout=random;greedy;loginf;random", 100, 1),
    (4, COVERING, 100, 1),
    (4, "random;greedy;loginf;mcts:iters=30", 100, 1),
    (4, "random;greedy;loginf;mcts", 100, 1),  # the default mcts, its searches stopping once their pick settles
    (4, "mcts:iters=30,version=1;greedy;mcts:iters=30;loginf", 100, 1),  # the first mcts beside the current one
    (3, "mcts:iters=20;loginf;mcts:iters=25,c=0.7,rollout=random,seed=3", 100, 1),
    (6, "mcts:iters=20;greedy;random;greedy;mcts:iters=20,rollout=random;loginf", 100, 1),
    (5, "greedy;mcts:iters=20,c=1.2,line_iters=50;random;loginf;greedy", 67, 3),
    (4, "random;mcts:iters=20,chance_iters=45,horizon=12;random;mcts:iters=15,line_iters=40,chance_iters=25", 100, 1),
])
def test_a_built_in_lineup_writes_the_reference_paths_rows(n_seats, lineup, matches, match_hands):
    """Every hand column and every logged decision, compiled against the Python agents on the reference engine."""
    fast, reference = _both_paths(n_seats, lineup, matches, match_hands)
    assert len(fast.hands["seed"]) == matches * match_hands
    _assert_same_rows(fast, reference)
    if lineup == COVERING:  # the repeat cut-off, where remembered positions matter, is among the lines compared
        assert (reference.hands["end_reason"] == 1).any()


@pytest.mark.parametrize(("n_seats", "lineup", "matches", "options", "reasons"), [
    (4, "loginf;greedy;loginf;greedy", 40, {"repeat": 3}, {"repeat"}),
    (4, "random;greedy;loginf;mcts:iters=20,others=loginf,pick=visits", 40, {"repeat": 3}, set()),
    (5, "greedy;mcts:iters=15;loginf:rollout=random;greedy;random", 30, {"repeat": 3, "cap": 300}, set()),
    (4, "random;greedy;loginf:rollout=random;mcts:iters=10,rollout=random", 30, {"repeat": 0, "cap": 20000},
     set()),
])
def test_a_built_in_lineup_writes_the_reference_paths_rows_under_the_cut_off_options(n_seats, lineup, matches,
                                                                                      options, reasons):
    """The same, every seat's search and playouts under the table's options (a threefold repetition, a cap, no
    repeat check with a cap of 20,000), the loop anatomy columns included."""
    fast, reference = _both_paths(n_seats, lineup, matches, 1, options)
    _assert_same_rows(fast, reference)
    ended = {("out", "repeat", "cap")[code] for code in reference.hands["end_reason"].tolist()}
    assert reasons <= ended
    if options.get("repeat") == 0:
        assert "repeat" not in ended


def test_a_log_that_runs_out_of_room_grows_and_replays_the_hand(monkeypatch):
    """The kernel stops before a hand whose decisions do not fit; the rows are the same as with room to spare."""
    seeds = np.arange(1, 13, dtype=np.uint64)
    first = np.zeros(len(seeds), dtype=np.int64)
    seats = [[compiled_seat(spec) for spec in ("loginf", "greedy", "mcts:iters=10")]] * len(seeds)
    roomy = compiled_lineup.play_lineup(3, seeds, first, seats, log_actions=True)
    monkeypatch.setattr(compiled_lineup, "_log_room", lambda hands: 8)
    cramped = compiled_lineup.play_lineup(3, seeds, first, seats, log_actions=True)
    np.testing.assert_array_equal(cramped.log, roomy.log)
    np.testing.assert_array_equal(cramped.ints, roomy.ints)


# ----- only what the seat may know -----------------------------------------------------------------
def _hands_with_engine_rows(n_seats: int, seeds: range):
    """Fresh hands, each with the compiled engine's own rows for it: dealt from seeds, and one deal thrown in."""
    for seed in seeds:
        rows = compiled.new_position()
        compiled.deal_hand(rows, n_seats, 0, np.uint64(seed), np.int64(1500), np.int64(2))
        yield KnorriHand.from_seed(n_seats, seed), rows
    hand = KnorriHand(n_seats, deck_nobody_captures())
    assert hand.redeals >= 1
    rows = compiled.new_position()
    compiled.copy_position(position_rows(hand), rows)
    yield hand, rows


@pytest.mark.parametrize("n_seats", [3, 4, 6])
def test_the_searches_start_from_the_position_the_python_agent_rebuilds(n_seats):
    """At every decision with a choice, the engine's rows a compiled agent searches equal the Python agent's rebuilt
    position in everything the search reads: only the redeal count, decision count and CRC may differ (the
    tracker rebuilds the current deal alone, a deal thrown in included), and in phase 1 the hands' hash, which
    the engine computes only when phase 2 starts. Phase 1: the unseen cards from the public rows are the
    tracker's unseen set. Phase 2: the remembered positions (repeat detection) are the same."""
    allowed = {I_REDEALS, I_DECISIONS, I_CRC}
    checked = {1: 0, 2: 0}
    for hand, position in _hands_with_engine_rows(n_seats, range(10)):
        cards, ints, keys = position.cards, position.ints, position.keys
        trackers = [KnorriTracker(n_seats) for _ in range(n_seats)]
        stream = SplitMix64(hand.deck[0] ^ 0xBEEF)
        while not hand.done:
            legal = hand.legal_actions()
            if len(legal) > 1:
                tracker = trackers[hand.to_move]
                tracker.update(hand.observation(hand.to_move))
                if hand.phase == 1:
                    assert int(compiled.unseen_cards(cards, ints)) == tracker.unseen
                    rebuilt = position_rows(tracker.rebuild(card_list(tracker.unseen)))
                else:
                    rebuilt = position_rows(tracker.position())
                    np.testing.assert_array_equal(rebuilt.keys, keys[:int(ints[I_HIST_LEN])])
                same = np.arange(len(cards)) != C_HANDS_HASH if hand.phase == 1 else slice(None)
                np.testing.assert_array_equal(rebuilt.cards[same], cards[same])
                differ = set(np.nonzero(rebuilt.ints != ints)[0].tolist())
                assert differ <= allowed, differ
                checked[hand.phase] += 1
            action = stream.choice(legal)
            hand.apply(action)
            compiled.apply_action(position, action)
        assert int(ints[I_REDEALS]) == hand.redeals
    assert min(checked.values()) > 50


def test_compiled_mcts_phase1_choice_ignores_the_true_stock_order_and_matches_python():
    """Two deals equal up to the current turn, the unseen cards in another order, look the same to the seat:
    ``mcts``'s compiled decision (the one the lineup's seats make, ``decision.mcts_choice``) chooses the same in
    both, from the seat's view or handed the true deal, its stock order included."""
    checked = 0
    for seed in range(30):
        hand = KnorriHand.from_seed(4, seed)
        stream = SplitMix64(seed)
        while not hand.done and checked < 12:
            legal = hand.legal_actions()
            if hand.phase == 1 and len(legal) > 1 and stream.below(3) == 0:
                seat = hand.to_move
                turned = 52 - hand.observation(seat).stock_left
                other = KnorriHand(4, list(hand.deck[:turned]) + list(hand.deck[turned:])[::-1], hand.first_seat)
                for action in hand.decisions:
                    other.apply(action)
                assert other.observation(seat) == hand.observation(seat)
                seed_of_seat, choices = agent_seed(seed, seat), set()
                for h in (hand, other):
                    for peeking in (False, True):
                        agent = make_agent("mcts:iters=60")
                        agent.reset(seat, 4, seed_of_seat)
                        if peeking:  # the search handed the true deal, its stock order included
                            agent._rows = lambda phase, h=h: position_rows(h)
                        choices.add(agent.act(h.observation(seat), h.legal_actions()))
                assert len(choices) == 1
                checked += 1
            hand.apply(stream.choice(legal))
    assert checked == 12


# ----- which path ---------------------------------------------------------------------------------
@pytest.mark.parametrize("specs", [
    ["loginf", "loginf", "loginf"],
    ["loginf:rollout=random", "greedy", "random"],
    ["mcts:iters=200,c=0.4", "mcts", "random", "greedy"],
    ["mcts:iters=5,rollout=random,seed=9", "loginf", "greedy"],
])
def test_every_built_in_lineup_is_compiled(specs):
    assert compiled_lineup.LINEUP_PLAYER.accepts(specs)
    assert routes.choose_route(games.adapter("knorri"), "knorri", [specs], True) == routes.LINEUP


@pytest.mark.parametrize("specs", [
    ["agents.knorri.mcts:MaxnMCTSAgent:iters=20", "loginf", "greedy"],
    ["agents.knorri.loginf:LogInfAgent", "greedy", "greedy"],
    ["mcts:time=0.01", "greedy", "greedy"],
])
def test_an_import_path_or_a_time_budget_keeps_the_reference_path(specs, monkeypatch):
    """Not compiled: ``auto`` plays the Python agents (the compiled kernel is never called), ``compiled`` refuses."""
    assert not compiled_lineup.LINEUP_PLAYER.accepts(specs)
    with pytest.raises(ValueError, match="compiled engine plays only"):
        play_matches(3, [1], [specs], 1, engine="compiled")

    def refuse(*args, **kwargs):
        raise AssertionError("the compiled lineup kernel was called")

    monkeypatch.setattr(compiled_lineup, "play_lineup", refuse)
    if "time" not in specs[0]:
        played = play_matches(3, [1], [specs], 1)
        assert len(played.hands["seed"]) == 1


@pytest.mark.parametrize("spec", ["mcts", "mcts:version=1", "mcts:iters=50,others=greedy,pick=visits",
                                  "mcts:models=greedy+loginf,prior=1+3,eps=0.1,seed=7,horizon=0,chance_iters=90"])
def test_a_lineup_seat_searches_with_its_python_agents_own_parameter_record(spec):
    """One declaration of the search's parameters: the compiled seat carries the record the Python agent decides
    with (``decision.SearchParams``), field for field, and both decide through ``decision.mcts_choice``."""
    agent, seat = make_agent(spec, game="knorri"), compiled_seat(spec)
    for name, value in agent.search._asdict().items():
        np.testing.assert_array_equal(getattr(seat.search, name), value, err_msg=name)
    assert seat.rollout == agent.search.rollout
    assert compiled_lineup.mcts_choice is decision.mcts_choice
    assert decision.decide.py_func.__code__.co_names.count("mcts_choice") == 1  # the agent's entry point
