"""The compiled step API for search agents: positions read from reference hands step on exactly as the reference."""

from __future__ import annotations

import numpy as np

from sim.knorri import compiled
from sim.knorri.encoding import NUM_ACTIONS
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64


def _mid_hand(n_seats: int, seed: int, actions: int) -> KnorriHand:
    """A hand after ``actions`` phase-2 actions of random play (it remembers the positions since its last trick)."""
    hand = KnorriHand.from_seed(n_seats, seed)
    stream = SplitMix64(seed)
    while not hand.done and (hand.phase == 1 or hand.phase2_actions < actions):
        hand.apply(stream.choice(hand.legal_actions()))
    return hand


def _working_copy(hand: KnorriHand) -> compiled.Position:
    position = compiled.new_position()
    compiled.copy_position(compiled.position_rows(hand), position)
    return position


def test_a_copied_position_steps_on_exactly_as_the_reference_hand():
    checked = 0
    for n_seats in (3, 4, 5, 6):
        for seed in range(6):
            hand = _mid_hand(n_seats, seed, 30)
            if hand.done:
                continue
            position = _working_copy(hand)
            cards, ints = position.cards, position.ints
            legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
            stream = SplitMix64(seed + 99)
            while True:
                assert compiled.is_over(ints) == hand.done
                assert compiled.seat_count(ints) == n_seats
                assert [compiled.score(ints, s) for s in range(n_seats)] == hand.scores
                if hand.done:
                    break
                assert compiled.to_move(ints) == hand.to_move
                count = compiled.legal_actions(cards, ints, legal)
                assert legal[:count].tolist() == hand.legal_actions()
                action = stream.choice(hand.legal_actions())
                hand.apply(action)
                compiled.apply_action(position, action)
            assert compiled.scores(ints) == hand.scores
            checked += 1
    assert checked > 15


def test_a_random_playout_draws_each_seat_from_its_own_stream():
    hand = _mid_hand(4, 7, 20)
    position = _working_copy(hand)
    ints = position.ints
    streams = [SplitMix64(1000 + s) for s in range(4)]
    for s in range(4):
        position.rng[compiled.SEAT_STREAMS + s] = 1000 + s
    compiled.play_to_end(position, np.zeros(NUM_ACTIONS, dtype=np.int64), compiled.RANDOM)
    while not hand.done:
        hand.apply(streams[hand.to_move].choice(hand.legal_actions()))
    assert compiled.scores(ints) == hand.scores
    assert compiled.is_over(ints)
