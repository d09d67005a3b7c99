"""The compiled engine's state layout, lookup tables and its own bit helpers (private to the compiled engine).

One hand's state is two rows with named columns, so a batch of hands is two 2-D arrays and a kernel or a policy
reads one hand as ``cards[h]``, ``ints[h]``: ``cards`` holds uint64 card sets (``C_*``: each seat's pile or hand,
the table, the candidates, the trick six bits a card, the hands' Zobrist hash), ``ints`` int64 scalars (``I_*``,
each documented where defined). The deal's stock order lives in a separate ``decks`` array that no policy ever
receives, so a policy cannot see it. The columns are listed in docs/internals.md, ``sim.knorri.compiled.state``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sim import config
from sim.cards import NUM_CARDS, SUIT_MASK, higher_in_suit, lower_in_suit, suit_of
from sim.compiled_bits import U64
from sim.knorri.encoding import MAX_SEATS
from sim.rng import SplitMix64

# ----- cards row -------------------------------------------------------------------------------
C_HAND = 0
C_TABLE = MAX_SEATS
C_CANDIDATES = MAX_SEATS + 1
C_TRICK_LO = MAX_SEATS + 2
C_TRICK_HI = MAX_SEATS + 3
C_HANDS_HASH = MAX_SEATS + 4
NUM_CARD_FIELDS = MAX_SEATS + 5

# ----- ints row --------------------------------------------------------------------------------
I_N_SEATS = 0  # seats at the table, 3..6
I_FIRST_SEAT = 1  # the seat with the first turn of phase 1
I_PHASE = 2  # 1 turning the stock, 2 playing out
I_TO_MOVE = 3  # the seat whose decision it is (-1 once done)
I_TURN = 4  # stock cards turned so far in this deal (0..43)
I_TURNED = 5  # the turned card a seat is choosing a capture for (-1 otherwise)
I_LAST_CAPTURER = 6  # the last seat that captured in this deal (-1 if none)
I_REDEALS = 7  # deals thrown in because nobody captured
I_TRICK_LEN = 8  # cards in the trick
I_RUN_LEFT = 9  # cards of the opening run still at the bottom of the trick (0 if none)
I_NEEDED = 10  # plays the current trick needs (meaningful while the trick is not empty)
I_OPENING = 11  # 1 while the 2C opening play is still to be made
I_HOLDING = 12  # seats holding cards (phase 2)
I_PHASE2_ACTIONS = 13  # plays and pick-ups so far
I_DECISIONS = 14  # decisions taken (phase-1 choices and phase-2 actions)
I_CRC = 15  # running CRC-32 register of the decision ids (finish with ``crc_final``)
I_TRICKS_COMPLETED = 16  # tricks set aside
I_END_REASON = 17  # -1 while playing, else END_OUT / END_REPEAT / END_CAP
I_LOSER = 18  # the loser once done (-1 before)
I_CYCLE = 19  # actions since the repeated position first occurred (-1 unless repeat)
I_HIST_LEN = 20  # positions remembered since the last irreversible event
I_HIST_BASE = 21  # the phase-2 action count at which the first remembered position was reached
I_SCORE = 22  # I_SCORE + s: seat s's score
I_PILE = I_SCORE + MAX_SEATS  # I_PILE + s: seat s's card count at the start of phase 2
# The table's cut-off rules travel with the position, so every step and playout from it plays under them.
I_CAP = I_PILE + MAX_SEATS  # phase-2 actions after which the hand ends by ``cap`` (the ``cap`` option)
I_REPEAT = I_CAP + 1  # times one position may be reached before the hand ends by ``repeat`` (0: never)
# The anatomy of a repeat's loop (each -1 unless the hand ended by ``repeat``; I_CYCLE is its length):
I_CYCLE_START = I_REPEAT + 1  # the phase-2 action count at the latest earlier occurrence of the position
I_CYCLE_CHOICES = I_CYCLE_START + 1  # the cycle's decisions with more than one legal action
I_CYCLE_LOG2 = I_CYCLE_CHOICES + 1  # the float64 bits of the sum of log2(legal actions) over them
I_CYCLE_SEATS = I_CYCLE_LOG2 + 1  # bit s: seat s took one of them
I_CUT_MOVER = I_CYCLE_SEATS + 1  # the seat that was to move when a cut-off ended the hand (-1 otherwise)
NUM_INT_FIELDS = I_CUT_MOVER + 1

# int64, not int: numba compiles a separate copy of a kernel for each plain-int constant passed to it.
END_OUT, END_REPEAT, END_CAP = np.int64(0), np.int64(1), np.int64(2)
RNG_DEAL = np.int64(0)  # rng[RNG_DEAL]: the hand's own stream (decks, and the protocol's choices)
RNG_SEAT = np.int64(1)  # rng[RNG_SEAT + s]: seat s's own stream (the RANDOM policy)
NUM_RNG = 1 + MAX_SEATS

# ----- a decision log row (the action log of ``play_batch`` and the lineup player): ``log_decision`` writes it ----
LOG_HAND, LOG_STEP, LOG_SEAT, LOG_PHASE, LOG_ACTION = range(5)
LOG_FIELDS = 5

# A row of the position history, for exact repeat checks. A full row holds the position: every
# hand, the trick words, then the small fields packed (``R_META``). A step row holds only the
# action that led to its position from the row before, as ``STEP_ROW | action`` in ``R_META``:
# the engine writes a full row where a stretch of history starts and step rows after it, and
# rebuilds a step row's position by replaying the actions only when its hash matches.
R_TRICK_LO = MAX_SEATS
R_TRICK_HI = MAX_SEATS + 1
R_META = MAX_SEATS + 2
RECORD_SIZE = MAX_SEATS + 3
STEP_ROW = np.uint64(1 << 63)
# R_META of a full row: the seat to move in bits 0-2, then these fields at these bit offsets.
META_OPENING, META_NEEDED, META_RUN_LEFT, META_TRICK_LEN = 3, 4, 8, 12

class Position(NamedTuple):
    """One position's working arrays, as every step of it takes them (``new_position`` makes them)."""

    cards: np.ndarray  # uint64[NUM_CARD_FIELDS]: the card sets (``C_*``)
    ints: np.ndarray  # int64[NUM_INT_FIELDS]: the scalars (``I_*``), the table's cut-off rules among them
    deck: np.ndarray  # int64[52]: the deal, table cards first, then the stock in turning order
    rng: np.ndarray  # uint64[NUM_RNG]: the hand's stream, then each seat's
    keys: np.ndarray  # uint64[rows]: the remembered positions' hashes
    records: np.ndarray  # uint64[rows, RECORD_SIZE]: the remembered positions (``R_*``)
    slots: np.ndarray  # int16[table]: the hash table over ``keys`` (empty when no repeat check needs it)


class PositionRows(NamedTuple):
    """A position read once, to be copied into working arrays at each restart: a ``Position`` without the streams
    and the slot table, which the copy makes afresh."""

    cards: np.ndarray
    ints: np.ndarray
    deck: np.ndarray
    keys: np.ndarray
    records: np.ndarray


# ----- tables, built once at import -------------------------------------------------------------
LOWER_IN_SUIT = np.array([lower_in_suit(c) for c in range(NUM_CARDS)], dtype=np.uint64)
BEATERS = np.array(
    [higher_in_suit(c) | (SUIT_MASK[1] if suit_of(c) >= 2 else 0) for c in range(NUM_CARDS)], dtype=np.uint64
)
IS_DIAMOND = np.array([suit_of(c) == 1 for c in range(NUM_CARDS)], dtype=np.bool_)
SPADES_AND_HEARTS = U64(SUIT_MASK[2] | SUIT_MASK[3])
FALLBACK_TARGETS = np.array([SUIT_MASK[2] | SUIT_MASK[3] if suit_of(c) == 1 else 0 for c in range(NUM_CARDS)],
                            dtype=np.uint64)  # what a turned card may take when no lower card of its suit is there
CLUBS = U64(SUIT_MASK[0])
_zobrist_stream = SplitMix64(0x4B4E4F525249)  # any fixed seed: the hash only has to be the same every run
ZOBRIST = np.array([[_zobrist_stream.next() for _ in range(NUM_CARDS)] for _ in range(MAX_SEATS)], dtype=np.uint64)
MOVER_KEY = np.array([_zobrist_stream.next() for _ in range(MAX_SEATS)], dtype=np.uint64)  # the seat to move


@njit(**config.INLINED_KERNEL)
def log_decision(row, hand, step, seat, phase, action):
    """Write one decision into a log row: the hand's index, the decision's number in the hand, the seat, the phase
    and the action."""
    row[LOG_HAND] = hand
    row[LOG_STEP] = step
    row[LOG_SEAT] = seat
    row[LOG_PHASE] = phase
    row[LOG_ACTION] = action


# ----- Knorri's own bit helpers (the shared ones are in sim.compiled_bits) ------------------------------
@njit(**config.INLINED_KERNEL)
def club_run_length(hand: np.uint64) -> int:
    """How many clubs from 2C up the hand holds unbroken (0 without the 2C)."""
    clubs = hand & CLUBS
    return np.int64(trailing_zeros(~clubs))


@njit(**config.INLINED_KERNEL)
def trick_card(cards_row: np.ndarray, index: int) -> int:
    """The card at ``index`` of the trick, counting from the bottom (0)."""
    if index < 10:
        word = cards_row[C_TRICK_LO] >> U64(6 * index)
    else:
        word = cards_row[C_TRICK_HI] >> U64(6 * (index - 10))
    return int(word & U64(63)) - 1


@njit(**config.INLINED_KERNEL)
def top_card(cards_row: np.ndarray, ints_row: np.ndarray) -> int:
    """The trick's top card, or -1 for an empty trick."""
    length = ints_row[I_TRICK_LEN]
    return trick_card(cards_row, length - 1) if length > 0 else -1


@njit(**config.INLINED_KERNEL)
def plays_in_trick(ints_row: np.ndarray) -> int:
    """Plays still in the trick: what is left of the opening run counts as one play."""
    run = ints_row[I_RUN_LEFT]
    return ints_row[I_TRICK_LEN] - run + (1 if run > 0 else 0)
