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
from sim.knorri.compiled.state import (
    C_CANDIDATES,
    C_HAND,
    C_HANDS_HASH,
    C_TABLE,
    C_TRICK_HI,
    C_TRICK_LO,
    I_CRC,
    I_CYCLE,
    I_DECISIONS,
    I_END_REASON,
    I_FIRST_SEAT,
    I_HIST_BASE,
    I_HIST_LEN,
    I_HOLDING,
    I_LAST_CAPTURER,
    I_LOSER,
    I_N_SEATS,
    I_NEEDED,
    I_OPENING,
    I_PHASE,
    I_PHASE2_ACTIONS,
    I_PILE,
    I_REDEALS,
    I_RUN_LEFT,
    I_SCORE,
    I_TO_MOVE,
    I_TRICK_LEN,
    I_TRICKS_COMPLETED,
    I_TURN,
    I_TURNED,
    META_NEEDED,
    META_OPENING,
    META_RUN_LEFT,
    META_TRICK_LEN,
    MOVER_KEY,
    NUM_CARD_FIELDS,
    NUM_INT_FIELDS,
    NUM_RNG,
    R_META,
    R_TRICK_HI,
    R_TRICK_LO,
    RECORD_SIZE,
    RNG_DEAL,
    ZOBRIST,
)
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


_MOVER_KEYS = MOVER_KEY.tolist()
_ZOBRIST_ROWS = ZOBRIST.tolist()  # Python ints: indexing the NumPy table per card is what made encoding slow


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
    meta = (to_move | (int(opening) << META_OPENING) | (needed << META_NEEDED) | (run_left << META_RUN_LEFT)
            | (length << META_TRICK_LEN))
    record = [0] * RECORD_SIZE
    record[:len(hands)] = hands
    record[R_TRICK_LO], record[R_TRICK_HI], record[R_META] = lo, hi, meta
    return tuple(record), _hands_hash(tuple(hands)) ^ _MOVER_KEYS[to_move]


def encode_hand(hand: KnorriHand, history_capacity: int) -> tuple[np.ndarray, ...]:
    """One reference hand as the compiled engine's rows: cards, ints, deck, rng, keys, records.

    The history keeps the positions the hand remembers since its last irreversible event,
    with room for at least ``history_capacity`` (and two more than it holds).
    """
    n = hand.n_seats
    cards = np.zeros(NUM_CARD_FIELDS, dtype=np.uint64)
    ints = np.zeros(NUM_INT_FIELDS, dtype=np.int64)
    rng = np.zeros(NUM_RNG, dtype=np.uint64)
    source = getattr(hand._redeal_source, "__self__", None)
    if isinstance(source, SplitMix64):
        rng[RNG_DEAL] = source.state
    elif hand.phase == 1 and not hand.done:
        raise GameInputError("a phase-1 hand can be encoded only if it was dealt by KnorriHand.from_seed "
                             "(its redeals must come from a splitmix64 stream)")
    for seat in range(n):
        cards[C_HAND + seat] = hand.hands[seat]
    cards[C_TABLE] = hand.table
    cards[C_CANDIDATES] = hand._choice_candidates if hand.phase == 1 and not hand.done else 0
    lo, hi, length, run_left = _pack_trick(hand.trick)
    cards[C_TRICK_LO], cards[C_TRICK_HI] = lo, hi
    cards[C_HANDS_HASH] = _hands_hash(tuple(hand.hands))
    ints[I_N_SEATS], ints[I_FIRST_SEAT], ints[I_PHASE] = n, hand.first_seat, hand.phase
    ints[I_TO_MOVE] = hand.to_move
    ints[I_TURN] = hand._turn
    ints[I_TURNED] = hand._turned if cards[C_CANDIDATES] else -1
    ints[I_LAST_CAPTURER] = -1 if hand._last_capturer is None else hand._last_capturer
    ints[I_REDEALS] = hand.redeals
    ints[I_TRICK_LEN], ints[I_RUN_LEFT] = length, run_left
    ints[I_NEEDED] = hand.trick_needed
    ints[I_OPENING] = int(hand.opening)
    ints[I_HOLDING] = sum(1 for h in hand.hands if h) if hand.phase == 2 else 0
    ints[I_PHASE2_ACTIONS] = hand.phase2_actions
    ints[I_DECISIONS] = len(hand.decisions)
    ints[I_CRC] = zlib.crc32(bytes(hand.decisions)) ^ CRC_START
    ints[I_TRICKS_COMPLETED] = hand.tricks_completed
    ints[I_END_REASON] = -1 if hand.end_reason is None else END_REASONS.index(hand.end_reason.value)
    ints[I_LOSER] = -1 if hand.loser is None else hand.loser
    ints[I_CYCLE] = -1 if hand.cycle_length is None else hand.cycle_length
    ints[I_SCORE:I_SCORE + n] = hand.scores
    if hand.phase == 2:
        ints[I_PILE:I_PILE + n] = hand.piles_after_phase1
    entries = sorted(hand._history.items(), key=lambda item: item[1])
    capacity = max(history_capacity, len(entries) + 2)
    keys = np.zeros(capacity, dtype=np.uint64)
    records = np.zeros((capacity, RECORD_SIZE), dtype=np.uint64)
    for index, ((hands, trick, needed, to_move, opening), seen) in enumerate(entries):
        if seen != entries[0][1] + index:
            raise GameInputError("the hand's position history is not one unbroken stretch of actions")
        records[index], keys[index] = _record(hands, trick, needed, to_move, opening)
    ints[I_HIST_LEN] = len(entries)
    ints[I_HIST_BASE] = entries[0][1] if entries else hand.phase2_actions
    deck = np.asarray(hand.deck, dtype=np.int64)
    return cards, ints, deck, rng, keys[:capacity], records[:capacity]
