"""The compiled engine under Knorri's cut-off options (the rulings' "Cut-off options"): every variant line on each of
its paths, the history sized by the cap, and the anatomy of every loop as the reference engine measures it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import DATA

from agents.base import RandomAgent
from agents.knorri.search import Scratch
from experiments.cli import main
from sim.errors import GameInputError
from sim.knorri import compiled
from sim.knorri.compiled.batch import END_REASONS, KnorriBatch, play_batch, rollout_scores
from sim.knorri.compiled.policies import GREEDY, PROTOCOL, RANDOM
from sim.knorri.compiled.state import I_CAP, I_END_REASON, I_PHASE2_ACTIONS, I_REPEAT, RNG_DEAL
from sim.knorri.reference import KnorriHand
from sim.rng import GOLDEN_GAMMA, SplitMix64
from sim.seating import play_with_agents

VARIANTS = {"cap200": {"cap": 200}, "norepeat": {"repeat": 0, "cap": 20000}, "threefold": {"repeat": 3}}
VECTORS = sorted((DATA / "conformance" / "knorri" / "variants").glob("traj_*_seats*_first*.txt"))
ANATOMY = ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths", "cycle_seats")
REPEAT = END_REASONS.index("repeat")


def _variant(path):
    variant, n_seats, first = re.fullmatch(r"traj_([a-z0-9]+)_seats(\d)_first(\d)", path.stem).groups()
    return VARIANTS[variant], int(n_seats), int(first)


def _option_args(options):
    return [arg for name, value in options.items() for arg in ("--option", f"{name}={value}")]


def _first_mismatch(expected, got):
    mismatches = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    return f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}" if mismatches else ""


# ----- every line of the variant vectors, on every compiled path --------------------------------------------
@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_compiled_traj_prints_every_variant_line(path, capsys):
    options, n_seats, first = _variant(path)
    expected = path.read_text().splitlines()
    assert len(expected) == 1000
    code = main(["traj", "--engine", "compiled", "--seats", str(n_seats), "--first", str(first), "--seeds", "0",
                 "1000", *_option_args(options)])
    assert code == 0
    got = capsys.readouterr().out.splitlines()
    assert not _first_mismatch(expected, got), _first_mismatch(expected, got)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_play_batch_reproduces_every_variant_line(path):
    options, n_seats, first = _variant(path)
    expected = path.read_text().splitlines()
    got = play_batch(n_seats, np.arange(1000, dtype=np.uint64), first, PROTOCOL, workers=1, **options)
    assert not _first_mismatch(expected, got.protocol_lines()), _first_mismatch(expected, got.protocol_lines())


def _protocol_choices(batch: KnorriBatch) -> np.ndarray:
    """Each hand's protocol choice: ``legal[next() % len(legal)]`` from the hand's own stream, which the batch keeps
    (and draws its redeals from) in its ``rng`` rows; the streams are advanced as the protocol advances them."""
    mask = batch.legal_mask()
    counts = mask.sum(axis=1)
    live = counts > 0
    state = batch._rngs[:, RNG_DEAL] + np.uint64(GOLDEN_GAMMA)
    z = state.copy()
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    batch._rngs[live, RNG_DEAL] = state[live]
    k = np.zeros(len(counts), dtype=np.int64)
    k[live] = (z[live] % counts[live].astype(np.uint64)).astype(np.int64)
    choice = np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)
    return np.where(live, choice, 0)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_knorri_batch_stepped_by_the_protocol_reproduces_every_variant_line(path):
    options, n_seats, first = _variant(path)
    expected = path.read_text().splitlines()
    seeds = np.arange(1000, dtype=np.uint64)
    batch = KnorriBatch.from_seeds(n_seats, seeds, first, **options)
    assert (batch.cap, batch.repeat) == (options.get("cap", 1500), options.get("repeat", 2))
    while not batch.done.all():
        batch.step(_protocol_choices(batch))
    results = batch.results()
    results.seed = seeds
    assert not _first_mismatch(expected, results.protocol_lines()), _first_mismatch(expected,
                                                                                    results.protocol_lines())


# ----- the rules travel with the position ----------------------------------------------------------------
def test_the_rules_are_in_every_dealt_positions_row():
    rows = compiled.new_position(200, 3)
    compiled.deal_hand(rows, 4, 0, np.uint64(5), np.int64(200), np.int64(3))
    assert compiled.cut_off_rules(rows.ints) == (200, 3)
    batch = KnorriBatch.from_seeds(4, [1, 2], cap=777, repeat=0)
    assert batch._ints[:, I_CAP].tolist() == [777, 777] and batch._ints[:, I_REPEAT].tolist() == [0, 0]


def test_the_history_follows_the_cap_and_repeat_off_keeps_none():
    """Room for the start and one position per action up to the cap; with the repeat check off, nothing is looked up
    (two rows: the start of phase 2 and a spare); a slot table only under the rules its int16 entries can hold."""
    for cap, repeat, rows, slots in ((1500, 2, 1501, 4096), (200, 2, 201, 4096), (20_000, 2, 20_001, 0),
                                     (1500, 3, 1501, 0), (1_000_000, 0, 2, 0)):
        position = compiled.new_position(cap, repeat)
        assert (len(position.keys), len(position.records), len(position.slots)) == (rows, rows, slots), (cap, repeat)


def test_a_cap_past_1500_lets_hands_run_on():
    """With the repeat check off and a cap of 20,000, random hands run past 1,500 actions and every one ends."""
    results = play_batch(6, np.arange(300, dtype=np.uint64), 0, RANDOM, workers=1, repeat=0, cap=20_000)
    assert (results.phase2_actions > 1500).any()
    assert set(results.reason.tolist()) == {END_REASONS.index("out")}
    assert (results.cycle_length == -1).all()


@pytest.mark.parametrize(("cap", "repeat"), [(0, 2), (1_000_001, 2), (1500, 1), (1500, 11), (1500, -1)])
def test_rules_out_of_range_are_refused_in_one_line(cap, repeat):
    with pytest.raises(GameInputError) as refused:
        play_batch(4, [1], cap=cap, repeat=repeat)
    assert "\n" not in str(refused.value)
    with pytest.raises(GameInputError):
        KnorriBatch.from_seeds(4, [1], cap=cap, repeat=repeat)


def test_a_search_scratch_fits_the_position_it_is_given():
    """A compiled search's scratch rows follow the rules of the root it is handed (a cap past 1,500 needs more
    history, and no slot table)."""
    hand = KnorriHand.from_seed(5, 11, cap=20_000, repeat=3)
    while hand.phase == 1:
        hand.apply(hand.legal_actions()[0])
    rows = compiled.position_rows(hand)
    assert compiled.cut_off_rules(rows.ints) == (20_000, 3)
    scratch = Scratch().fit(rows)
    assert len(scratch.position.keys) == 20_001 and len(scratch.position.slots) == 0
    assert rollout_scores(hand, 4, RANDOM, seed=3).sum(axis=1).tolist() == [0] * 4


# ----- the anatomy of every loop -----------------------------------------------------------------------
def _reference_hands(n_seats, seeds, **rules):
    hands = []
    for seed in seeds:
        hand = KnorriHand.from_seed(n_seats, seed, **rules)
        stream = SplitMix64(seed ^ 0xC1C1E)
        while not hand.done:
            hand.apply(stream.choice(hand.legal_actions()))
        hands.append(hand)
    return hands


@pytest.mark.parametrize(("n_seats", "rules"), [(4, {}), (5, {}), (4, {"repeat": 3}), (3, {"cap": 400}),
                                                 (6, {"cap": 300})])
def test_the_loop_anatomy_equals_the_reference_engines(n_seats, rules):
    """Hands stepped with the same choices on both engines (through ``KnorriBatch``) end the same way, and a repeat
    hand's five anatomy values are the reference hand's (the log2 sum as the float32 the column stores)."""
    seeds = list(range(400))
    reference = _reference_hands(n_seats, seeds, **rules)
    batch = KnorriBatch.from_seeds(n_seats, seeds, **rules)
    streams = [SplitMix64(seed ^ 0xC1C1E) for seed in seeds]
    while not batch.done.all():
        mask = batch.legal_mask()
        batch.step(np.array([stream.choice(np.flatnonzero(row).tolist()) if row.any() else 0
                             for stream, row in zip(streams, mask, strict=True)]))
    results = batch.results()
    repeats = 0
    for b, hand in enumerate(reference):
        assert END_REASONS[results.reason[b]] == hand.end_reason.value
        assert results.phase2_actions[b] == hand.phase2_actions
        if hand.end_reason.value != "repeat":
            assert all(getattr(hand, name) is None for name in ANATOMY)
            assert all(getattr(results, name)[b] == -1 for name in ANATOMY)
            continue
        repeats += 1
        for name in ("cycle_start", "cycle_length", "cycle_choices", "cycle_seats"):
            assert getattr(results, name)[b] == getattr(hand, name), (b, name)
        assert np.float32(results.cycle_log2_paths[b]) == np.float32(hand.cycle_log2_paths), b
    assert repeats > 0


@pytest.mark.parametrize("n_seats", [4, 6])
def test_the_uniform_loops_anatomy_equals_random_agents_on_the_reference_engine(n_seats):
    """``play_batch``'s uniform random loop (the default rules' fast path) measures each loop as the reference
    engine does with ``RandomAgent`` at every seat (the same draws)."""
    seeds = np.arange(600, dtype=np.uint64)
    fast = play_batch(n_seats, seeds, 0, RANDOM, workers=1)
    repeats = 0
    for i, seed in enumerate(seeds.tolist()):
        if fast.reason[i] != REPEAT:
            continue
        hand = play_with_agents(KnorriHand.from_seed(n_seats, seed), [RandomAgent() for _ in range(n_seats)], seed)
        assert hand.end_reason.value == "repeat"
        for name in ("cycle_start", "cycle_length", "cycle_choices", "cycle_seats"):
            assert getattr(fast, name)[i] == getattr(hand, name), (seed, name)
        assert np.float32(fast.cycle_log2_paths[i]) == np.float32(hand.cycle_log2_paths), seed
        repeats += 1
    assert repeats > 0


@pytest.mark.parametrize(("n_seats", "rules", "policy"), [
    (3, {}, RANDOM), (4, {}, RANDOM), (5, {}, RANDOM), (6, {}, RANDOM), (4, {}, GREEDY),
    (4, {"repeat": 3}, GREEDY), (6, {"repeat": 3}, GREEDY), (5, {"repeat": 10}, GREEDY),
])
def test_every_repeat_hands_loop_is_consistent_and_has_a_choice(n_seats, rules, policy):
    """``cycle_start + cycle_length = phase2_actions``; no loop is forced (``cycle_choices >= 1``); each choice
    has at least two actions (``cycle_log2_paths >= cycle_choices``); a seat acted; all -1 off a repeat. (Random
    play seldom comes round a third time; greedy, whose choice depends on the position alone, loops for good.)"""
    results = play_batch(n_seats, np.arange(3000, dtype=np.uint64), 0, policy, workers=1, **rules)
    repeat = results.reason == REPEAT
    assert repeat.any()
    np.testing.assert_array_equal(results.cycle_start[repeat] + results.cycle_length[repeat],
                                  results.phase2_actions[repeat])
    assert (results.cycle_choices[repeat] >= 1).all()
    assert (results.cycle_log2_paths[repeat] >= results.cycle_choices[repeat]).all()
    assert (results.cycle_seats[repeat] > 0).all() and (results.cycle_seats[repeat] < 1 << n_seats).all()
    for name in ANATOMY:
        assert (getattr(results, name)[~repeat] == -1).all(), name


def _greedy_hand(n_seats, seed, cap):
    position = compiled.new_position(cap, 0)
    compiled.deal_hand(position, n_seats, seed % n_seats, np.uint64(seed), cap, 0)
    return position


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_a_greedy_playout_with_the_repeat_check_off_jumps_its_loop_to_the_caps_exact_end(n_seats):
    """``play_out_result_seats`` with every seat greedy skips whole laps of a greedy loop under ``repeat=0``: the
    hand must end at the cap in the very position, with the very scores, that playing every lap gives (caps that
    fall mid-lap included)."""
    legal = np.zeros(compiled.NUM_ACTIONS, dtype=np.int64)
    looped = 0
    for seed in range(300):
        for cap in (7, 61, 1500, 20000 if seed % 10 == 0 else 2003):
            played, per_seat = (_greedy_hand(n_seats, seed, cap) for _ in range(2))
            compiled.play_to_end(played, legal, GREEDY)
            compiled.play_out_result_seats(per_seat, legal, np.full(n_seats, GREEDY, dtype=np.int64))
            cards, ints = played[:2]
            cards2, ints2 = per_seat[:2]
            for field in (I_END_REASON, I_PHASE2_ACTIONS):
                assert ints2[field] == ints[field], (seed, cap)
            assert compiled.scores(ints2) == compiled.scores(ints), (seed, cap)
            assert [compiled.held(cards2, s) for s in range(n_seats)] == [compiled.held(cards, s)
                                                                         for s in range(n_seats)]
            looped += cap == 1500 and ints[I_END_REASON] == END_REASONS.index("cap")
    assert looped >= 1  # greedy tables loop in a few percent of hands, so some hands went round to the cap
