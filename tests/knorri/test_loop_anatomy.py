"""The anatomy of every loop: a hand cut off by ``repeat`` says where its cycle started, how long it ran, how many
choices it held, how likely random play was to go round it again and which seats acted in it; and no loop is forced.
"""

from __future__ import annotations

import math
import re

import numpy as np
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments.runner.seating import agent_maker
from sim.knorri import adapter
from sim.knorri.conformance import play_protocol_hand
from sim.knorri.reference import KnorriHand
from sim.knorri.scenario import load_scenario, play_case

ANATOMY = ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths", "cycle_seats")


def repeat_hands_of_the_vectors() -> list[tuple[int, int, int]]:
    """(seats, first seat, seed) of every hand of the default conformance vectors that ends by repeat."""
    found = []
    for path in sorted((DATA / "conformance" / "knorri").glob("traj_seats*_first*.txt")):
        n_seats, first = map(int, re.search(r"seats(\d)_first(\d)", path.name).groups())
        found += [(n_seats, first, int(line.split()[0])) for line in path.read_text().splitlines()
                  if line.split()[2] == "repeat"]
    return found


def position(hand: KnorriHand) -> tuple:
    """A hand's position as the rulings define it: hands, trick, plays needed, seat to move, opening to make."""
    return tuple(hand.hands), tuple(map(tuple, hand.trick)), hand.plays_needed(), hand._to_move, hand.opening


def replay_cycle(hand: KnorriHand, n_seats: int, seed: int, first: int) -> tuple[tuple, list[tuple[int, int]]]:
    """Replay the hand's decisions: its position after ``cycle_start`` phase-2 actions, and the legal-action count
    and seat of every phase-2 action after it."""
    replay = KnorriHand.from_seed(n_seats, seed, first)
    start, cycle = None, []
    for action in hand.decisions:
        if replay.phase == 2 and replay.phase2_actions == hand.cycle_start:
            start = position(replay)
        if start is not None:
            cycle.append((len(replay.legal_actions()), replay.to_move))
        replay.apply(action)
    return start, cycle


def check_anatomy(hand: KnorriHand) -> None:
    """The anatomy's own consistency, for any hand: values exactly at a repeat end."""
    if hand.end_reason != "repeat":
        assert all(getattr(hand, name) is None for name in ANATOMY)
        return
    assert hand.cycle_start + hand.cycle_length == hand.phase2_actions
    assert hand.cycle_choices >= 1  # no loop is forced
    assert hand.cycle_log2_paths >= hand.cycle_choices  # every choice is between two or more actions
    assert 0 < hand.cycle_seats < 1 << hand.n_seats


def test_every_repeat_of_the_conformance_vectors_closes_a_real_cycle_with_its_anatomy():
    cases = repeat_hands_of_the_vectors()
    assert len(cases) > 100
    for n_seats, first, seed in cases:
        hand = play_protocol_hand(n_seats, seed, first)
        check_anatomy(hand)
        start, cycle = replay_cycle(hand, n_seats, seed, first)
        assert start == position(hand), f"seed {seed}: the positions at the cycle's two ends differ"
        assert len(cycle) == hand.cycle_length
        assert hand.cycle_choices == sum(1 for legal, _ in cycle if legal > 1)
        assert hand.cycle_log2_paths == sum(math.log2(legal) for legal, _ in cycle)
        assert hand.cycle_seats == sum({1 << seat for _, seat in cycle})


def test_the_cycle_starts_at_the_latest_earlier_occurrence_under_threefold_repetition():
    case = next(c for c in load_scenario("threefold_repetition") if c["case"].startswith("repeat=3"))
    hand, failures = play_case(case)
    assert not failures
    assert (hand.cycle_start, hand.cycle_length, hand.phase2_actions) == (12, 12, 24)


def test_hands_that_do_not_repeat_have_no_anatomy():
    for seed in range(20):
        check_anatomy(play_protocol_hand(6, seed, 0, cap=150))
    assert all(play_protocol_hand(6, seed, 0, cap=150).cycle_start is None
               for seed in range(20) if play_protocol_hand(6, seed, 0, cap=150).end_reason != "repeat")


def test_the_anatomy_columns_are_null_exactly_when_the_hand_did_not_repeat():
    n = 120
    columns = adapter.play_matches(4, list(range(n)), [["random"] * 4] * n, make_agent=agent_maker("knorri"),
                                    engine="reference").hands
    repeat = columns["end_reason"] == adapter.END_REASONS.index("repeat")
    assert repeat.any() and not repeat.all()
    for spec in adapter.HAND_COLUMNS:
        if spec.name in ANATOMY:
            assert spec.nullable and columns[spec.name].dtype == np.dtype(spec.dtype)
            assert np.array_equal(np.ma.getmaskarray(columns[spec.name]), ~repeat)
    assert [columns[name].dtype for name in ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths",
                                             "cycle_seats")] == ["int32", "int32", "int32", "float32", "uint8"]
    start, length = columns["cycle_start"][repeat], columns["cycle_length"][repeat]
    assert np.array_equal(start + length, columns["phase2_actions"][repeat])
    assert (columns["cycle_choices"][repeat] >= 1).all()
    assert (columns["cycle_log2_paths"][repeat] >= columns["cycle_choices"][repeat]).all()


def test_the_widened_columns_are_int32():
    kinds = {spec.name: spec.dtype for spec in adapter.HAND_COLUMNS}
    assert all(kinds[name] == "int32" for name in ("phase2_actions", "cycle_length", "tricks_completed",
                                                  "decisions"))
    assert {spec.name: spec.dtype for spec in adapter.ACTION_COLUMNS}["step"] == "int32"


LINEUP_AGENTS = ("random", "greedy", "loginf", "mcts:iters=8")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), n_seats=st.integers(3, 6),
       picks=st.lists(st.sampled_from(LINEUP_AGENTS), min_size=6, max_size=6))
def test_no_repeat_hand_is_a_forced_loop_whatever_the_lineup(seed, n_seats, picks):
    """Property: in every hand (a match of five from ``seed``) that ends by repeat, the cycle holds a choice."""
    lineup = picks[:n_seats]
    columns = adapter.play_matches(n_seats, [seed], [lineup], match_hands=5, make_agent=agent_maker("knorri"),
                                    engine="reference").hands
    repeat = columns["end_reason"] == adapter.END_REASONS.index("repeat")
    assert (columns["cycle_choices"][repeat] >= 1).all()
    assert (columns["cycle_log2_paths"][repeat] >= columns["cycle_choices"][repeat]).all()
    assert np.array_equal(columns["cycle_start"][repeat] + columns["cycle_length"][repeat],
                          columns["phase2_actions"][repeat])
