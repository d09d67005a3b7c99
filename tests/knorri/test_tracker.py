"""The log tracker deduces every seat's holdings exactly, from observations alone."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import deck_nobody_captures

from agents.knorri.greedy import greedy_action
from agents.knorri.tracker import KnorriTracker
from sim.cards import to_set
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64

HANDS_PER_SEAT_COUNT = 500  # 2,000 random deals in all: half played uniformly at random, half by greedy


def _check_against_truth(tracker: KnorriTracker, hand: KnorriHand, observation) -> None:
    assert tracker.phase == hand.phase
    assert tracker.holdings == hand.hands
    assert tracker.table == to_set(observation.table)
    if hand.phase == 1:
        assert tracker.unseen == to_set(hand.deck[len(hand.deck) - observation.stock_left:])
        assert tracker.pending == observation.turned
    else:
        assert tracker.unseen == 0
        assert [tuple(play) for play in tracker.trick] == list(observation.trick)


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_tracker_equals_the_true_hands_at_every_step(n_seats):
    """Random deals; the watching seat changes per hand; checked after every decision.

    Even seeds are played uniformly at random (long, wandering hands), odd ones
    by greedy (short hands that reach their end by every route).
    """
    steps = 0
    for seed in range(HANDS_PER_SEAT_COUNT):
        watcher = seed % n_seats
        hand = KnorriHand.from_seed(n_seats, seed, first_seat=(seed // n_seats) % n_seats)
        tracker = KnorriTracker(n_seats)
        rng = SplitMix64(seed ^ 0x5EED)
        while True:
            observation = hand.observation(watcher)
            tracker.update(observation)
            _check_against_truth(tracker, hand, observation)
            steps += 1
            if hand.done:
                break
            legal = hand.legal_actions()
            if seed % 2:
                hand.apply(greedy_action(hand.phase, hand.hands[hand.to_move], hand.top_card, hand.opening, legal))
            else:
                hand.apply(rng.choice(legal))
    assert steps > HANDS_PER_SEAT_COUNT * 50


def test_tracker_rebuilds_the_exact_position_in_both_phases():
    """Phase 1 with the true stock order, phase 2 from the log alone: same hands, trick, mover, legal ids."""
    for seed in range(40):
        n_seats = 3 + seed % 4
        hand = KnorriHand.from_seed(n_seats, seed)
        tracker = KnorriTracker(n_seats)
        rng = SplitMix64(seed)
        while not hand.done:
            observation = hand.observation(hand.to_move)
            tracker.update(observation)
            if hand.phase == 1:
                rebuilt = tracker.rebuild(hand.deck[len(hand.deck) - observation.stock_left:])
            else:
                rebuilt = tracker.position()
            assert rebuilt.hands == hand.hands and rebuilt.trick == hand.trick
            assert rebuilt.to_move == hand.to_move and rebuilt.legal_actions() == hand.legal_actions()
            assert rebuilt.scores == hand.scores and rebuilt.phase2_actions == hand.phase2_actions
            hand.apply(rng.choice(hand.legal_actions()))


def test_tracker_follows_a_redeal_and_starts_over_for_a_new_hand():
    hand = KnorriHand(3, deck_nobody_captures())
    assert hand.redeals >= 1
    tracker = KnorriTracker(3)
    tracker.update(hand.observation(0))
    assert tracker.holdings == hand.hands and tracker.table == to_set(hand.observation(0).table)
    last_deal = [event for event in hand.log if event["kind"] == "deal"][-1]
    assert tracker.deal_table == last_deal["table"]
    fresh = KnorriHand.from_seed(3, 5)
    tracker.update(fresh.observation(0))
    assert tracker.holdings == fresh.hands


def test_phase1_position_is_refused():
    tracker = KnorriTracker(4)
    tracker.update(KnorriHand.from_seed(4, 0).observation(0))
    if tracker.phase == 1:
        with pytest.raises(ValueError, match="only in phase 2"):
            tracker.position()


def _same_positions(stepped, read, phase2_actions: list[int]) -> None:
    """The stepped rows hold the read rows' position: the same fields (the stretch's start aside with no history
    kept) and the same remembered positions, each row either the read row itself or a step row naming the action
    that reached it from the row before (as the engine remembers positions)."""
    from sim.knorri.compiled.state import I_HIST_BASE, I_REPEAT, R_META, STEP_ROW

    assert np.array_equal(stepped.cards, read.cards) and np.array_equal(stepped.deck, read.deck)
    differ = np.nonzero(stepped.ints != read.ints)[0].tolist()
    assert differ == ([] if read.ints[I_REPEAT] else differ[:1]) and set(differ) <= {I_HIST_BASE}
    assert np.array_equal(stepped.keys, read.keys)
    base = int(read.ints[I_HIST_BASE])
    for row in range(len(read.keys)):
        meta = int(stepped.records[row, R_META])
        if meta & int(STEP_ROW):
            assert meta & ~int(STEP_ROW) == phase2_actions[base + row - 1]
        else:
            assert np.array_equal(stepped.records[row], read.records[row])


@pytest.mark.parametrize(("n_seats", "options"), [(3, {}), (4, {}), (5, {"cap": 90, "repeat": 3}),
                                                  (6, {}), (4, {"cap": 300, "repeat": 0})])
def test_the_stepped_rows_hold_the_position_read_from_the_rebuilt_hand(n_seats, options):
    """``position_rows`` of the tracker, read once and then stepped by the compiled engine, holds at every phase-2
    decision the position read afresh from its rebuilt reference hand, the remembered positions included, so a
    search sees the same position either way. Some hands wander (uniform play), some end fast (greedy)."""
    from sim.knorri.compiled import position_rows

    asked = 0
    for seed in range(30):
        hand = KnorriHand.from_seed(n_seats, seed, **options)
        tracker = KnorriTracker(n_seats)
        rng = SplitMix64(seed)
        while not hand.done:
            legal = hand.legal_actions()
            tracker.update(hand.observation(hand.to_move))
            if hand.phase == 2 and rng.next() % 3:  # not at every decision: the rows catch up on several actions
                played = tracker.decisions[len(tracker.decisions) - hand.phase2_actions:]
                _same_positions(tracker.position_rows(), position_rows(tracker.position()), played)
                asked += 1
            if seed % 2:
                hand.apply(greedy_action(hand.phase, hand.hands[hand.to_move], hand.top_card, hand.opening, legal))
            else:
                hand.apply(rng.choice(legal))
    assert asked > 1_000
