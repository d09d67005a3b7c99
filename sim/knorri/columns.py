"""Knorri's hands table: its columns, and how played hands become them, from either engine.

``HAND_COLUMNS`` says what a row holds; ``hand_columns`` fills them from reference hands and ``result_columns``
from the compiled engine's results, so both paths write the same table. A run played on past its cut-offs adds
``CONTINUED_COLUMNS`` (``continued_columns``). The adapter (``sim.knorri.adapter``) gives these to the runner.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sim.contract import ChunkColumns, ColumnSpec, decision_columns, nullable
from sim.knorri.compiled.encode import END_REASONS
from sim.knorri.reference import KnorriHand

if TYPE_CHECKING:
    from sim.knorri.compiled.batch import BatchResults

CUT_OFFS = ("repeat", "cap")  # the table's repeat rule and action cap stop a hand the rules have not ended

HAND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", "the hand's seed: `knorri-sim play --seats N --seed SEED --first FIRST_SEAT "
               "--agents 'AGENT_0;AGENT_1;…'` replays it"),
    ColumnSpec("first_seat", "int32", "the seat with the first turn of phase 1"),
    ColumnSpec("score", "int8", "the seat's score in this hand (a hand sums to zero)", per_seat=True),
    ColumnSpec("loser", "int32", "the seat left holding cards (or ranked last at a cut-off)"),
    ColumnSpec("end_reason", "int8", "why the hand ended: out, repeat or cap", categories=END_REASONS),
    ColumnSpec("phase2_actions", "int32", "plays and pick-ups in phase 2"),
    ColumnSpec("tricks_completed", "int32", "tricks completed and set aside"),
    ColumnSpec("redeals", "int32", "deals thrown in because nobody captured in phase 1"),
    ColumnSpec("seats_out_after_phase1", "int32", "seats that took nothing in phase 1"),
    ColumnSpec("pile", "int32", "the seat's pile size after phase 1 (its hand for phase 2)", per_seat=True),
    ColumnSpec("held", "uint64", "cards the seat held at the end, as a bitset (bit id = card id); "
               "at an `out` end only the loser holds cards", per_seat=True),
    ColumnSpec("cycle_length", "int32", "for a `repeat` end, phase-2 actions between the two equal positions "
               "(the repeat and its latest earlier occurrence): `phase2_actions - cycle_start`; null otherwise",
               nullable=True),
    ColumnSpec("decisions", "int32", "decisions taken (phase-1 choices and phase-2 actions)"),
    ColumnSpec("decisions_crc32", "uint32", "CRC-32 of the decisions' action ids, one byte each, in order"),
    # The loop's anatomy, for a hand ended by `repeat` (null otherwise): the cycle is the phase-2 actions
    # cycle_start + 1 .. phase2_actions, from the latest earlier occurrence of the repeated position to the repeat.
    ColumnSpec("cycle_start", "int32", "for a `repeat` end, the phase-2 action count at the latest earlier "
               "occurrence of the repeated position; null otherwise", nullable=True),
    ColumnSpec("cycle_choices", "int32", "for a `repeat` end, the cycle's decisions where the seat to move had "
               "more than one legal action (at least 1: no loop is forced); null otherwise", nullable=True),
    ColumnSpec("cycle_log2_paths", "float32", "for a `repeat` end, the sum of log2(legal actions) over the "
               "cycle's decisions: uniform random play goes round the same cycle again with chance 2 to the minus "
               "this; null otherwise", nullable=True),
    ColumnSpec("cycle_seats", "uint8", "for a `repeat` end, the seats that acted in the cycle as a bitmask "
               "(bit s = seat s); null otherwise", nullable=True),
)
ANATOMY = ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths", "cycle_seats")
"""The loop-anatomy columns: a value for a hand ended by ``repeat``, null for any other."""

_CONTINUED = "for a hand the rules cut off, played on past the cut (--continue-past-cutoff): "
CONTINUED_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("continued_end_reason", "int8", _CONTINUED + "how it ended then, out or cap; null for a hand that "
               "ended out", categories=END_REASONS, nullable=True),
    ColumnSpec("continued_phase2_actions", "int32", _CONTINUED + "its phase-2 actions in all, the cut ones "
               "included (never fewer than `phase2_actions`); null otherwise", nullable=True),
    ColumnSpec("continued_loser", "int32", _CONTINUED + "the seat left holding cards (or ranked last at the "
               "continuation's cap); null otherwise", nullable=True),
    ColumnSpec("continued_score", "int8", _CONTINUED + "the seat's score at its final end; null otherwise",
               per_seat=True, nullable=True),
    ColumnSpec("continued_decisions", "int32", _CONTINUED + "its decisions in all (the actions table's steps "
               "from `decisions` on are the continued ones); null otherwise", nullable=True),
    ColumnSpec("continued_decisions_crc32", "uint32", _CONTINUED + "CRC-32 of all its decisions' action ids, one "
               "byte each, in order; null otherwise", nullable=True),
)
"""The columns a run continued past its cut-offs adds to the hands table (the runner adds them only then)."""

ACTION_COLUMNS = decision_columns("hand", "1 for a phase-1 capture choice, 2 for a phase-2 play or pick-up",
                                  "the action id (0..64, see the rulings' action table)")


def result_columns(n_seats: int, batches: Sequence[BatchResults], log_actions: bool) -> ChunkColumns:
    """The columns of hand k of every match (``batches[k]``), match by match."""
    matches, match_hands = len(batches[0]), len(batches)

    def rows(field: str) -> np.ndarray:
        stacked = np.stack([getattr(b, field) for b in batches], axis=1)  # [matches, k, ...]
        return stacked.reshape((matches * match_hands,) + stacked.shape[2:])

    piles = rows("piles_after_phase1")
    reason = rows("reason")
    hands = {
        "seed": rows("seed").astype(np.uint64),
        "first_seat": rows("first_seat").astype(np.int32),
        "score": rows("scores").astype(np.int8),
        "loser": rows("loser").astype(np.int32),
        "end_reason": rows("reason").astype(np.int8),
        "phase2_actions": rows("phase2_actions").astype(np.int32),
        "tricks_completed": rows("tricks_completed").astype(np.int32),
        "redeals": rows("redeals").astype(np.int32),
        "seats_out_after_phase1": (piles == 0).sum(axis=1).astype(np.int32),
        "pile": piles.astype(np.int32),
        "held": rows("held_at_end").astype(np.uint64),
        "decisions": rows("decisions").astype(np.int32),
        "decisions_crc32": rows("crc32").astype(np.uint32),
    }
    not_repeat = reason != END_REASONS.index("repeat")
    for spec in HAND_COLUMNS:
        if spec.name in ANATOMY:
            values = rows(spec.name)  # the engine's -1 off a repeat is masked
            hands[spec.name] = np.ma.array(np.where(not_repeat, 0, values).astype(spec.dtype), mask=not_repeat)
    actions = None
    if log_actions:
        logs = [np.column_stack([b.actions[:, 0] * match_hands + k, b.actions[:, 1:]])
                for k, b in enumerate(batches)]
        log = np.concatenate(logs)
        if match_hands > 1:
            log = log[np.lexsort((log[:, 1], log[:, 0]))]
        actions = {"hand_row": log[:, 0].astype(np.int64), "step": log[:, 1].astype(np.int32),
                   "seat": log[:, 2].astype(np.int16), "phase": log[:, 3].astype(np.int16),
                   "action": log[:, 4].astype(np.int16)}
    if batches[0].continued is not None:
        final = result_columns(n_seats, [b.continued for b in batches], False).hands
        hands.update(continued_columns(hands, final))
        if actions is not None:
            actions["continued"] = actions["step"] >= hands["decisions"][actions["hand_row"]]
    return ChunkColumns(hands=hands, actions=actions)


def continued_columns(cut: Mapping[str, np.ndarray], final: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``CONTINUED_COLUMNS`` from the columns of hands as the rules ended them (``cut``) and at their final end
    (``final``, the same names): null where the rules did not cut the hand off."""
    not_cut = ~np.isin(cut["end_reason"], [END_REASONS.index(reason) for reason in CUT_OFFS])
    columns = {}
    for spec in CONTINUED_COLUMNS:
        values = np.asarray(final[spec.name.removeprefix("continued_")])
        mask = not_cut if values.ndim == 1 else np.repeat(not_cut[:, None], values.shape[1], axis=1)
        columns[spec.name] = np.ma.array(values.astype(spec.dtype), mask=mask)
    return columns


def final_results(finals: Sequence[KnorriHand], n_seats: int) -> dict[str, np.ndarray]:
    """The hands table's columns of reference hands at their final end (seeds left 0: only the results count)."""
    return hand_columns([(0, hand) for hand in finals], n_seats)


def hand_columns(hands: list[tuple[int, KnorriHand]], n_seats: int) -> dict[str, np.ndarray]:
    """``HAND_COLUMNS`` of reference hands, each with the seed it was dealt from, in the order given."""
    count = len(hands)
    columns = {
        spec.name: np.zeros((count, n_seats) if spec.per_seat else count, dtype=spec.dtype)
        for spec in HAND_COLUMNS
    }
    anatomy = {name: np.full(count, np.nan) for name in ANATOMY}
    for row, (seed, hand) in enumerate(hands):
        piles = hand.piles_after_phase1
        columns["seed"][row] = seed
        columns["first_seat"][row] = hand.first_seat
        columns["score"][row] = hand.scores
        columns["loser"][row] = hand.loser
        columns["end_reason"][row] = END_REASONS.index(hand.end_reason.value)
        columns["phase2_actions"][row] = hand.phase2_actions
        columns["tricks_completed"][row] = hand.tricks_completed
        columns["redeals"][row] = hand.redeals
        columns["seats_out_after_phase1"][row] = sum(1 for size in piles if size == 0)
        columns["pile"][row] = piles
        columns["held"][row] = hand.hands
        if hand.end_reason == "repeat":
            for name in ANATOMY:
                anatomy[name][row] = getattr(hand, name)
        columns["decisions"][row] = len(hand.decisions)
        columns["decisions_crc32"][row] = zlib.crc32(bytes(hand.decisions))
    for spec in HAND_COLUMNS:
        if spec.name in ANATOMY:
            columns[spec.name] = nullable(anatomy[spec.name], spec.dtype)
    return columns
