"""The compiled Knorri engine: numba kernels over one hand's state rows (private; use ``batch.py``).

Each kernel takes one hand as its rows (layout in ``fast_state``): ``cards`` (uint64
card sets), ``ints`` (int64 scalars), ``deck`` (the deal), ``rng`` (splitmix64
states) and the position history ``keys``/``records`` kept since the last
irreversible event. The kernels follow ``reference.KnorriHand`` step for step,
so both engines draw the same random numbers and reach the same results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.knorri import fast_state
from sim.knorri.encoding import MAX_PHASE2_ACTIONS, PICK_UP, RUN_BASE, STOCK_SIZE, TABLE_SIZE
from sim.knorri.fast_state import (
    BEATERS,
    C_CANDIDATES,
    C_HAND,
    C_HANDS_HASH,
    C_TABLE,
    C_TRICK_HI,
    C_TRICK_LO,
    CRC_START,
    END_CAP,
    END_OUT,
    END_REPEAT,
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
    IS_DIAMOND,
    LOWER_IN_SUIT,
    META_KEY,
    ONE,
    R_META,
    R_TRICK_HI,
    R_TRICK_LO,
    RNG_DEAL,
    SPADES_AND_HEARTS,
    STEP_ROW,
    TRICK_KEY,
    U64,
    ZOBRIST,
    below,
    club_run_length,
    crc_byte,
    lowest_card,
    mix64,
    plays_in_trick,
    popcount,
    top_card,
)

# Kernels here inline fast_state's helpers: drop this module's numba cache when that file changes.
config.drop_stale_cache(__file__, [fast_state.__file__, config.__file__])

SIX_BITS = U64(63)


# ----- phase 1 ----------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _deal(cards, ints, deck, rng):
    """Shuffle a new deck from the hand's stream and lay out the table (the protocol's Fisher-Yates)."""
    for i in range(52):
        deck[i] = i
    for i in range(51, 0, -1):
        j = below(rng, RNG_DEAL, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for i in range(cards.shape[0]):
        cards[i] = U64(0)
    table = U64(0)
    for i in range(TABLE_SIZE):
        table |= ONE << U64(deck[i])
    cards[C_TABLE] = table
    ints[I_PHASE] = 1
    ints[I_TURN] = 0
    ints[I_TURNED] = -1
    ints[I_LAST_CAPTURER] = -1
    ints[I_TRICK_LEN] = 0
    ints[I_RUN_LEFT] = 0
    ints[I_OPENING] = 0
    ints[I_HIST_LEN] = 0
    ints[I_TO_MOVE] = ints[I_FIRST_SEAT]


@njit(**config.STEP_KERNEL)
def init_hand(cards, ints, deck, rng, keys, records, slots, n_seats, first_seat):
    """Start a hand: ``rng`` must already hold its streams; plays phase 1 up to the first choice."""
    for i in range(ints.shape[0]):
        ints[i] = 0
    ints[I_N_SEATS] = n_seats
    ints[I_FIRST_SEAT] = first_seat
    ints[I_CRC] = CRC_START
    ints[I_END_REASON] = -1
    ints[I_LOSER] = -1
    ints[I_CYCLE] = -1
    _deal(cards, ints, deck, rng)
    _run_phase1(cards, ints, deck, rng, keys, records, slots)


@njit(**config.INLINED_KERNEL)
def _capture(cards, ints, seat, turned, taken):
    cards[C_TABLE] &= ~(ONE << U64(taken))
    cards[C_HAND + seat] |= (ONE << U64(turned)) | (ONE << U64(taken))
    ints[I_LAST_CAPTURER] = seat


@njit(**config.STEP_KERNEL)
def _run_phase1(cards, ints, deck, rng, keys, records, slots):
    """Turn stock cards and make the forced captures until a seat must choose or phase 2 begins."""
    n = ints[I_N_SEATS]
    while True:
        while ints[I_TURN] < STOCK_SIZE:
            turn = ints[I_TURN]
            seat = (ints[I_FIRST_SEAT] + turn) % n
            turned = deck[TABLE_SIZE + turn]
            ints[I_TURN] = turn + 1
            table = cards[C_TABLE]
            candidates = table & LOWER_IN_SUIT[turned]
            if candidates == 0 and IS_DIAMOND[turned]:
                candidates = table & SPADES_AND_HEARTS
            if candidates == 0:
                cards[C_TABLE] = table | (ONE << U64(turned))
            elif candidates & (candidates - ONE) == 0:
                _capture(cards, ints, seat, turned, lowest_card(candidates))
            else:
                ints[I_TO_MOVE] = seat
                ints[I_TURNED] = turned
                cards[C_CANDIDATES] = candidates
                return
        if ints[I_LAST_CAPTURER] >= 0:
            break
        ints[I_REDEALS] += 1
        _deal(cards, ints, deck, rng)
    cards[C_HAND + ints[I_LAST_CAPTURER]] |= cards[C_TABLE]
    cards[C_TABLE] = U64(0)
    _start_phase2(cards, ints, keys, records, slots)


# ----- phase 2 ----------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _start_phase2(cards, ints, keys, records, slots):
    n = ints[I_N_SEATS]
    ints[I_PHASE] = 2
    holding = 0
    for s in range(n):
        if cards[C_HAND + s] != 0:
            holding += 1
    ints[I_HOLDING] = holding
    zobrist = U64(0)
    opener = 0
    for s in range(n):
        hand = cards[C_HAND + s]
        ints[I_PILE + s] = popcount(hand)
        if hand == 0:
            ints[I_SCORE + s] = holding
        if hand & ONE:
            opener = s
        rest = hand
        while rest:
            zobrist ^= ZOBRIST[s, lowest_card(rest)]
            rest &= rest - ONE
    cards[C_HANDS_HASH] = zobrist
    if holding == 1:
        _finish(ints, END_OUT, _next_holding(cards, ints, 0))
        return
    ints[I_TO_MOVE] = opener
    ints[I_OPENING] = 1
    ints[I_HIST_LEN] = 0
    key = _position_key(cards, ints)
    home = np.int64(key & U64(slots.shape[0] - 1)) if slots.shape[0] > 0 else np.int64(0)
    _remember(cards, ints, keys, records, slots, key, home, -1)  # with no history, the key's own slot is free


@njit(**config.INLINED_KERNEL)
def _next_holding(cards, ints, seat):
    """The first seat after ``seat`` holding cards (``seat`` itself if nobody else does)."""
    n = ints[I_N_SEATS]
    candidate = seat
    for _ in range(n - 1):  # counting round without %: a division per step is measurable here
        candidate += 1
        if candidate == n:
            candidate = 0
        if cards[C_HAND + candidate] != 0:
            return candidate
    return seat


@njit(**config.INLINED_KERNEL)
def _append_to_trick(cards, ints, card):
    index = ints[I_TRICK_LEN]
    value = U64(card + 1)
    if index < 10:
        cards[C_TRICK_LO] |= value << U64(6 * index)
    else:
        cards[C_TRICK_HI] |= value << U64(6 * (index - 10))
    ints[I_TRICK_LEN] = index + 1


@njit(**config.INLINED_KERNEL)
def _pick_up(cards, ints, seat):
    lo = cards[C_TRICK_LO]
    hi = cards[C_TRICK_HI]
    card = int(lo & SIX_BITS) - 1
    cards[C_TRICK_LO] = (lo >> U64(6)) | ((hi & SIX_BITS) << U64(54))
    cards[C_TRICK_HI] = hi >> U64(6)
    ints[I_TRICK_LEN] -= 1
    run = ints[I_RUN_LEFT]
    # One card left of the opening run is just a one-card play: store it as such, so equal
    # positions always look the same.
    ints[I_RUN_LEFT] = run - 1 if run > 2 else 0
    cards[C_HAND + seat] |= ONE << U64(card)
    cards[C_HANDS_HASH] ^= ZOBRIST[seat, card]
    ints[I_TO_MOVE] = _next_holding(cards, ints, seat)


@njit(**config.INLINED_KERNEL)
def _play(cards, ints, seat, action):
    if ints[I_TRICK_LEN] == 0:
        ints[I_NEEDED] = ints[I_HOLDING]
    if ints[I_OPENING] == 1:
        ints[I_OPENING] = 0
        ints[I_HIST_LEN] = 0  # the opening can never be undone
        length = 1 if action == 0 else action - RUN_BASE + 2
        ints[I_RUN_LEFT] = length if length > 1 else 0
        played = U64(0)
        for card in range(length):
            _append_to_trick(cards, ints, card)
            played |= ONE << U64(card)
            cards[C_HANDS_HASH] ^= ZOBRIST[seat, card]
    else:
        _append_to_trick(cards, ints, action)
        played = ONE << U64(action)
        cards[C_HANDS_HASH] ^= ZOBRIST[seat, action]
    hand = cards[C_HAND + seat] & ~played
    cards[C_HAND + seat] = hand
    if hand == 0:
        ints[I_HOLDING] -= 1
        ints[I_SCORE + seat] = ints[I_HOLDING]
        ints[I_HIST_LEN] = 0  # a seat out never comes back
    complete = plays_in_trick(ints) >= ints[I_NEEDED]
    if complete:
        ints[I_TRICKS_COMPLETED] += 1
        cards[C_TRICK_LO] = U64(0)
        cards[C_TRICK_HI] = U64(0)
        ints[I_TRICK_LEN] = 0
        ints[I_RUN_LEFT] = 0
        ints[I_HIST_LEN] = 0  # cards set aside never come back
    if ints[I_HOLDING] == 1:
        _finish(ints, END_OUT, _next_holding(cards, ints, seat))
    elif complete and hand != 0:
        ints[I_TO_MOVE] = seat
    else:
        ints[I_TO_MOVE] = _next_holding(cards, ints, seat)


@njit(**config.INLINED_KERNEL)
def _move(cards, ints, seat, action):
    """The seat plays ``action`` or picks up: a phase-2 action without the history (a replay repeats only this)."""
    if action == PICK_UP:
        _pick_up(cards, ints, seat)
    else:
        _play(cards, ints, seat, action)


@njit(**config.INLINED_KERNEL)
def _phase2_action(cards, ints, keys, records, slots, action):
    _move(cards, ints, ints[I_TO_MOVE], action)
    ints[I_PHASE2_ACTIONS] += 1
    if ints[I_END_REASON] >= 0:
        return
    key = _position_key(cards, ints)
    first_seen, slot = _find_position(cards, ints, keys, records, slots, key)
    if first_seen >= 0:
        ints[I_CYCLE] = ints[I_PHASE2_ACTIONS] - first_seen
        _cut_off(cards, ints, END_REPEAT)
    elif ints[I_PHASE2_ACTIONS] >= MAX_PHASE2_ACTIONS:
        _cut_off(cards, ints, END_CAP)
    else:
        _remember(cards, ints, keys, records, slots, key, slot, action)


@njit(**config.STEP_KERNEL)
def _cut_off(cards, ints, reason):
    """Rank the seats still holding: fewest cards first, ties in turn order from the seat to move."""
    n = ints[I_N_SEATS]
    start = ints[I_TO_MOVE]
    holding = 0
    for s in range(n):
        if cards[C_HAND + s] != 0:
            holding += 1
    ranked = 0  # bit s: seat s already placed
    for place in range(holding):
        best_seat, best_count = -1, 1 << 30
        for step in range(n):  # fewest cards first; ties go to the earlier seat in turn order from ``start``
            seat = (start + step) % n
            count = popcount(cards[C_HAND + seat])
            if count > 0 and not ranked >> seat & 1 and count < best_count:
                best_seat, best_count = seat, count
        ranked |= 1 << best_seat
        if place < holding - 1:
            ints[I_SCORE + best_seat] = holding - 1 - place
        else:
            _finish(ints, reason, best_seat)


@njit(**config.STEP_KERNEL)
def _finish(ints, reason, loser):
    total = 0
    for s in range(ints[I_N_SEATS]):
        if s != loser:
            total += ints[I_SCORE + s]
    ints[I_SCORE + loser] = -total
    ints[I_LOSER] = loser
    ints[I_END_REASON] = reason
    ints[I_TO_MOVE] = -1


# ----- positions ---------------------------------------------------------------------------------
# The small fields of a position, packed into one word (history rows and hash keys).
META_OPENING, META_NEEDED, META_RUN_LEFT, META_TRICK_LEN = 3, 4, 8, 12  # bit offsets; the seat to move is bits 0-2


@njit(**config.INLINED_KERNEL)
def _position_meta(ints):
    needed = ints[I_NEEDED] if ints[I_TRICK_LEN] > 0 else ints[I_HOLDING]
    return (ints[I_TO_MOVE] | (ints[I_OPENING] << META_OPENING) | (needed << META_NEEDED)
            | (ints[I_RUN_LEFT] << META_RUN_LEFT) | (ints[I_TRICK_LEN] << META_TRICK_LEN))


@njit(**config.INLINED_KERNEL)
def _position_key(cards, ints):
    """A 64-bit hash of the full position (hands, trick with its grouping, plays needed, seat, opening)."""
    mixed = cards[C_TRICK_LO] ^ (cards[C_TRICK_HI] * TRICK_KEY) ^ (U64(_position_meta(ints)) * META_KEY)
    return cards[C_HANDS_HASH] ^ mix64(mixed)


@njit(**config.INLINED_KERNEL)
def _write_row(cards, ints, records, row):
    """The current position as a full history row."""
    for s in range(ints[I_N_SEATS]):  # records[row, ...] rather than a row view: a view costs a refcount
        records[row, s] = cards[C_HAND + s]
    records[row, R_TRICK_LO] = cards[C_TRICK_LO]
    records[row, R_TRICK_HI] = cards[C_TRICK_HI]
    records[row, R_META] = U64(_position_meta(ints))


@njit(**config.INLINED_KERNEL)
def _load_row(cards, ints, records, row):
    """Set the live position to full history row ``row`` (the hands hash and a stale I_NEEDED are left alone)."""
    for s in range(ints[I_N_SEATS]):
        cards[C_HAND + s] = records[row, s]
    cards[C_TRICK_LO] = records[row, R_TRICK_LO]
    cards[C_TRICK_HI] = records[row, R_TRICK_HI]
    meta = np.int64(records[row, R_META])
    ints[I_TO_MOVE] = meta & 7
    ints[I_OPENING] = (meta >> META_OPENING) & 1
    ints[I_NEEDED] = (meta >> META_NEEDED) & 15
    ints[I_RUN_LEFT] = (meta >> META_RUN_LEFT) & 15
    ints[I_TRICK_LEN] = meta >> META_TRICK_LEN


@njit(**config.INLINED_KERNEL)
def _equals_row(cards, ints, records, row):
    """Whether full history row ``row`` holds the current position, field by field."""
    if (records[row, R_META] != U64(_position_meta(ints)) or records[row, R_TRICK_LO] != cards[C_TRICK_LO]
            or records[row, R_TRICK_HI] != cards[C_TRICK_HI]):
        return False
    for s in range(ints[I_N_SEATS]):
        if records[row, s] != cards[C_HAND + s]:
            return False
    return True


@njit(**config.STEP_KERNEL)
def _is_remembered(cards, ints, records, index):
    """Whether history row ``index`` holds the current position (asked only when its hash key matches).

    A step row's position is rebuilt: the current position is parked in the free row at the
    history's length, the nearest full row at or before ``index`` is loaded into the live rows
    and the logged actions replayed up to ``index`` (none of them irreversible: those start a
    new stretch with a full row), the result compared with the parked position, and the
    current position put back.
    """
    if records[index, R_META] & STEP_ROW == 0:
        return _equals_row(cards, ints, records, index)
    spare = ints[I_HIST_LEN]
    hands_hash, needed = cards[C_HANDS_HASH], ints[I_NEEDED]
    _write_row(cards, ints, records, spare)
    start = index - 1
    while records[start, R_META] & STEP_ROW:
        start -= 1
    _load_row(cards, ints, records, start)
    for row in range(start + 1, index + 1):
        _move(cards, ints, ints[I_TO_MOVE], np.int64(records[row, R_META] & ~STEP_ROW))
    same = _equals_row(cards, ints, records, spare)
    _load_row(cards, ints, records, spare)
    cards[C_HANDS_HASH], ints[I_NEEDED] = hands_hash, needed
    return same


@njit(**config.INLINED_KERNEL)
def _remember(cards, ints, keys, records, slots, key, slot, action):
    """Remember the current position, reached by ``action``, under ``key`` at the free ``slot`` of ``slots``.

    The first position of a stretch gets a full row; every later one a step row (one word
    instead of a whole position: most positions are never looked at again).
    """
    index = ints[I_HIST_LEN]
    keys[index] = key
    if slots.shape[0] > 0:
        slots[slot] = index
    if index == 0:
        ints[I_HIST_BASE] = ints[I_PHASE2_ACTIONS]
        _write_row(cards, ints, records, index)
    else:
        records[index, R_META] = STEP_ROW | U64(action)
    ints[I_HIST_LEN] = index + 1


@njit(**config.STEP_KERNEL)
def reset_slots(ints, keys, slots, free):
    """Empty a hand's slot table (every entry ``free``) and enter the positions it already remembers."""
    slots[:] = free
    if slots.shape[0] == 0:
        return
    mask = slots.shape[0] - 1
    for index in range(ints[I_HIST_LEN]):
        slot = np.int64(keys[index] & U64(mask))
        while slots[slot] < index:
            slot = (slot + 1) & mask
        slots[slot] = index


@njit(**config.INLINED_KERNEL)
def _find_position(cards, ints, keys, records, slots, key):
    """When this position was first reached since the last irreversible event (-1 if not), and its free slot.

    A hash match is confirmed field by field, so a hash collision can never end a hand. With a
    ``slots`` table (open addressing on the key, holding history indices) the search is a
    probe, and where it stops is the slot ``_remember`` fills; without one (an empty array)
    it scans the history. Clearing the history only resets its length: a slot holding an
    index at or past the length counts as free, and a slot written in the current stretch is
    never overwritten before the next clear, so probe chains stay intact. The caller fills
    ``slots`` with a large value once per hand.
    """
    length = ints[I_HIST_LEN]
    if slots.shape[0] > 0:
        mask = slots.shape[0] - 1
        slot = np.int64(key & U64(mask))
        while True:
            index = slots[slot]
            if index >= length:
                return -1, slot
            if keys[index] == key and _is_remembered(cards, ints, records, index):
                return ints[I_HIST_BASE] + index, slot
            slot = (slot + 1) & mask
    for index in range(length):
        if keys[index] == key and _is_remembered(cards, ints, records, index):
            return ints[I_HIST_BASE] + index, np.int64(0)
    return -1, np.int64(0)


# ----- the verbs every driver uses ----------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def legal_actions(cards, ints, out):
    """Write the legal ids for the seat to move, ascending, into ``out``; return how many (0 once done)."""
    if ints[I_END_REASON] >= 0:
        return 0
    if ints[I_PHASE] == 1:
        rest = cards[C_CANDIDATES]
        count = 0
        while rest:
            out[count] = lowest_card(rest)
            count += 1
            rest &= rest - ONE
        return count
    hand = cards[C_HAND + ints[I_TO_MOVE]]
    if ints[I_OPENING] == 1:
        out[0] = 0
        count = 1
        for length in range(2, club_run_length(hand) + 1):
            out[count] = RUN_BASE + length - 2
            count += 1
        return count
    rest, pick_up = phase2_choices(cards, ints)
    count = 0
    while rest:
        out[count] = lowest_card(rest)
        count += 1
        rest &= rest - ONE
    if pick_up:
        out[count] = PICK_UP
        count += 1
    return count


@njit(**config.INLINED_KERNEL)
def phase2_choices(cards, ints):
    """An ordinary phase-2 turn (after the opening): the cards the seat to move may play, and 1 if it may pick up.

    In id order the legal actions are those cards ascending, then ``PICK_UP``: the list
    ``legal_actions`` writes, here without writing it.
    """
    hand = cards[C_HAND + ints[I_TO_MOVE]]
    if ints[I_TRICK_LEN] == 0:
        return hand, 0
    return hand & BEATERS[top_card(cards, ints)], 1


@njit(**config.INLINED_KERNEL)
def apply_action(cards, ints, deck, rng, keys, records, slots, action):
    """Take a legal ``action`` for the seat to move (the caller has checked it) and play on to the next decision."""
    ints[I_DECISIONS] += 1
    ints[I_CRC] = crc_byte(ints[I_CRC], action)
    if ints[I_PHASE] == 1:
        _capture(cards, ints, ints[I_TO_MOVE], ints[I_TURNED], action)
        cards[C_CANDIDATES] = U64(0)
        ints[I_TURNED] = -1
        _run_phase1(cards, ints, deck, rng, keys, records, slots)
    else:
        _phase2_action(cards, ints, keys, records, slots, action)


@njit(**config.STEP_KERNEL)
def is_legal(cards, ints, action, scratch):
    """Whether ``action`` is legal for the seat to move (``scratch`` holds at least 65 ids)."""
    count = legal_actions(cards, ints, scratch)
    for i in range(count):
        if scratch[i] == action:
            return True
    return False
