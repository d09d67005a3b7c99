"""The compiled Knorri engine's public API: a batch of hands stepped together, whole-hand playouts, rollouts.

- ``KnorriBatch``: B hands as a few arrays; ``legal_mask()``, ``to_move``, ``step(actions)``,
  ``observation_tensor()``, ``done``, ``scores``, ``end_reason``. For agents and learners.
- ``play_batch``: play H hands from their seeds to the end inside compiled code, over
  every core, and return every per-hand result as NumPy arrays (``BatchResults``).
- ``rollout_scores``: R playouts from one reference position (for MCTS).
- ``position_rows``: a reference position as arrays for compiled search (from ``compiled``,
  the step API that search agents use).

Every result equals the reference engine's (``reference.KnorriHand``) for the same
deal and decisions; the tests replay both side by side. Compile time is paid on
the first call after install and cached on disk (``sim/config.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim import config
from sim.batch_base import (
    BatchResultsBase,
    CompiledBatch,
    check_seeds,
    check_workers,
    empty_state,
    ints_column,
    play_spread,
    policy_id,
)
from sim.errors import GameInputError
from sim.knorri.compiled import PositionRows, batch_kernels, position_rows, state
from sim.knorri.compiled.batch_kernels import (
    OBSERVATION_MEANINGS,
    OBSERVATION_SIZE,
    OBSERVATION_SLICES,
    BatchRows,
    batch_advance_learner,
    batch_continue_cut,
    batch_deal,
    batch_first_illegal,
    batch_play_others,
    batch_step,
)
from sim.knorri.compiled.encode import END_REASONS, encode_hand, encode_position
from sim.knorri.compiled.history import history_capacity
from sim.knorri.compiled.playout import (
    RESULT_FIELDS,
    CutOffRules,
    Deals,
    Outputs,
    gather_results,
    new_lanes,
    play_chunk,
    play_uniform_chunk,
    plays_uniformly,
)
from sim.knorri.compiled.policies import GREEDY, POLICY_NAMES, RANDOM
from sim.knorri.compiled.state import LOG_FIELDS
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS, NUM_ACTIONS
from sim.knorri.reference import EndReason, KnorriHand, check_continuation, check_cut_offs, check_seats
from sim.rng import GOLDEN_GAMMA

_MASK64 = (1 << 64) - 1
_OWN_HISTORY = 128
"""Positions each hand of a batch remembers in its own rows; a hand that needs more (a few in a thousand at a time,
with random play) moves to the batch's spill pool, whose rows hold every position a hand can remember under the
batch's cut-off rules."""
_NO_LOG = np.zeros((0, LOG_FIELDS), dtype=np.int64)
_SCORES = [name for name, _, _ in RESULT_FIELDS].index("scores")
_NO_ACTIONS = np.zeros(0, dtype=np.int64)
_NO_POSITION = PositionRows(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                            np.zeros(0, dtype=np.uint64), np.zeros((0, state.RECORD_SIZE), dtype=np.uint64))


def _seats_and_seeds(n_seats: int, seeds: Sequence[int] | np.ndarray,
                     first_seats: int | Sequence[int] | np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    n_seats = check_seats(n_seats)
    seeds = check_seeds(seeds)
    first = np.broadcast_to(np.asarray(first_seats, dtype=np.int64), seeds.shape).copy()
    if first.size and (first.min() < 0 or first.max() >= n_seats):
        raise GameInputError(f"first seats must be 0 to {n_seats - 1}")
    return n_seats, seeds, first


# ----- whole-hand playouts -------------------------------------------------------------------------
@dataclass
class BatchResults(BatchResultsBase):
    """Per-hand results of ``play_batch``, one array entry per hand (scores etc. one column per seat)."""

    seed: np.ndarray  # uint64[H]
    first_seat: np.ndarray  # int64[H]
    redeals: np.ndarray  # int64[H]: deals thrown in because nobody captured
    reason: np.ndarray  # int8[H]: 0 out, 1 repeat, 2 cap (END_REASONS)
    phase2_actions: np.ndarray  # int64[H]: plays and pick-ups
    decisions: np.ndarray  # int64[H]: phase-1 choices and phase-2 actions
    crc32: np.ndarray  # uint32[H]: CRC-32 of the decision ids, one byte each (the protocol's)
    scores: np.ndarray  # int64[H, n]
    loser: np.ndarray  # int64[H]
    tricks_completed: np.ndarray  # int64[H]
    piles_after_phase1: np.ndarray  # int64[H, n]: cards per seat at the start of phase 2 (0: out)
    held_at_end: np.ndarray  # uint64[H, n]: card sets (bit = card id) each seat still held at the end
    cycle_length: np.ndarray  # int64[H]: actions since the latest earlier occurrence of the repeated position
    # The loop's anatomy (each -1 unless the hand ended by repeat; the rulings' definitions):
    cycle_start: np.ndarray  # int64[H]: the phase-2 action count at the latest earlier occurrence
    cycle_choices: np.ndarray  # int64[H]: the loop's decisions with more than one legal action
    cycle_log2_paths: np.ndarray  # float64[H]: the sum of log2(legal actions) over the loop's decisions
    cycle_seats: np.ndarray  # int64[H]: bit s set if seat s took one of them
    actions: np.ndarray | None = None  # int64[D, 5] (hand index, step, seat, phase, action) if logged
    continued: BatchResults | None = None  # with a continuation: every hand's result at its final end

    def end_reasons(self) -> list[EndReason]:
        """Each hand's ``reason`` code as an ``EndReason`` (``out``, ``repeat`` or ``cap``; a ``str``)."""
        return [EndReason(END_REASONS[code]) for code in self.reason.tolist()]

    def protocol_lines(self) -> list[str]:
        """The conformance protocol's line for each hand (meaningful for the PROTOCOL policy)."""
        return [
            " ".join(str(f) for f in (seed, redeals, END_REASONS[reason], actions, *scores, decisions, crc))
            for seed, redeals, reason, actions, scores, decisions, crc in zip(
                self.seed.tolist(), self.redeals.tolist(), self.reason.tolist(), self.phase2_actions.tolist(),
                self.scores.tolist(), self.decisions.tolist(), self.crc32.tolist(), strict=True)
        ]


def _cut_off_rules(cap: int, repeat: int) -> tuple[np.int64, np.int64]:
    """The cut-off rules as the kernels take them, checked as the reference engine checks them (one line naming the
    range if the rulings do not allow them)."""
    cap, repeat = check_cut_offs(cap, repeat)
    return np.int64(cap), np.int64(repeat)


def play_batch(n_seats: int, seeds: Sequence[int] | np.ndarray, first_seats: int | Sequence[int] | np.ndarray = 0,
               policies: int | str | Sequence[int] | np.ndarray = RANDOM, workers: int | None = None,
               log_actions: bool = False, *, cap: int = MAX_PHASE2_ACTIONS,
               repeat: int = DEFAULT_REPEAT, continue_cap: int | None = None) -> BatchResults:
    """Play one hand per seed to its end in compiled code, spread over ``workers`` cores, under the cut-off rules
    ``cap`` and ``repeat`` (the rulings' "Cut-off options").

    With ``continue_cap``, a hand those rules cut off plays on from the cut, with no repeat check, until it
    ends or reaches ``continue_cap`` phase-2 actions (``reference.check_continuation``): the results are the
    hands as the rules ended them, and ``results.continued`` every hand at its final end (the logged
    decisions run on past the cut).

    ``policies`` is one policy for every seat, one per seat (``int[n_seats]``) or one per
    hand and seat (``int[H, n_seats]``), as ids from ``policies`` (or names). A hand's
    result depends only on its seed, first seat and policies, never on ``workers``.
    ``log_actions`` also returns every decision as rows (hand index, step, seat, phase, action);
    it plays the hands twice (once to size the log).
    """
    n_seats, seeds, first = _seats_and_seeds(n_seats, seeds, first_seats)
    rules = _cut_off_rules(cap, repeat)
    if continue_cap is not None:
        continue_cap = check_continuation(int(rules[0]), int(rules[1]), continue_cap, 0)[0]
    table = _policy_table(policies, len(seeds), n_seats)
    workers = check_workers(workers)
    total = len(seeds)
    columns = _result_arrays(total, n_seats)
    continued = _result_arrays(total if continue_cap is not None else 0, n_seats)
    no_log = np.zeros((0, LOG_FIELDS), dtype=np.int64)
    offsets = np.zeros(total, dtype=np.int64)
    _run_play_hands(workers, n_seats, seeds, first, table, columns, no_log, offsets, rules, continue_cap, continued)
    results = _batch_results(seeds, first, columns, None)
    if continue_cap is not None:
        results.continued = _batch_results(seeds, first, continued, None)
    if log_actions:
        counts = results.decisions if continue_cap is None else results.continued.decisions
        offsets[1:] = np.cumsum(counts)[:-1]
        results.actions = np.zeros((int(counts.sum()), LOG_FIELDS), dtype=np.int64)
        _run_play_hands(workers, n_seats, seeds, first, table, columns, results.actions, offsets, rules,
                        continue_cap, continued)
    return results


def results_from_rows(n_seats: int, seeds: np.ndarray, first: np.ndarray, ints: np.ndarray, held: np.ndarray,
                      log: np.ndarray | None, held_start: int = 0) -> BatchResults:
    """The results of hands from their final ``ints`` rows and held cards (``held[h, held_start + s]``: seat s's), as
    ``agents.knorri.lineup`` returns them (and ``KnorriBatch.results`` holds them), in one compiled pass."""
    columns = _result_arrays(len(ints), n_seats)
    gather_results(np.ascontiguousarray(ints), np.ascontiguousarray(held), np.int64(held_start), np.int64(n_seats),
                   columns)
    return _batch_results(seeds, first, columns, log)


def _result_arrays(total: int, n_seats: int) -> tuple[np.ndarray, ...]:
    """Uninitialised arrays for ``total`` hands' results, one per ``RESULT_FIELDS`` entry (every entry is written)."""
    return tuple(np.empty((total, n_seats) if per_seat else total, dtype=dtype) for _, dtype, per_seat in RESULT_FIELDS)


def _batch_results(seeds: np.ndarray, first: np.ndarray, columns: tuple[np.ndarray, ...],
                   log: np.ndarray | None) -> BatchResults:
    fields = {name: column for (name, _, _), column in zip(RESULT_FIELDS, columns, strict=True)}
    return BatchResults(seed=seeds, first_seat=first, **fields, actions=log)


def _policy_table(policies: int | str | Sequence[int] | np.ndarray, total: int, n_seats: int) -> np.ndarray:
    if isinstance(policies, (str, int, np.integer)):
        return np.full((total, n_seats), policy_id(policies, POLICY_NAMES), dtype=np.int8)
    given = np.asarray(policies)
    if given.dtype.kind in "iu":  # ids: check each distinct one (a chunk's table holds millions of entries)
        for value in np.unique(given).tolist():
            policy_id(value, POLICY_NAMES)
        array = given.astype(np.int8)
    else:
        raw = [policy_id(p, POLICY_NAMES) for p in np.asarray(policies, dtype=object).ravel()]
        array = np.asarray(raw, dtype=np.int8).reshape(np.shape(policies))
    if array.shape == (n_seats,):
        return np.ascontiguousarray(np.broadcast_to(array, (total, n_seats)))
    if array.shape == (total, n_seats):
        return np.ascontiguousarray(array)
    raise GameInputError(f"policies must be one id, one per seat ({n_seats}) or one per hand and seat "
                         f"({total}, {n_seats}); got shape {array.shape}")


def rollout_scores(hand: KnorriHand, n_rollouts: int, policy: int | str = RANDOM, seed: int = 0,
                   workers: int | None = 1) -> np.ndarray:
    """Scores ``int64[n_rollouts, n_seats]`` of playouts from ``hand``'s position, every seat by ``policy``.

    The hand is read once (its position and the positions it remembers, so repeats end
    rollouts exactly as the reference engine would); rollout r draws from
    ``derive_seed(seed, r)``, so the result is a function of the arguments. Each row
    sums to zero. ``workers=1`` (the default) suits callers that already run in parallel.
    """
    if n_rollouts < 1:
        raise GameInputError(f"n_rollouts must be at least 1, not {n_rollouts}")
    if hand.done:
        return np.tile(np.asarray(hand.scores, dtype=np.int64), (n_rollouts, 1))
    rows = position_rows(hand)
    n_seats = hand.n_seats
    streams = _derive_seeds(seed, n_rollouts)
    table = np.full((n_rollouts, n_seats), policy_id(policy, POLICY_NAMES), dtype=np.int8)
    columns = _result_arrays(n_rollouts, n_seats)
    workers = check_workers(workers)
    _run_play_hands(workers, n_seats, streams, np.zeros(n_rollouts, dtype=np.int64), table, columns,
                    _NO_LOG, np.zeros(n_rollouts, dtype=np.int64), (rows[1][state.I_CAP], rows[1][state.I_REPEAT]),
                    start_position=rows)
    return columns[_SCORES]


def _derive_seeds(seed: int, count: int) -> np.ndarray:
    """``[derive_seed(seed, r) for r in range(count)]`` in NumPy (uint64 arithmetic wraps, as splitmix64 needs)."""
    z = np.uint64(seed & _MASK64) + np.uint64(GOLDEN_GAMMA) * np.arange(1, count + 1, dtype=np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _run_play_hands(workers: int, n_seats: int, seeds: np.ndarray, first: np.ndarray, table: np.ndarray,
                    columns: tuple[np.ndarray, ...], log: np.ndarray, offsets: np.ndarray,
                    rules: tuple[np.int64, np.int64], continue_cap: int | None = None,
                    continued: tuple[np.ndarray, ...] | None = None,
                    start_position: PositionRows | None = None) -> None:
    """Play the hands on ``workers`` threads with the chunk kernel; it writes each hand's results into ``columns``
    (``rules``: the cut-off rules ``(cap, repeat)`` of hands dealt from seeds), and with ``continue_cap`` each
    hand's result at its final end into ``continued``."""
    root = start_position or _NO_POSITION
    if continued is None:
        continued = _result_arrays(0, n_seats)
    deals = Deals(np.int64(n_seats), seeds, first, config.read_only(table))
    cut_off = CutOffRules(np.int64(rules[0]), np.int64(rules[1]),
                          np.int64(-1 if continue_cap is None else continue_cap))
    out = Outputs(columns, log, offsets, continued)
    cap, repeat = (int(root.ints[state.I_CAP]), int(root.ints[state.I_REPEAT])) if len(root.cards) else rules
    uniform = plays_uniformly(table, len(log) > 0, cut_off, root)
    play_spread(workers, len(seeds), play_uniform_chunk if uniform else play_chunk, (deals,),
                lambda: (out, cut_off, root, new_lanes(cap, repeat)))


# ----- the batch ------------------------------------------------------------------------------------
class KnorriBatch(CompiledBatch):
    """B hands of Knorri stepped together: one action per hand per ``step``; finished hands stand still.

    Phase 1 plays itself up to each real choice, as in the reference engine. All state is
    in a few arrays (``state`` documents the columns). ``scores`` are points so far
    (each finished hand sums to zero); ``card_counts`` count piles in phase 1. The
    observation holds the seat's own cards, every pile or hand (public: each card was
    seen going in), the table, the turned card, the trick in order, counts, who is out,
    scores and the phase; never the stock order.

    Each hand remembers up to ``_OWN_HISTORY`` positions in its own rows; one that needs more moves to
    the batch's spill pool (rows long enough for any hand), so the batch never grows every hand's rows.
    ``advance_learner`` is the vector env's whole step in one compiled pass.
    """

    UNIT = "hand"
    END_REASONS = END_REASONS
    NUM_ACTIONS = NUM_ACTIONS
    OBSERVATION_SIZE = OBSERVATION_SIZE
    C_HAND, I_TO_MOVE, I_END_REASON, I_SCORE = state.C_HAND, state.I_TO_MOVE, state.I_END_REASON, state.I_SCORE
    KERNELS = batch_kernels
    POLICIES = {"random": RANDOM, "greedy": GREEDY}
    STATE = ("_cards", "_ints", "_decks", "_rngs", "_keys", "_records")

    def __init__(self, cards: np.ndarray, ints: np.ndarray, decks: np.ndarray, rngs: np.ndarray,
                 keys: np.ndarray, records: np.ndarray) -> None:
        """Wrap state arrays; use ``from_seeds`` or ``from_hands`` to make a batch."""
        self._cards, self._ints, self._decks, self._rngs = cards, ints, decks, rngs
        self._keys, self._records = keys, records
        rules = set(zip(ints[:, state.I_CAP].tolist(), ints[:, state.I_REPEAT].tolist(), strict=True))
        if len(rules) > 1:
            raise GameInputError(f"every hand of a batch needs the same cut-off rules (cap, repeat), "
                                 f"not {sorted(rules)}")
        self.cap, self.repeat = rules.pop() if rules else (MAX_PHASE2_ACTIONS, DEFAULT_REPEAT)
        self._spill_history = history_capacity(self.cap, self.repeat) + 1  # rows for every position a hand keeps
        self._slots = np.zeros((len(ints), 0), dtype=np.int16)  # no slot table: a batch scans its history
        self._spill = np.full(len(ints), -1, dtype=np.int64)  # each hand's row of the spill pool, -1: its own rows
        self._spill_keys = np.zeros((0, self._spill_history), dtype=np.uint64)
        self._spill_records = np.zeros((0, self._spill_history, state.RECORD_SIZE), dtype=np.uint64)
        self._free_spill: list[int] = []  # rows of the spill pool no hand holds
        self._short = np.zeros(len(ints), dtype=np.int64)  # batch_advance_learner's list of hands short of room
        seats = set(ints[:, state.I_N_SEATS].tolist())
        if len(seats) > 1:
            raise GameInputError(f"every hand of a batch needs the same seat count, not {sorted(seats)}")
        self.n_seats = seats.pop() if seats else 0
        self._continue_cap: int | None = None  # from_seeds(continue_cap=...) plays cut-off hands on

    @classmethod
    def from_seeds(cls, n_seats: int, seeds: Sequence[int] | np.ndarray,
                   first_seats: int | Sequence[int] | np.ndarray = 0, *, cap: int = MAX_PHASE2_ACTIONS,
                   repeat: int = DEFAULT_REPEAT, continue_cap: int | None = None) -> KnorriBatch:
        """One hand per seed, dealt as ``KnorriHand.from_seed`` deals it (redeals from the same stream), every hand
        under the cut-off rules ``cap`` and ``repeat``; with ``continue_cap``, a hand they cut off plays on past the
        cut within the same ``step`` (as ``play_batch``'s continuation), ``results()`` keeping it as cut."""
        n_seats, seeds, first = _seats_and_seeds(n_seats, seeds, first_seats)
        cap, repeat = _cut_off_rules(cap, repeat)
        total = len(seeds)
        cards, ints, decks, rngs = empty_state(total, state.NUM_CARD_FIELDS, state.NUM_INT_FIELDS, state.NUM_RNG)
        keys = np.zeros((total, _OWN_HISTORY), dtype=np.uint64)
        records = np.zeros((total, _OWN_HISTORY, state.RECORD_SIZE), dtype=np.uint64)
        dealt = BatchRows(cards, ints, decks, rngs, keys, records, np.full(total, -1, dtype=np.int64),
                          np.zeros((0, 0), dtype=np.uint64), np.zeros((0, 0, state.RECORD_SIZE), dtype=np.uint64),
                          np.zeros((total, 0), dtype=np.int16))
        batch_deal(dealt, np.arange(total, dtype=np.int64), seeds, first, n_seats, cap, repeat)
        batch = cls(cards, ints, decks, rngs, keys, records)
        batch.cap, batch.repeat = int(cap), int(repeat)  # an empty batch keeps the rules it was asked for
        if continue_cap is not None:
            batch._continue_cap = check_continuation(batch.cap, batch.repeat, continue_cap, 0)[0]
            batch._cut_ints = np.zeros_like(ints)
            batch._cut_held = np.zeros((total, n_seats), dtype=np.uint64)
            batch._continued = np.zeros(total, dtype=np.bool_)
        return batch

    @classmethod
    def from_hands(cls, hands: Sequence[KnorriHand]) -> KnorriBatch:
        """A batch holding copies of reference hands as they stand (phase 2, or phase 1 if dealt from a seed)."""
        if not hands:
            raise GameInputError("from_hands needs at least one hand")
        encoded = [encode_hand(hand, _OWN_HISTORY) for hand in hands]
        capacity = max(len(e[4]) for e in encoded)
        keys = np.zeros((len(hands), capacity), dtype=np.uint64)
        records = np.zeros((len(hands), capacity, state.RECORD_SIZE), dtype=np.uint64)
        for b, e in enumerate(encoded):
            keys[b, :len(e[4])], records[b, :len(e[5])] = e[4], e[5]
        return cls(np.stack([e[0] for e in encoded]), np.stack([e[1] for e in encoded]),
                   np.stack([e[2] for e in encoded]), np.stack([e[3] for e in encoded]), keys, records)

    @staticmethod
    def observation_of(hand: KnorriHand) -> np.ndarray:
        """``float32[OBSERVATION_SIZE]``: ``from_hands([hand]).observation_tensor()[0]``, the tensor of the seat to
        move in a reference hand as it stands, read without the positions the hand remembers (no tensor holds
        them), so a caller asking at every decision pays for the position alone."""
        cards, ints, _ = encode_position(hand)
        out = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)
        batch_kernels.batch_observe(cards[np.newaxis], ints[np.newaxis], out)
        return out[0]

    # ----- what only Knorri asks --------------------------------------------------------------------------
    phase = ints_column(
        state.I_PHASE, "``int64[B]``: 1 while the stock is turned, 2 while the cards are played out (and once ended).")
    phase2_actions = ints_column(state.I_PHASE2_ACTIONS, "``int64[B]``: plays and pick-ups so far.")

    def results(self) -> BatchResults:
        """The per-hand results so far, in the same form as ``play_batch`` returns (with a continuation, the hands
        as the rules ended them, and ``continued`` as they stand)."""
        seeds = np.zeros(len(self), dtype=np.uint64)
        first = self._ints[:, state.I_FIRST_SEAT].copy()
        now = results_from_rows(self.n_seats, seeds, first, self._ints, self._cards, None, state.C_HAND)
        if self._continue_cap is None:
            return now
        cut = self._continued
        ints = np.where(cut[:, None], self._cut_ints, self._ints)
        held = np.where(cut[:, None], self._cut_held, self._cards[:, state.C_HAND:state.C_HAND + self.n_seats])
        results = results_from_rows(self.n_seats, seeds, first, ints, held, None)
        results.continued = now
        return results

    # ----- the step's two kernels --------------------------------------------------------------------------
    def _first_illegal(self, ids: np.ndarray) -> int:
        return batch_first_illegal(self._cards, self._ints, ids, np.zeros(NUM_ACTIONS, dtype=np.int64))

    def _apply(self, ids: np.ndarray) -> None:
        self._prepare_step()
        batch_step(self._kernel_rows(), ids)
        if self._continue_cap is not None:
            batch_continue_cut(self._cards, self._ints, self._cut_ints, self._cut_held, self._continued,
                               np.int64(self._continue_cap))

    def _kernel_rows(self) -> BatchRows:
        """The hands as the kernels take them (the spill pool is replaced when it grows, so made per call)."""
        return BatchRows(self._cards, self._ints, self._decks, self._rngs, self._keys, self._records, self._spill,
                         self._spill_keys, self._spill_records, self._slots)

    def restart(self, where: np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal fresh hands at the indices ``where`` from ``seeds`` (as ``from_seeds`` deals them), in place in
        compiled code: autoreset."""
        where = np.asarray(where, dtype=np.int64)
        seeds = check_seeds(seeds)
        if len(where) != len(seeds):
            raise GameInputError(f"restart needs one seed per index: {len(where)} indices, {len(seeds)} seeds")
        spilled = self._spill[where]
        self._free_spill.extend(spilled[spilled >= 0].tolist())
        self._spill[where] = -1
        if self._continue_cap is not None:
            self._continued[where] = False
        batch_deal(self._kernel_rows(), where, seeds, np.zeros(len(where), dtype=np.int64), self.n_seats,
                   np.int64(self.cap), np.int64(self.repeat))

    def advance_learner(self, rows: np.ndarray, ids: np.ndarray | None, policies: np.ndarray, seat: int,
                        observations: np.ndarray, masks: np.ndarray, done: np.ndarray) -> None:
        """``CompiledBatch.advance_learner`` in one compiled pass over the hands, each hand's state still in cache
        from its learner's move to its observation (the separate kernels each walk the whole batch)."""
        actions = _NO_ACTIONS if ids is None else ids
        scratch = np.zeros(NUM_ACTIONS, dtype=np.int64)
        while True:
            short = batch_advance_learner(self._kernel_rows(), rows, actions, policies, int(seat), observations, masks,
                                          done, self._short, scratch)
            if short == 0:
                return
            rows = self._short[:short].copy()
            self._move_to_spill(rows)  # and carry on in those hands alone
            actions = _NO_ACTIONS

    def _play_others(self, policies: np.ndarray, seat: int) -> None:
        batch_play_others(self._kernel_rows(), policies, seat, np.zeros(NUM_ACTIONS, dtype=np.int64))

    def _prepare_step(self) -> None:
        # A step remembers at most one position per hand: move every hand whose own rows are full to the spill pool.
        full = (self._ints[:, state.I_HIST_LEN] + 1 >= self._keys.shape[1]) & (self._spill < 0)
        if full.any():
            self._move_to_spill(np.flatnonzero(full))

    def _move_to_spill(self, rows: np.ndarray) -> None:
        """Give the hands ``rows`` (own rows full) rows of the spill pool, their remembered positions copied there."""
        needed = len(rows) - len(self._free_spill)
        if needed > 0:  # grow the pool to at least twice its size
            size = len(self._spill_keys)
            grown = max(2 * size, size + needed, 8)
            keys = np.zeros((grown, self._spill_history), dtype=np.uint64)
            records = np.zeros((grown, self._spill_history, state.RECORD_SIZE), dtype=np.uint64)
            keys[:size], records[:size] = self._spill_keys, self._spill_records
            self._spill_keys, self._spill_records = keys, records
            self._free_spill.extend(range(size, grown))
        own = self._keys.shape[1]
        for b in rows.tolist():
            row = self._free_spill.pop()
            self._spill_keys[row, :own] = self._keys[b]
            self._spill_records[row, :own] = self._records[b]
            self._spill[b] = row


__all__ = [
    "END_REASONS",
    "OBSERVATION_MEANINGS",
    "OBSERVATION_SLICES",
    "BatchResults",
    "KnorriBatch",
    "play_batch",
    "position_rows",
    "rollout_scores",
]
