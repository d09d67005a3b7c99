"""The compiled Knorri engine: numba kernels over one hand's state rows (private; use ``batch``).

Each kernel takes one hand as its rows (layout in ``state``): ``cards`` (uint64
card sets), ``ints`` (int64 scalars), ``deck`` (the deal), ``rng`` (splitmix64
states) and the position history ``keys``/``records``/``slots`` kept since the last
irreversible event. The kernels follow ``reference.KnorriHand`` step for step,
so both engines draw the same random numbers and reach the same results.

This module holds phase 1 and the verbs every driver uses (legal actions, apply an
action); the phase-2 moves are in ``moves`` and the history in ``history``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import (
    CRC_START,
    GAMMA,
    ONE,
    U64,
    below,
    crc_byte,
    lowest_card,
    mix64,
    nth_card,
    popcount,
    remainder_small,
)
from sim.knorri.compiled.history import (
    FREE_SLOT,
    count_position,
    find_position,
    home_slot,
    position_key,
    record_cycle,
    remember,
    reset_slots,
)
from sim.knorri.compiled.moves import cut_off, finish, move, next_holding
from sim.knorri.compiled.state import (
    BEATERS,
    C_CANDIDATES,
    C_HAND,
    C_HANDS_HASH,
    C_TABLE,
    END_CAP,
    END_OUT,
    END_REPEAT,
    FALLBACK_TARGETS,
    I_CAP,
    I_CRC,
    I_CUT_MOVER,
    I_CYCLE,
    I_CYCLE_CHOICES,
    I_CYCLE_LOG2,
    I_CYCLE_SEATS,
    I_CYCLE_START,
    I_DECISIONS,
    I_END_REASON,
    I_FIRST_SEAT,
    I_HIST_LEN,
    I_HOLDING,
    I_LAST_CAPTURER,
    I_LOSER,
    I_N_SEATS,
    I_OPENING,
    I_PHASE,
    I_PHASE2_ACTIONS,
    I_PILE,
    I_REDEALS,
    I_REPEAT,
    I_RUN_LEFT,
    I_SCORE,
    I_TO_MOVE,
    I_TRICK_LEN,
    I_TURN,
    I_TURNED,
    LOWER_IN_SUIT,
    NUM_CARD_FIELDS,
    RNG_DEAL,
    RNG_SEAT,
    ZOBRIST,
    club_run_length,
    top_card,
)
from sim.knorri.encoding import PICK_UP, RUN_BASE, STOCK_SIZE, TABLE_SIZE

# ----- phase 1 ----------------------------------------------------------------------------------
DEAL_WORDS = 7  # words of the cards row that hold the deal's 51 swap positions, a byte each
assert NUM_CARD_FIELDS >= DEAL_WORDS
@njit(**config.STEP_KERNEL)
def _deal(cards, ints, deck, rng):
    """Shuffle a new deck from the hand's stream and lay out the table (the protocol's Fisher-Yates).

    The 51 swap positions ``next() % (i + 1)`` are drawn first (into ``deck``, where LLVM makes
    vector code of the draws: the remainder by multiplies, ``remainder_small``), packed a byte
    each into the ``cards`` row (cleared below), and the swaps made after. Drawn between the
    swaps, each draw's position waited on the swaps' stores.
    """
    state = rng[RNG_DEAL]
    for i in range(51, 0, -1):
        state += GAMMA
        deck[U64(i)] = remainder_small(mix64(state), i + 1)  # ``below``'s draw, the same number
    rng[RNG_DEAL] = state
    for w in range(DEAL_WORDS):  # position i's draw in byte i % 8 of word i // 8
        word = U64(0)
        for b in range(8):
            word |= U64(deck[U64(min(8 * w + b, 51))]) << U64(8 * b)
        cards[w] = word
    for i in range(52):
        deck[i] = i
    for i in range(51, 0, -1):
        j = (cards[U64(i >> 3)] >> U64(8 * (i & 7))) & U64(0xFF)
        deck[U64(i)], deck[j] = deck[j], deck[U64(i)]
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
def init_hand(cards, ints, deck, rng, keys, records, slots, n_seats, first_seat, cap, repeat):
    """Start a hand under the table's cut-off rules ``cap`` and ``repeat`` (kept in its ``ints`` row, where every
    step reads them): ``rng`` must already hold its streams; plays phase 1 up to the first choice. ``keys`` and
    ``records`` hold ``history.history_capacity(cap, repeat)`` rows, ``slots`` is ``slot_table_size`` long."""
    _start(cards, ints, deck, rng, n_seats, first_seat, cap, repeat)
    _run_phase1(cards, ints, deck, rng, keys, records, slots, False, U64(0))


@njit(**config.STEP_KERNEL)
def init_hand_uniform(cards, ints, deck, rng, keys, records, slots, n_seats, first_seat, cap, repeat, streams):
    """``init_hand``, then the whole of phase 1 with every seat choosing its capture uniformly: from its own stream
    (``streams`` all ones: ``policies.RANDOM``) or the hand's (zero: ``PROTOCOL``), the same draws and
    choices as those policies make through ``apply_action``."""
    _start(cards, ints, deck, rng, n_seats, first_seat, cap, repeat)
    _run_phase1(cards, ints, deck, rng, keys, records, slots, True, streams)


@njit(**config.INLINED_KERNEL)
def _start(cards, ints, deck, rng, n_seats, first_seat, cap, repeat):
    for i in range(ints.shape[0]):
        ints[i] = 0
    ints[I_N_SEATS] = n_seats
    ints[I_FIRST_SEAT] = first_seat
    ints[I_CAP] = cap
    ints[I_REPEAT] = repeat
    ints[I_CRC] = CRC_START
    _no_end(ints)
    _deal(cards, ints, deck, rng)


@njit(**config.INLINED_KERNEL)
def _no_end(ints):
    """A hand still playing: no end reason, loser, loop anatomy or cut-off seat."""
    ints[I_END_REASON] = -1
    ints[I_LOSER] = -1
    ints[I_CYCLE] = -1
    ints[I_CYCLE_START] = -1
    ints[I_CYCLE_CHOICES] = -1
    ints[I_CYCLE_LOG2] = -1
    ints[I_CYCLE_SEATS] = -1
    ints[I_CUT_MOVER] = -1


@njit(**config.INLINED_KERNEL)
def _capture(cards, ints, seat, turned, taken):
    cards[C_TABLE] &= ~(ONE << U64(taken))
    cards[C_HAND + seat] |= (ONE << U64(turned)) | (ONE << U64(taken))
    ints[I_LAST_CAPTURER] = seat


@njit(**config.STEP_KERNEL)
def _run_phase1(cards, ints, deck, rng, keys, records, slots, uniform, streams):
    """Turn stock cards and make the forced captures until a seat must choose or phase 2 begins.

    With ``uniform`` the seats' choices are made here too (see ``init_hand_uniform``). A turn
    with no capture or one possible capture is made without a branch on which (the CPU
    cannot predict it); the seat turning counts round without a division.
    """
    n = ints[I_N_SEATS]
    while True:
        turn = ints[I_TURN]
        seat = (ints[I_FIRST_SEAT] + turn) % n
        table = cards[C_TABLE]
        last = ints[I_LAST_CAPTURER]
        decisions, crc = np.int64(0), ints[I_CRC]  # the uniform choices' counts, in registers until the loop ends
        while turn < STOCK_SIZE:
            turned = U64(deck[U64(TABLE_SIZE + turn)])  # unsigned indices: no wrap-around fix for a negative one
            turn += 1
            lower = table & LOWER_IN_SUIT[turned]
            fallback = table & FALLBACK_TARGETS[turned]
            candidates = lower if lower != 0 else fallback
            if candidates & (candidates - ONE) != 0 and uniform:  # the k-th candidate, as the policies draw k
                stream = (U64(RNG_SEAT) + U64(seat)) & streams
                taken = nth_card(candidates, below(rng, stream, popcount(candidates)))
                candidates = ONE << U64(taken)
                decisions += 1
                crc = crc_byte(crc, taken)
            if candidates & (candidates - ONE) != 0:  # two or more: the seat chooses
                cards[C_TABLE] = table
                ints[I_TURN] = turn
                ints[I_LAST_CAPTURER] = last
                ints[I_TO_MOVE] = seat
                ints[I_TURNED] = np.int64(turned)
                ints[I_DECISIONS] += decisions
                ints[I_CRC] = crc
                cards[C_CANDIDATES] = candidates
                return
            captured = U64(0) - U64(candidates != 0)  # the one candidate is taken with the turned card
            card = ONE << turned
            table ^= candidates | (card & ~captured)
            cards[U64(C_HAND) + U64(seat)] |= (card | candidates) & captured
            last = seat if candidates != 0 else last
            seat += 1
            if seat == n:
                seat = 0
        cards[C_TABLE] = table
        ints[I_TURN] = turn
        ints[I_LAST_CAPTURER] = last
        ints[I_DECISIONS] += decisions
        ints[I_CRC] = crc
        if last >= 0:
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
        finish(ints, END_OUT, next_holding(cards, ints, np.int64(0)))
        return
    ints[I_TO_MOVE] = opener
    ints[I_OPENING] = 1
    ints[I_HIST_LEN] = 0
    key = position_key(cards, ints)
    home = home_slot(slots, key) if slots.shape[0] > 0 else np.int64(0)
    remember(cards, ints, keys, records, slots, key, home, np.int64(-1))  # with no history, the key's own slot is free


@njit(**config.INLINED_KERNEL)
def _phase2_action(cards, ints, keys, records, slots, action):
    """A phase-2 action, then the table's cut-offs: a normal end first, then a repeat (the ``repeat``-th time one
    position is reached since the last irreversible event, the first return by default), then the cap."""
    move(cards, ints, ints[I_TO_MOVE], action)
    ints[I_PHASE2_ACTIONS] += 1
    if ints[I_END_REASON] >= 0:
        return
    repeat = ints[I_REPEAT]
    key, slot = position_key(cards, ints), np.int64(0)
    if repeat == 2:
        first_seen, slot = find_position(cards, ints, keys, records, slots, key)
        if first_seen >= 0:
            record_cycle(cards, ints, records, first_seen)
            cut_off(cards, ints, END_REPEAT)
            return
    elif repeat > 2:
        latest, times = count_position(cards, ints, keys, records, key)
        if times + 1 >= repeat:
            record_cycle(cards, ints, records, latest)
            cut_off(cards, ints, END_REPEAT)
            return
    if ints[I_PHASE2_ACTIONS] >= ints[I_CAP]:
        cut_off(cards, ints, END_CAP)
    elif repeat > 0:
        remember(cards, ints, keys, records, slots, key, slot, action)


@njit(**config.STEP_KERNEL)
def continue_past_cutoff(cards, ints, cap):
    """Play on a hand its table's rules cut off, with no repeat check and the cap ``cap`` (at least the table's, as
    ``reference.check_continuation`` allows): the seat that was to move moves next, the seats still holding cards
    hold no points again, and the hand at once meets the new cap if it is already there. ``KnorriHand.
    continue_past_cutoff`` does the same."""
    n = ints[I_N_SEATS]
    for s in range(n):
        if cards[C_HAND + s] != 0:
            ints[I_SCORE + s] = 0
    ints[I_TO_MOVE] = ints[I_CUT_MOVER]
    _no_end(ints)
    ints[I_CAP] = cap
    ints[I_REPEAT] = 0
    if ints[I_PHASE2_ACTIONS] >= cap:
        cut_off(cards, ints, END_CAP)


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
def step(cards, ints, deck, rng, keys, records, slots, action):
    """Take a legal ``action`` for the seat to move (the caller has checked it) and play on to the next decision;
    the engine's own form of ``apply_action``, over the position's arrays one by one (a batch passes rows of its
    2-D arrays)."""
    ints[I_DECISIONS] += 1
    ints[I_CRC] = crc_byte(ints[I_CRC], action)
    if ints[I_PHASE] == 1:
        _capture(cards, ints, ints[I_TO_MOVE], ints[I_TURNED], action)
        cards[C_CANDIDATES] = U64(0)
        ints[I_TURNED] = -1
        _run_phase1(cards, ints, deck, rng, keys, records, slots, False, U64(0))
    else:
        _phase2_action(cards, ints, keys, records, slots, action)


@njit(**config.STEP_KERNEL)
def take_action(position, action):
    """``apply_action`` as a call rather than inlined code: for the rare steps of a hot loop, which need not carry a
    copy of the engine's step each (nor compile one)."""
    step(position.cards, position.ints, position.deck, position.rng, position.keys, position.records,
         position.slots, action)


@njit(**config.INLINED_KERNEL)
def apply_action(position, action):
    """Take a legal ``action`` for the seat to move in a ``Position`` (the caller has checked it) and play on to the
    next decision."""
    step(position.cards, position.ints, position.deck, position.rng, position.keys, position.records,
         position.slots, action)


@njit(**config.STEP_KERNEL)
def copy_position(source, position):
    """Copy ``source`` (a ``PositionRows`` or a ``Position``) with the positions it remembers into ``position``'s
    working arrays, and enter those in its slot table.

    Element by element rather than ``a[:] = b``: for each slice copy numba compiles a
    shape-mismatch error message, and those messages cost seconds of every cold start.
    """
    cards0, ints0, deck0, keys0, records0 = source.cards, source.ints, source.deck, source.keys, source.records
    cards, ints, deck, keys, records = position.cards, position.ints, position.deck, position.keys, position.records
    for i in range(cards0.shape[0]):
        cards[i] = cards0[i]
    for i in range(ints0.shape[0]):
        ints[i] = ints0[i]
    for i in range(deck0.shape[0]):
        deck[i] = deck0[i]
    for i in range(ints0[I_HIST_LEN]):
        keys[i] = keys0[i]
        for j in range(records0.shape[1]):
            records[i, j] = records0[i, j]
    reset_slots(ints, keys, position.slots, FREE_SLOT)


@njit(**config.STEP_KERNEL)
def is_legal(cards, ints, action, scratch):
    """Whether ``action`` is legal for the seat to move (``scratch`` holds at least 65 ids)."""
    count = legal_actions(cards, ints, scratch)
    for i in range(count):
        if scratch[i] == action:
            return True
    return False
