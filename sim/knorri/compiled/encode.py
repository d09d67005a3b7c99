"""A reference ``KnorriHand`` as the compiled engine's state rows (for ``KnorriBatch.from_hands`` and rollouts).

The engine module reads the reference hand's own fields, its remembered positions
included, so a hand carried over continues exactly as the reference engine would.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from sim.compiled_bits import CRC_START
from sim.errors import GameInputError
from sim.knorri.compiled import state
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64

END_REASONS = ("out", "repeat", "cap")
"""``end_reason`` codes 0, 1, 2 by name (-1: not ended)."""
_MASK64 = (1 << 64) - 1


def _pack_trick(trick: Sequence[Sequence[int]]) -> tuple[int, int, int, int]:
    """(trick_lo, trick_hi, cards, run_left) of a trick given as plays of cards."""
    flat = [card for play in trick for card in play]
    lo = hi = 0
    for index, card in enumerate(flat):
        if index < 10:
            lo |= (card + 1) << (6 * index)
        else:
            hi |= (card + 1) << (6 * (index - 10))
    run_left = len(trick[0]) if trick and len(trick[0]) > 1 else 0
    return lo, hi, len(flat), run_left


_MOVER_KEYS = state.MOVER_KEY.tolist()
_ZOBRIST_ROWS = state.ZOBRIST.tolist()  # Python ints: indexing the NumPy table per card is what made encoding slow


@lru_cache(maxsize=1 << 14)
def _hands_hash(hands: tuple[int, ...]) -> int:
    """The Zobrist hash of every seat's hand, as the kernels keep it (remembered: a search encodes the same
    history positions again and again)."""
    value = 0
    for seat, hand in enumerate(hands):
        row = _ZOBRIST_ROWS[seat]
        while hand:
            low = hand & -hand
            value ^= row[low.bit_length() - 1]
            hand ^= low
    return value


@lru_cache(maxsize=1 << 14)
def _record(hands: tuple[int, ...], trick, needed: int, to_move: int, opening: bool) -> tuple[tuple[int, ...], int]:
    """The history record of a position and its key, exactly as the kernels compute them (remembered, as above)."""
    lo, hi, length, run_left = _pack_trick(trick)
    meta = (to_move | (int(opening) << state.META_OPENING) | (needed << state.META_NEEDED)
            | (run_left << state.META_RUN_LEFT) | (length << state.META_TRICK_LEN))
    record = [0] * state.RECORD_SIZE
    record[:len(hands)] = hands
    record[state.R_TRICK_LO], record[state.R_TRICK_HI], record[state.R_META] = lo, hi, meta
    return tuple(record), _hands_hash(tuple(hands)) ^ _MOVER_KEYS[to_move]


def _history_rows(hand: KnorriHand) -> tuple[list[tuple], int]:
    """The positions the hand remembers as the compiled engine's history rows: one per phase-2 action since the
    last irreversible event, the stretch's first position first, and the phase-2 action count of that first one.

    The reference hand keeps each position once, with how many times it was reached and when
    last. Each position's latest occurrence takes its own row; a position reached more than once
    fills its other occurrences into the free rows before that one, earliest deadline first (an
    order the true history proves possible). So a scan counts every position's occurrences
    exactly and finds its latest one where the reference engine would.
    """
    times_of = hand._times
    entries = []
    length, newest = 0, -1
    for position, latest in hand._history.items():
        times = times_of.get(position, 1)
        entries.append((latest, times, position))
        length += times
        newest = max(newest, latest)
    if not entries:
        return [], hand.phase2_actions
    base = newest - length + 1  # the newest position closes the stretch
    rows: list[tuple | None] = [None] * length
    for latest, _, position in entries:
        index = latest - base
        if not 0 <= index < length or rows[index] is not None:
            raise GameInputError("the hand's position history is not one unbroken stretch of actions")
        rows[index] = position
    if length == len(entries):  # every position reached once: no row left to fill
        return rows, base
    free = iter([index for index, row in enumerate(rows) if row is None])
    for latest, times, position in sorted(entries, key=lambda entry: entry[0]):
        for _ in range(times - 1):
            index = next(free, length)
            if index >= latest - base:
                raise GameInputError("the hand's position history is not one unbroken stretch of actions")
            rows[index] = position
    return rows, base


def encode_hand(hand: KnorriHand, history_capacity: int) -> tuple[np.ndarray, ...]:
    """One reference hand as the compiled engine's rows: cards, ints, deck, rng, keys, records.

    The history keeps the positions the hand remembers since its last irreversible event,
    with room for at least ``history_capacity`` (and two more than it holds).
    """
    cards, ints, rng = encode_position(hand)
    rows, base = _history_rows(hand)
    capacity = max(history_capacity, len(rows) + 2)
    keys = np.zeros(capacity, dtype=np.uint64)
    records = np.zeros((capacity, state.RECORD_SIZE), dtype=np.uint64)
    if rows:
        encoded = [_record(*position) for position in rows]
        records[:len(rows)] = [record for record, _ in encoded]
        keys[:len(rows)] = [key for _, key in encoded]
    ints[state.I_HIST_LEN] = len(rows)
    ints[state.I_HIST_BASE] = base
    deck = np.asarray(hand.deck, dtype=np.int64)
    return cards, ints, deck, rng, keys[:capacity], records[:capacity]


def encode_position(hand: KnorriHand) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand's ``cards``, ``ints`` and ``rng`` rows without the positions it remembers (``I_HIST_LEN`` 0): what
    reads the position as it stands, such as an observation tensor, needs no more."""
    n = hand.n_seats
    cards = np.zeros(state.NUM_CARD_FIELDS, dtype=np.uint64)
    ints = np.zeros(state.NUM_INT_FIELDS, dtype=np.int64)
    rng = np.zeros(state.NUM_RNG, dtype=np.uint64)
    source = getattr(hand._redeal_source, "__self__", None)
    if isinstance(source, SplitMix64):
        rng[state.RNG_DEAL] = source.state
    elif hand.phase == 1 and not hand.done:
        raise GameInputError("a phase-1 hand can be encoded only if it was dealt by KnorriHand.from_seed "
                             "(its redeals must come from a splitmix64 stream)")
    for seat in range(n):
        cards[state.C_HAND + seat] = hand.hands[seat]
    cards[state.C_TABLE] = hand.table
    cards[state.C_CANDIDATES] = hand._choice_candidates if hand.phase == 1 and not hand.done else 0
    lo, hi, length, run_left = _pack_trick(hand.trick)
    cards[state.C_TRICK_LO], cards[state.C_TRICK_HI] = lo, hi
    cards[state.C_HANDS_HASH] = _hands_hash(tuple(hand.hands))
    ints[state.I_N_SEATS], ints[state.I_FIRST_SEAT], ints[state.I_PHASE] = n, hand.first_seat, hand.phase
    ints[state.I_TO_MOVE] = hand.to_move
    ints[state.I_CUT_MOVER] = hand._to_move if hand.end_reason in ("repeat", "cap") else -1
    ints[state.I_TURN] = hand._turn
    ints[state.I_TURNED] = hand._turned if cards[state.C_CANDIDATES] else -1
    ints[state.I_LAST_CAPTURER] = -1 if hand._last_capturer is None else hand._last_capturer
    ints[state.I_REDEALS] = hand.redeals
    ints[state.I_TRICK_LEN], ints[state.I_RUN_LEFT] = length, run_left
    ints[state.I_NEEDED] = hand.trick_needed
    ints[state.I_OPENING] = int(hand.opening)
    ints[state.I_HOLDING] = sum(1 for h in hand.hands if h) if hand.phase == 2 else 0
    ints[state.I_PHASE2_ACTIONS] = hand.phase2_actions
    ints[state.I_DECISIONS] = len(hand.decisions)
    ints[state.I_CRC] = zlib.crc32(bytes(hand.decisions)) ^ CRC_START
    ints[state.I_TRICKS_COMPLETED] = hand.tricks_completed
    ints[state.I_END_REASON] = -1 if hand.end_reason is None else END_REASONS.index(hand.end_reason.value)
    ints[state.I_LOSER] = -1 if hand.loser is None else hand.loser
    ints[state.I_CYCLE] = -1 if hand.cycle_length is None else hand.cycle_length
    ints[state.I_SCORE:state.I_SCORE + n] = hand.scores
    if hand.phase == 2:
        ints[state.I_PILE:state.I_PILE + n] = hand.piles_after_phase1
    ints[state.I_CAP], ints[state.I_REPEAT] = hand.cap, hand.repeat  # the table's rules travel with the position
    for field, value in ((state.I_CYCLE_START, hand.cycle_start), (state.I_CYCLE_CHOICES, hand.cycle_choices),
                         (state.I_CYCLE_SEATS, hand.cycle_seats)):
        ints[field] = -1 if value is None else value
    log2_paths = hand.cycle_log2_paths
    ints[state.I_CYCLE_LOG2] = -1 if log2_paths is None else np.float64(log2_paths).view(np.int64)
    return cards, ints, rng
