"""The compiled engine against the reference engine: same lines, same results, same legal sets at every step."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest
from conftest import DATA

from agents.base import RandomAgent
from experiments.cli import main
from sim.errors import GameInputError, IllegalActionError
from sim.knorri.compiled import batch as batch_module
from sim.knorri.compiled import history
from sim.knorri.compiled.batch import (
    END_REASONS,
    OBSERVATION_SLICES,
    KnorriBatch,
    play_batch,
    rollout_scores,
)
from sim.knorri.compiled.batch_kernels import OBSERVATION_SIZE
from sim.knorri.compiled.policies import PROTOCOL, RANDOM
from sim.knorri.compiled.state import I_HIST_BASE, I_HIST_LEN, I_PHASE, R_META, STEP_ROW
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64
from sim.seating import play_with_agents

VECTORS = sorted((DATA / "conformance" / "knorri").glob("traj_seats*_first*.txt"))
FIXTURES = sorted((DATA / "knorri_fast").glob("reference_seats*_first*_seeds*.txt"))


def _seats_first(path):
    return tuple(map(int, re.search(r"seats(\d)_first(\d)", path.name).groups()))


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_compiled_traj_prints_every_conformance_line(path, capsys):
    n_seats, first = _seats_first(path)
    expected = path.read_text().splitlines()
    seeds = [int(line.split()[0]) for line in expected]
    assert seeds == list(range(seeds[0], seeds[0] + len(seeds)))
    code = main(["traj", "--engine", "fast", "--seats", str(n_seats), "--first", str(first),
                 "--seeds", str(seeds[0]), str(seeds[-1] + 1)])
    assert code == 0
    got = capsys.readouterr().out.splitlines()
    mismatches = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_compiled_engine_equals_reference_on_2000_more_seeds(path):
    n_seats, first = _seats_first(path)
    expected = path.read_text().splitlines()
    assert len(expected) == 2000
    seeds = np.array([int(line.split()[0]) for line in expected], dtype=np.uint64)
    got = play_batch(n_seats, seeds, first, PROTOCOL, workers=1).protocol_lines()
    mismatches = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"
    reasons = {line.split()[2] for line in expected}
    assert {"out", "repeat"} <= reasons  # the fixtures exercise the repeat rule, not only normal ends


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_random_policy_plays_exactly_as_random_agents(n_seats):
    seeds = np.arange(500, 560, dtype=np.uint64)
    firsts = seeds.astype(np.int64) % n_seats
    fast = play_batch(n_seats, seeds, firsts, RANDOM, workers=2, log_actions=True)
    log = fast.actions
    for i, seed in enumerate(seeds.tolist()):
        hand = play_with_agents(KnorriHand.from_seed(n_seats, seed, int(firsts[i])),
                         [RandomAgent() for _ in range(n_seats)], seed)
        assert fast.redeals[i] == hand.redeals
        assert END_REASONS[fast.reason[i]] == hand.end_reason.value
        assert fast.phase2_actions[i] == hand.phase2_actions
        assert fast.decisions[i] == len(hand.decisions)
        assert fast.crc32[i] == zlib.crc32(bytes(hand.decisions))
        assert fast.scores[i].tolist() == hand.scores
        assert fast.loser[i] == hand.loser
        assert fast.tricks_completed[i] == hand.tricks_completed
        assert fast.piles_after_phase1[i].tolist() == hand.piles_after_phase1
        assert fast.held_at_end[i].tolist() == hand.hands
        assert fast.cycle_length[i] == (-1 if hand.cycle_length is None else hand.cycle_length)
        rows = log[log[:, 0] == i]
        assert rows[:, 1].tolist() == list(range(len(hand.decisions)))
        assert rows[:, 4].tolist() == hand.decisions
        assert set(rows[:, 3].tolist()) <= {1, 2}


def test_results_do_not_depend_on_worker_count():
    seeds = np.arange(300, dtype=np.uint64)
    one = play_batch(5, seeds, 2, RANDOM, workers=1).to_dict()
    two = play_batch(5, seeds, 2, RANDOM, workers=2).to_dict()
    for name, values in one.items():
        np.testing.assert_array_equal(values, two[name], err_msg=name)


def _assert_same_as_reference(batch, refs, where):
    mask = batch.legal_mask()
    np.testing.assert_array_equal(mask, np.stack([h.legal_mask() for h in refs]), err_msg=where)
    assert batch.to_move.tolist() == [h.to_move for h in refs], where
    assert batch.done.tolist() == [h.done for h in refs], where
    assert batch.scores.tolist() == [h.scores for h in refs], where
    assert batch.phase2_actions.tolist() == [h.phase2_actions for h in refs], where
    assert batch.card_counts.tolist() == [h.card_counts() for h in refs], where
    return mask


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_batch_steps_in_lockstep_with_the_reference(n_seats):
    _step_in_lockstep_with_the_reference(n_seats)


def test_hands_that_outgrow_their_own_history_rows_play_on_exactly_from_the_spill_pool(monkeypatch):
    monkeypatch.setattr(batch_module, "_OWN_HISTORY", 4)  # nearly every hand outgrows its own rows
    batch = _step_in_lockstep_with_the_reference(4)
    assert (batch._spill >= 0).sum() >= 2 and len(batch._spill_keys) >= 2


def _step_in_lockstep_with_the_reference(n_seats):
    seeds = list(range(40, 48))
    refs = [KnorriHand.from_seed(n_seats, seed, seed % n_seats) for seed in seeds]
    batch = KnorriBatch.from_seeds(n_seats, seeds, [seed % n_seats for seed in seeds])
    rng = np.random.default_rng(n_seats)
    copy = None
    step = 0
    while not all(h.done for h in refs):
        mask = _assert_same_as_reference(batch, refs, f"step {step}")
        if copy is not None:
            _assert_same_as_reference(copy, refs, f"step {step} (batch made from reference hands)")
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        batch.step(actions)
        if copy is not None:
            copy.step(actions)
        for hand, action in zip(refs, actions.tolist(), strict=True):
            if not hand.done:
                hand.apply(action)
        step += 1
        if step == 60:  # mid phase 2, with positions remembered: the copy must carry them on exactly
            copy = KnorriBatch.from_hands([h.clone() for h in refs])
    _assert_same_as_reference(batch, refs, "end")
    results = batch.results()
    assert [END_REASONS[r] for r in results.reason.tolist()] == [h.end_reason.value for h in refs]
    assert results.cycle_length.tolist() == [-1 if h.cycle_length is None else h.cycle_length for h in refs]
    assert results.loser.tolist() == [h.loser for h in refs]
    assert results.crc32.tolist() == [zlib.crc32(bytes(h.decisions)) for h in refs]
    assert (batch.scores.sum(axis=1) == 0).all()
    assert not batch.legal_mask().any()
    before = batch.scores
    batch.step(np.zeros(len(seeds), dtype=np.int64))  # finished hands ignore their entries
    np.testing.assert_array_equal(batch.scores, before)
    return batch



def step_randomly(batch: KnorriBatch, steps: int, seed: int) -> KnorriBatch:
    """Advance every unfinished hand of ``batch`` by ``steps`` uniformly random legal actions."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = batch.legal_mask()
        batch.step(np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask]))
    return batch

def _state(batch):
    return {name: value.copy() for name, value in vars(batch).items() if isinstance(value, np.ndarray)}


def test_an_illegal_action_names_the_hand_and_changes_nothing():
    batch = step_randomly(KnorriBatch.from_seeds(4, range(10)), steps=80, seed=1)
    mask = batch.legal_mask()
    actions = np.array([np.flatnonzero(row)[0] if row.any() else 0 for row in mask])
    bad = int(np.flatnonzero(mask.any(axis=1))[-1])
    actions[bad] = int(np.flatnonzero(~mask[bad])[0])
    before = _state(batch)
    with pytest.raises(IllegalActionError) as caught:
        batch.step(actions)
    message = str(caught.value)
    assert f"batch index {bad}" in message
    assert f"seat {batch.to_move[bad]}" in message
    assert f"illegal action {actions[bad]}" in message
    assert caught.value.batch_index == bad
    after = _state(batch)
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    with pytest.raises(GameInputError):
        batch.step(actions[:3])


def test_observations_never_show_the_stock_order():
    checked = 0
    for seed in range(60):
        n_seats = 3 + seed % 4
        deck = SplitMix64(seed).shuffled_deck()
        hand = KnorriHand(n_seats, deck)
        if hand.phase != 1 or hand.done:
            continue
        turned = hand._turn  # cards deck[9 + turned:] are still face down
        other = list(deck)
        tail = other[9 + turned:]
        other[9 + turned:] = tail[::-1]  # the same hidden cards in another order
        batch = KnorriBatch.from_hands([KnorriHand(n_seats, deck), KnorriHand(n_seats, other)])
        obs = batch.observation_tensor()
        np.testing.assert_array_equal(obs[0], obs[1])
        np.testing.assert_array_equal(batch.legal_mask()[0], batch.legal_mask()[1])
        assert obs[0, OBSERVATION_SLICES["turned"]].sum() == 1
        checked += 1
    assert checked > 30


def test_observation_layout_and_contents():
    assert sum(s.stop - s.start for s in OBSERVATION_SLICES.values()) == OBSERVATION_SIZE
    batch = step_randomly(KnorriBatch.from_seeds(4, range(6)), steps=50, seed=2)
    obs = batch.observation_tensor()
    assert obs.dtype == np.float32 and obs.shape == (6, OBSERVATION_SIZE)
    counts = batch.card_counts
    for b, seat in enumerate(batch.to_move.tolist()):
        if seat < 0:
            assert not obs[b].any()
            continue
        hand = int(batch._cards[b, seat])
        own = np.flatnonzero(obs[b, OBSERVATION_SLICES["own_hand"]]).tolist()
        assert own == [c for c in range(52) if hand >> c & 1]
        relative = [(seat + k) % 4 for k in range(4)]
        assert obs[b, OBSERVATION_SLICES["card_counts"]][:4].tolist() == counts[b, relative].tolist()


@pytest.mark.parametrize(("n_seats", "options"), [(3, {}), (4, {}), (6, {"cap": 120, "repeat": 3})])
def test_a_hands_observation_is_the_batchs_without_its_history(n_seats, options):
    """``observation_of`` a reference hand, read without its remembered positions, is the tensor of a batch that
    holds the hand whole, at every decision of hands played to their end (both phases, a hand that finished)."""
    checked = 0
    for seed in range(6):
        hand = KnorriHand.from_seed(n_seats, seed, **options)
        rng = SplitMix64(seed)
        while True:
            expected = KnorriBatch.from_hands([hand]).observation_tensor()[0]
            np.testing.assert_array_equal(KnorriBatch.observation_of(hand), expected)
            checked += 1
            if hand.done:
                break
            hand.apply(rng.choice(hand.legal_actions()))
    assert checked > 500


def test_rollouts_sum_to_zero_and_repeat_for_a_seed():
    hand = KnorriHand.from_seed(5, 9)
    stream = SplitMix64(3)
    while hand.phase == 1 or hand.phase2_actions < 40:
        hand.apply(stream.choice(hand.legal_actions()))
    scores = rollout_scores(hand, 400, RANDOM, seed=11)
    assert scores.shape == (400, 5)
    assert (scores.sum(axis=1) == 0).all()
    np.testing.assert_array_equal(scores, rollout_scores(hand, 400, "random", seed=11, workers=2))
    assert not np.array_equal(scores, rollout_scores(hand, 400, RANDOM, seed=12))
    for seat in range(5):
        if hand.hands[seat] == 0:
            assert (scores[:, seat] == hand.scores[seat]).all()  # points already earned stand


def _one_stretch_of_history(n_seats, seed, rows):
    """A hand stepped at random until its history holds ``rows`` positions since its last irreversible event.

    Returns the hand's batch and a snapshot (cards row, ints row) of each remembered position.
    """
    rng = np.random.default_rng(seed)
    batch = KnorriBatch.from_seeds(n_seats, [seed])
    snapshots = {}
    while True:
        mask = batch.legal_mask()
        assert mask.any(), "the hand ended before its history was long enough: try another seed"
        batch.step(np.array([rng.choice(np.flatnonzero(mask[0]))]))
        length = int(batch._ints[0, I_HIST_LEN])
        if batch._ints[0, I_PHASE] == 2 and length:
            snapshots[length - 1] = (batch._cards[0].copy(), batch._ints[0].copy())
            if length == rows:
                return batch, [snapshots[i] for i in range(rows)]


def test_every_remembered_position_is_rebuilt_exactly_from_its_stretch():
    batch, snapshots = _one_stretch_of_history(4, seed=5, rows=16)
    records, length = batch._records[0], len(snapshots)
    assert not records[0, R_META] & STEP_ROW and (records[1:length, R_META] & STEP_ROW).all()
    for now, (cards, ints) in enumerate(snapshots):
        live_cards, live_ints = cards.copy(), ints.copy()
        live_ints[I_HIST_LEN] = length  # as if the hand stood at position ``now`` with this whole history
        for row in range(length):
            assert history.is_remembered(live_cards, live_ints, records, row) == (row == now), (now, row)
            np.testing.assert_array_equal(live_cards, cards)  # the check leaves the live position as it was
            np.testing.assert_array_equal(live_ints[:I_HIST_LEN], ints[:I_HIST_LEN])


def test_a_hash_collision_never_counts_as_a_repeat():
    batch, snapshots = _one_stretch_of_history(4, seed=5, rows=16)
    records = batch._records[0]
    no_slots = np.zeros(0, dtype=np.int16)
    key = np.uint64(12345)
    collide = np.full(len(batch._keys[0]), key, dtype=np.uint64)  # every remembered key equals the probe's
    cards, ints = snapshots[15][0].copy(), snapshots[15][1].copy()
    ints[I_HIST_LEN] = 15  # the latest position, before it was remembered: new, however its key looks
    assert history.find_position(cards, ints, collide, records, no_slots, key)[0] == -1
    cards, ints = snapshots[7][0].copy(), snapshots[7][1].copy()
    ints[I_HIST_LEN] = 15
    assert history.find_position(cards, ints, collide, records, no_slots, key)[0] == ints[I_HIST_BASE] + 7


def test_bad_input_is_one_clear_error():
    with pytest.raises(GameInputError, match="3 to 6 seats"):
        play_batch(7, [1, 2])
    with pytest.raises(GameInputError, match="first seats"):
        play_batch(4, [1, 2], first_seats=4)
    with pytest.raises(GameInputError, match="unknown policy"):
        play_batch(4, [1, 2], policies="clever")
    with pytest.raises(GameInputError, match="policies must be"):
        play_batch(4, [1, 2], policies=[RANDOM, RANDOM])
