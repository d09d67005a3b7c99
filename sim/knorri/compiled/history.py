"""The compiled engine's position history: exact repeat detection since the last irreversible event (private).

A hand's history is ``keys`` (one 64-bit hash per position), ``records`` (one row per
position, layout in ``state``: a full row where a stretch starts, then step rows)
and an optional ``slots`` table that finds a key in one probe.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sim import config
from sim.compiled_bits import U64, popcount
from sim.knorri.compiled import state
from sim.knorri.compiled.moves import move
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS

HISTORY_CAPACITY = MAX_PHASE2_ACTIONS + 1  # positions a hand can remember under the default cap: the start and one
# per action
SLOT_TABLE_SIZE = 4096  # a power of two, over twice HISTORY_CAPACITY: every probe chain stays short
FREE_SLOT = np.int16(HISTORY_CAPACITY)  # a slot entry no stretch of history reaches


@njit(**config.INLINED_KERNEL)
def history_capacity(cap: int = MAX_PHASE2_ACTIONS, repeat: int = DEFAULT_REPEAT) -> int:
    """Rows a hand's history needs under the table's rules: the start and one per action up to the cap, or two
    (the start of phase 2 and a spare row) with the repeat check off, when nothing is ever looked up."""
    return cap + 1 if repeat != 0 else 2


@njit(**config.INLINED_KERNEL)
def slot_table_size(cap: int = MAX_PHASE2_ACTIONS, repeat: int = DEFAULT_REPEAT) -> int:
    """Entries of a hand's slot table: ``SLOT_TABLE_SIZE`` under the first-return rule with a cap of at most 1,500
    (its int16 entries hold an action count), otherwise none (the history is scanned, counting occurrences)."""
    return SLOT_TABLE_SIZE if repeat == DEFAULT_REPEAT and cap <= MAX_PHASE2_ACTIONS else 0


@njit(**config.INLINED_KERNEL)
def meta_word(to_move, opening, needed, run_left, trick_len):
    """A full history row's ``R_META``: the small fields of a position packed (``needed``: for an empty trick,
    the seats holding cards, what the next lead will need)."""
    return (to_move | (opening << state.META_OPENING) | (needed << state.META_NEEDED)
            | (run_left << state.META_RUN_LEFT) | (trick_len << state.META_TRICK_LEN))


@njit(**config.INLINED_KERNEL)
def _position_meta(ints):
    needed = ints[state.I_NEEDED] if ints[state.I_TRICK_LEN] > 0 else ints[state.I_HOLDING]
    return meta_word(ints[state.I_TO_MOVE], ints[state.I_OPENING], needed, ints[state.I_RUN_LEFT],
                     ints[state.I_TRICK_LEN])


@njit(**config.INLINED_KERNEL)
def position_key(cards, ints):
    """A 64-bit hash of a position within a stretch of history: the hands' Zobrist hash and the seat to move.

    Within a stretch the cards in play are fixed, so the hands fix the trick's cards, and the
    cards fix its order (each card beats the one below it, and beating is a strict partial
    order). What else a position holds (the plays a trick needs, the opening run's grouping)
    seldom differs between positions with equal hands, and ``find_position`` confirms every
    key match field by field. One XOR per action keeps the hands' hash, so the key is cheap.
    """
    return cards[state.C_HANDS_HASH] ^ state.MOVER_KEY[ints[state.I_TO_MOVE]]


@njit(**config.INLINED_KERNEL)
def home_slot(slots, key):
    """Where the probe for ``key`` starts in a slot table (a power of two long): the key's top bits."""
    return np.int64(key >> U64(64 - trailing_zeros(U64(slots.shape[0]))))


@njit(**config.INLINED_KERNEL)
def write_position_row(cards, ints, records, row):
    """The current position as a full history row."""
    write_row(cards, ints[state.I_N_SEATS], records, row, cards[state.C_TRICK_LO], cards[state.C_TRICK_HI],
              _position_meta(ints))


@njit(**config.INLINED_KERNEL)
def write_row(cards, n_seats, records, row, trick_lo, trick_hi, meta):
    """A full history row: every seat's hand from ``cards``, the trick words and the meta word."""
    for s in range(n_seats):  # records[row, ...] rather than a row view: a view costs a refcount
        records[row, s] = cards[state.C_HAND + s]
    records[row, state.R_TRICK_LO] = trick_lo
    records[row, state.R_TRICK_HI] = trick_hi
    records[row, state.R_META] = U64(meta)


@njit(**config.INLINED_KERNEL)
def _load_row(cards, ints, records, row):
    """Set the live position to full history row ``row`` (the hands hash and a stale I_NEEDED are left alone)."""
    for s in range(ints[state.I_N_SEATS]):
        cards[state.C_HAND + s] = records[row, s]
    cards[state.C_TRICK_LO] = records[row, state.R_TRICK_LO]
    cards[state.C_TRICK_HI] = records[row, state.R_TRICK_HI]
    meta = np.int64(records[row, state.R_META])
    ints[state.I_TO_MOVE] = meta & 7
    ints[state.I_OPENING] = (meta >> state.META_OPENING) & 1
    ints[state.I_NEEDED] = (meta >> state.META_NEEDED) & 15
    ints[state.I_RUN_LEFT] = (meta >> state.META_RUN_LEFT) & 15
    ints[state.I_TRICK_LEN] = meta >> state.META_TRICK_LEN


@njit(**config.INLINED_KERNEL)
def equals_position_row(cards, ints, records, row):
    """Whether full history row ``row`` holds the current position, field by field."""
    if (records[row, state.R_META] != U64(_position_meta(ints))
            or records[row, state.R_TRICK_LO] != cards[state.C_TRICK_LO]
            or records[row, state.R_TRICK_HI] != cards[state.C_TRICK_HI]):
        return False
    for s in range(ints[state.I_N_SEATS]):
        if records[row, s] != cards[state.C_HAND + s]:
            return False
    return True


@njit(**config.STEP_KERNEL)
def is_remembered(cards, ints, records, index):
    """Whether history row ``index`` holds the current position (asked only when its hash key matches).

    A step row's position is rebuilt: the current position is parked in the free row at the
    history's length, the nearest full row at or before ``index`` is loaded into the live rows
    and the logged actions replayed up to ``index`` (none of them irreversible: those start a
    new stretch with a full row), the result compared with the parked position, and the
    current position put back.
    """
    if records[index, state.R_META] & state.STEP_ROW == 0:
        return equals_position_row(cards, ints, records, index)
    spare = ints[state.I_HIST_LEN]
    hands_hash, needed = cards[state.C_HANDS_HASH], ints[state.I_NEEDED]
    write_position_row(cards, ints, records, spare)
    start = index - 1
    while records[start, state.R_META] & state.STEP_ROW:
        start -= 1
    _load_row(cards, ints, records, start)
    for row in range(start + 1, index + 1):
        move(cards, ints, ints[state.I_TO_MOVE], np.int64(records[row, state.R_META] & ~state.STEP_ROW))
    same = equals_position_row(cards, ints, records, spare)
    _load_row(cards, ints, records, spare)
    cards[state.C_HANDS_HASH], ints[state.I_NEEDED] = hands_hash, needed
    return same


@njit(**config.INLINED_KERNEL)
def remember(cards, ints, keys, records, slots, key, slot, action):
    """Remember the current position, reached by ``action``, under ``key`` at the free ``slot`` of ``slots``.

    The first position of a stretch gets a full row; every later one a step row (one word
    instead of a whole position: most positions are never looked at again).
    """
    index = ints[state.I_HIST_LEN]
    keys[index] = key
    if slots.shape[0] > 0:
        slots[slot] = ints[state.I_PHASE2_ACTIONS]  # when the position was reached (see find_position)
    if index == 0:
        ints[state.I_HIST_BASE] = ints[state.I_PHASE2_ACTIONS]
        write_position_row(cards, ints, records, index)
    else:
        records[index, state.R_META] = state.STEP_ROW | U64(action)
    ints[state.I_HIST_LEN] = index + 1


@njit(**config.STEP_KERNEL)
def reset_slots(ints, keys, slots, free):
    """Empty a hand's slot table (every entry ``free``) and enter the positions it already remembers."""
    slots[:] = free
    if slots.shape[0] == 0:
        return
    mask = slots.shape[0] - 1
    base = ints[state.I_HIST_BASE]
    for index in range(ints[state.I_HIST_LEN]):
        slot = home_slot(slots, keys[index])
        while 0 <= slots[slot] - base < index:
            slot = (slot + 1) & mask
        slots[slot] = base + index


@njit(**config.INLINED_KERNEL)
def find_position(cards, ints, keys, records, slots, key):
    """When this position was first reached since the last irreversible event (-1 if not), and its free slot.

    A hash match is confirmed field by field, so a hash collision can never end a hand. With a
    ``slots`` table (open addressing on the key) the search is a probe, and where it stops is
    the slot ``remember`` fills; without one (an empty array) it scans the history. A slot
    holds the action count at which its position was reached, so one written before the
    current stretch began, or past its length, counts as free: clearing the history only
    moves its base and resets its length, and the table never fills up with older stretches.
    A slot written in the current stretch is never overwritten before the stretch ends, so
    probe chains stay intact. The caller fills ``slots`` once per hand with a value no
    stretch reaches (``HISTORY_CAPACITY``).
    """
    length = ints[state.I_HIST_LEN]
    if slots.shape[0] > 0 and ints[state.I_CAP] < HISTORY_CAPACITY:  # a table's int16 entries hold counts to 1,501
        mask = slots.shape[0] - 1
        base = ints[state.I_HIST_BASE]
        slot = home_slot(slots, key)
        while True:
            seen = np.int64(slots[slot])
            index = seen - base
            if U64(index) >= U64(length):  # a negative index too: a position of an earlier stretch
                return -1, slot
            if keys[index] == key and is_remembered(cards, ints, records, index):
                return seen, slot
            slot = (slot + 1) & mask
    for index in range(length):
        if keys[index] == key and is_remembered(cards, ints, records, index):
            return ints[state.I_HIST_BASE] + index, np.int64(0)
    return -1, np.int64(0)


@njit(**config.STEP_KERNEL)
def count_position(cards, ints, keys, records, key):
    """(the phase-2 action count at the latest earlier occurrence of the current position since the last
    irreversible event, or -1; how many times it occurred there): a scan of the history, every key match
    confirmed field by field, for a repeat rule that counts past the first return."""
    latest, count = np.int64(-1), np.int64(0)
    for index in range(ints[state.I_HIST_LEN]):
        if keys[index] == key and is_remembered(cards, ints, records, index):
            latest = np.int64(index)
            count += 1
    return (ints[state.I_HIST_BASE] + latest if latest >= 0 else np.int64(-1)), count


@njit(**config.INLINED_KERNEL)
def _legal_count(cards, ints):
    """How many legal actions the seat to move has at an ordinary phase-2 turn (every turn inside a loop)."""
    hand = cards[state.C_HAND + ints[state.I_TO_MOVE]]
    if ints[state.I_TRICK_LEN] == 0:
        return popcount(hand)
    return popcount(hand & state.BEATERS[state.top_card(cards, ints)]) + 1


@njit(**config.STEP_KERNEL)
def record_cycle(cards, ints, records, first_seen):
    """Write the anatomy of the loop the last action closed into ``ints`` (``I_CYCLE`` .. ``I_CYCLE_SEATS``).

    The current position (not yet remembered) is the one reached at ``first_seen``; the loop's
    decisions are those taken at the positions remembered from there on. They are rebuilt from
    the current position by replaying the logged actions (a full row is loaded as it is), the
    seat to move and its legal actions read at each, and the current position put back, as
    ``is_remembered`` does. No action of a loop is irreversible, so every one is an ordinary turn.
    """
    base = ints[state.I_HIST_BASE]
    start = first_seen - base
    stop = ints[state.I_PHASE2_ACTIONS] - base
    spare = ints[state.I_HIST_LEN]
    hands_hash, needed = cards[state.C_HANDS_HASH], ints[state.I_NEEDED]
    write_position_row(cards, ints, records, spare)
    choices, seats, log2_paths = np.int64(0), np.int64(0), 0.0
    for index in range(start, stop):
        if index > start:
            meta = records[index, state.R_META]
            if meta & state.STEP_ROW:
                move(cards, ints, ints[state.I_TO_MOVE], np.int64(meta & ~state.STEP_ROW))
            else:
                _load_row(cards, ints, records, index)
        legal = _legal_count(cards, ints)
        choices += np.int64(legal > 1)
        log2_paths += math.log2(legal)
        seats |= np.int64(1) << ints[state.I_TO_MOVE]
    _load_row(cards, ints, records, spare)
    cards[state.C_HANDS_HASH], ints[state.I_NEEDED] = hands_hash, needed
    ints[state.I_CYCLE] = stop - start
    ints[state.I_CYCLE_START] = first_seen
    ints[state.I_CYCLE_CHOICES] = choices
    ints[state.I_CYCLE_LOG2] = np.float64(log2_paths).view(np.int64)
    ints[state.I_CYCLE_SEATS] = seats
