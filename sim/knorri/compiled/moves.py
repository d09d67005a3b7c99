"""Phase-2 moves of the compiled Knorri engine: a play or a pick-up and what follows from it (private).

The kernels change one hand's rows (layout in ``state``) as ``reference.KnorriHand``
does, without the position history: ``kernels`` remembers positions around them, and
``history`` replays them to rebuild a remembered position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import ONE, U64, popcount
from sim.knorri.compiled.state import (
    C_HAND,
    C_HANDS_HASH,
    C_TRICK_HI,
    C_TRICK_LO,
    END_OUT,
    I_CUT_MOVER,
    I_END_REASON,
    I_HIST_LEN,
    I_HOLDING,
    I_LOSER,
    I_N_SEATS,
    I_NEEDED,
    I_OPENING,
    I_RUN_LEFT,
    I_SCORE,
    I_TO_MOVE,
    I_TRICK_LEN,
    I_TRICKS_COMPLETED,
    ZOBRIST,
    plays_in_trick,
)
from sim.knorri.encoding import PICK_UP, RUN_BASE

SIX_BITS = U64(63)


@njit(**config.INLINED_KERNEL)
def next_holding(cards, ints, seat):
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
def append_to_trick(cards, ints, card):
    """Put ``card`` on top of the trick (6 bits a card, ``card + 1``, ten cards a trick word)."""
    index = ints[I_TRICK_LEN]
    value = U64(card + 1)
    if index < 10:
        cards[C_TRICK_LO] |= value << U64(6 * index)
    else:
        cards[C_TRICK_HI] |= value << U64(6 * (index - 10))
    ints[I_TRICK_LEN] = index + 1


@njit(**config.INLINED_KERNEL)
def _pick_up(cards, ints, seat):
    """The seat takes the trick's bottom card into its hand."""
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
    ints[I_TO_MOVE] = next_holding(cards, ints, seat)


@njit(**config.INLINED_KERNEL)
def _play(cards, ints, seat, action):
    """The seat plays a card (or opens with 2C or a club run); the trick, seats out and the end follow."""
    if ints[I_TRICK_LEN] == 0:
        ints[I_NEEDED] = ints[I_HOLDING]
    if ints[I_OPENING] == 1:
        ints[I_OPENING] = 0
        ints[I_HIST_LEN] = 0  # the opening can never be undone
        length = 1 if action == 0 else action - RUN_BASE + 2
        ints[I_RUN_LEFT] = length if length > 1 else 0
        played = U64(0)
        for card in range(length):
            append_to_trick(cards, ints, card)
            played |= ONE << U64(card)
            cards[C_HANDS_HASH] ^= ZOBRIST[seat, card]
    else:
        append_to_trick(cards, ints, action)
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
        finish(ints, END_OUT, next_holding(cards, ints, seat))
    elif complete and hand != 0:
        ints[I_TO_MOVE] = seat
    else:
        ints[I_TO_MOVE] = next_holding(cards, ints, seat)


@njit(**config.INLINED_KERNEL)
def move(cards, ints, seat, action):
    """The seat plays ``action`` or picks up: a phase-2 action without the history (a replay repeats only this)."""
    if action == PICK_UP:
        _pick_up(cards, ints, seat)
    else:
        _play(cards, ints, seat, action)


@njit(**config.STEP_KERNEL)
def cut_off(cards, ints, reason):
    """Rank the seats still holding: fewest cards first, ties in turn order from the seat to move (kept, for a
    continuation past the cut-off)."""
    n = ints[I_N_SEATS]
    start = ints[I_TO_MOVE]
    ints[I_CUT_MOVER] = start
    holding = 0
    for s in range(n):
        if cards[C_HAND + s] != 0:
            holding += 1
    ranked = 0  # bit s: seat s already placed
    for place in range(holding):
        best_seat, best_count = np.int64(-1), 1 << 30
        for step in range(n):  # fewest cards first; ties go to the earlier seat in turn order from ``start``
            seat = (start + step) % n
            count = popcount(cards[C_HAND + seat])
            if count > 0 and not ranked >> seat & 1 and count < best_count:
                best_seat, best_count = seat, count
        ranked |= 1 << best_seat
        if place < holding - 1:
            ints[I_SCORE + best_seat] = holding - 1 - place
        else:
            finish(ints, reason, best_seat)


@njit(**config.STEP_KERNEL)
def finish(ints, reason, loser):
    """End the hand: ``loser`` pays what the other seats have scored."""
    total = 0
    for s in range(ints[I_N_SEATS]):
        if s != loser:
            total += ints[I_SCORE + s]
    ints[I_SCORE + loser] = -total
    ints[I_LOSER] = loser
    ints[I_END_REASON] = reason
    ints[I_TO_MOVE] = -1
