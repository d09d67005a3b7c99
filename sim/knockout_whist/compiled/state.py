"""The compiled Knockout Whist engine's state layout and small helpers (private to the compiled engine).

One game's state is two rows with named columns, so a batch of games is two 2-D arrays and a kernel reads one game
as ``cards[g]``, ``ints[g]``: ``cards`` holds uint64 card sets (``C_*``: each seat's hand and thrown-away cards,
the cards picked in an exchange, the cards played), ``ints`` int64 scalars (``I_*``, each documented where
defined; per-seat blocks run for ``MAX_SEATS`` columns). The current hand's permutation (the stock order) lives in
a separate ``decks`` array, and the random streams in ``rngs``; no observation reads either. The ids, options,
phases and statuses are those of ``encoding.py``. The columns are listed in docs/internals.md,
``sim.knockout_whist.compiled.state``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.cards import SUIT_MASK
from sim.compiled_api import Position, empty_position
from sim.compiled_bits import DEAL_STREAM, SEAT_STREAMS, U64
from sim.knockout_whist.encoding import FLAG_OPTIONS, MAX_SEATS, EndReason, Phase, Status
from sim.knockout_whist.rules import CUT_SUIT_STRENGTH

# ----- cards row -------------------------------------------------------------------------------
C_HAND = 0
C_THROWN = MAX_SEATS
C_PICKED = 2 * MAX_SEATS
C_PLAYED = 2 * MAX_SEATS + 1
NUM_CARD_FIELDS = 2 * MAX_SEATS + 2

# ----- ints row: one value each ------------------------------------------------------------------
I_N_SEATS = 0  # seats at the table, 2..7
I_FLAGS = 1  # the boolean options as ``Options.flags()`` (bit i for FLAG_OPTIONS[i])
I_HAND_NO = 2  # the hand being played, 1..7 (the hands played, once the game is over)
I_DEALER = 3  # this hand's dealer (it may have just been knocked out: then it deals and leaves)
I_LEADER = 4  # who leads this hand's first trick (and starts the card exchange)
I_CHOOSER = 5  # this hand's trump chooser (-1 in hand 1)
I_PHASE = 6  # encoding.Phase: choose, exchange, play, over
I_TO_MOVE = 7  # the seat whose decision it is (-1 once the game is over)
I_TRUMPS = 8  # suit 0..3, NO_TRUMPS (4), or -1 while not yet fixed
I_TURNED = 9  # hand 1's turned card (-1 in later hands)
I_STOCK_POS = 10  # the deck index of the next stock card to draw
I_IN_HAND = 11  # bit s set for each seat in this hand (not knocked out before it)
I_DOGS_LIFE_USED = 12  # 1 once a dog's life has been awarded
I_LAST_TRICK = 13  # 1 during the hand's last trick (a dog may not knock)
I_TRICK_NO = 14  # tricks completed in this hand
I_TRICK_LEADER = 15  # the seat that began the current trick
I_TRICK_SEATS = 16  # bit s set for each seat in the current trick (the seats holding cards when it began)
I_TRICK_TURNS = 17  # plays and knocks made to the current trick
I_LED_SUIT = 18  # the suit of the trick's first card played (-1 before one is played)
I_BEST_CARD = 19  # the card winning the trick so far (-1 before one is played)
I_BEST_SEAT = 20  # the seat that played it
I_DECISIONS = 21  # decisions taken so far
I_CRC = 22  # running CRC-32 register of the decision ids (finish with ``crc_final``)
I_WINNER = 23  # the game's winner (-1 while playing)
I_END_REASON = 24  # -1 while playing, else an index into END_REASONS
# ----- ints row: one value per seat ---------------------------------------------------------------
I_STATUS = 25  # encoding.Status: in, dog, out
I_TRICKS = I_STATUS + MAX_SEATS  # tricks taken in this hand
I_TRICK_ACTION = I_TRICKS + MAX_SEATS  # the seat's card or KNOCK in the current trick, -1 before its turn
I_EXCHANGED = I_TRICK_ACTION + MAX_SEATS  # cards exchanged this hand, -1 before the seat's exchange ends
I_OUT_HAND = I_EXCHANGED + MAX_SEATS  # the hand at whose end the seat went out (0 while in)
I_DOG_HAND = I_OUT_HAND + MAX_SEATS  # the hand the seat played on its dog's life (0 if none)
I_DOG_SAVED = I_DOG_HAND + MAX_SEATS  # 1 if the seat's dog took a trick
I_CUT = I_DOG_SAVED + MAX_SEATS  # the card the seat cut for this hand's trump choice (-1 if it did not cut)
I_SCORE = I_CUT + MAX_SEATS  # the game's score (0 until it ends)
NUM_INT_FIELDS = I_SCORE + MAX_SEATS

END_REASONS: tuple[EndReason, ...] = tuple(EndReason)
"""``ints[I_END_REASON]`` indexes this: last_trick, last_standing, rainbow."""
END_LAST_TRICK, END_LAST_STANDING, END_RAINBOW = (END_REASONS.index(reason) for reason in
                                                  (EndReason.LAST_TRICK, EndReason.LAST_STANDING,
                                                   EndReason.RAINBOW))

# ----- option bits, as Options.flags() writes them ------------------------------------------------
F_DOGS_LIFE, F_SAFE_FIRST_HAND, F_WINNER_DEALS, F_CARD_EXCHANGE, F_NO_TRUMPS_CHOICE, F_RAINBOW = (
    1 << FLAG_OPTIONS.index(name) for name in
    ("dogs_life", "safe_first_hand", "winner_deals", "card_exchange", "no_trumps_choice", "rainbow"))

# ----- phases and statuses as plain ints (what the kernels compare against) ------------------------------
P_CHOOSE, P_EXCHANGE, P_PLAY, P_OVER = int(Phase.CHOOSE), int(Phase.EXCHANGE), int(Phase.PLAY), int(Phase.OVER)
S_IN, S_DOG, S_OUT = int(Status.IN), int(Status.DOG), int(Status.OUT)

# ----- random streams -----------------------------------------------------------------------------
RNG_DEAL = DEAL_STREAM  # rngs[g, RNG_DEAL]: the game's own stream (permutations, and the protocol's decisions)
RNG_SEAT = SEAT_STREAMS  # rngs[g, RNG_SEAT + s]: seat s's own stream (the RANDOM policy)
NUM_RNG = 1 + MAX_SEATS

# ----- tables ---------------------------------------------------------------------------------------
SUITS = np.array(SUIT_MASK, dtype=np.uint64)
CUT_STRENGTH = np.array([(card % 13) * 4 + CUT_SUIT_STRENGTH[card // 13] for card in range(52)], dtype=np.int64)
"""How high each card cuts for trumps: by rank, equal ranks by suit (spades, diamonds, hearts, clubs)."""


@njit(**config.KERNEL)
def new_position() -> Position:
    """Empty working arrays ``cards, ints, deck, rng`` for one game's position (the step API's ``new_position``)."""
    return empty_position(NUM_CARD_FIELDS, NUM_INT_FIELDS, NUM_RNG)


@njit(**config.INLINED_KERNEL)
def has_seat(seats: int, seat: int) -> bool:
    """Whether the seat bit set ``seats`` holds ``seat``."""
    return (seats >> seat) & 1 == 1


@njit(**config.INLINED_KERNEL)
def seat_after(seat: int, n_seats: int, seats: int) -> int:
    """The first seat of the bit set ``seats`` clockwise after ``seat`` (``seat`` itself if it is the only one)."""
    candidate = seat
    for _ in range(n_seats):
        candidate = candidate + 1 if candidate + 1 < n_seats else 0
        if (seats >> candidate) & 1:
            return candidate
    return -1


@njit(**config.INLINED_KERNEL)
def card_bit(card: int) -> np.uint64:
    """The one-card set holding ``card``."""
    return U64(1) << U64(card)
