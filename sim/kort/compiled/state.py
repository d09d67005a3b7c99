"""The compiled Kort engine's state layout and small helpers (private to the compiled engine).

One match's state is two rows with named columns, so a batch of matches is two 2-D arrays and a kernel reads one
match as ``cards[g]``, ``ints[g]``: ``cards`` holds uint64 card sets (``C_HAND + s``, ``C_PLAYED``), ``ints``
int64 scalars (``I_*``, each documented where defined; blocks run for 4 seats, 2 teams or 13 tricks). The current
deal's permutation lives in a separate ``decks`` array and the random streams in ``rngs``; no observation reads
either. A finished round's record is the ``ROUND_FIELDS`` block at ``I_LAST_ROUND`` (``R_*`` offsets), copied out
each time ``I_ROUNDS_PLAYED`` grows. The codes it holds are in docs/internals.md, ``sim.kort.compiled.state``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.cards import SUIT_MASK
from sim.compiled_api import Position, empty_position
from sim.compiled_bits import DEAL_STREAM, SEAT_STREAMS, U64
from sim.kort.encoding import NUM_SEATS, NUM_TEAMS, TRICKS_IN_ROUND, TRUMP_13, LeadKind, MatchEnd, Phase
from sim.kort.rules import FACE_CARDS

# ----- cards row -------------------------------------------------------------------------------
C_HAND = 0
C_PLAYED = NUM_SEATS
NUM_CARD_FIELDS = NUM_SEATS + 1

# ----- a round's record (a block of the ints row, and a row of the playouts' round arrays) ---------
R_RESULT = 0  # encoding.Result
R_TEAM = 1  # the team that got the round's wins
R_WINS = 2  # how many
R_TRICKS = 3  # two columns: tricks per team
R_HOLDER = 5  # the round's trump holder
R_TRUMP = 6  # the trump suit (-1 if the round ended before a choice: it never does)
R_TRUMP_13 = 7  # 1 if the holder chose "13"
R_REDEALS = 8  # redeals in this round
R_BAVAN = 9  # 1 if Bavan was played
R_SCORE = 10  # two columns: the match's wins per team after the round
R_DECLARED = 12  # 13 columns: the declaration on each trick's lead, kind * 4 + seat (-1: none)
ROUND_FIELDS = R_DECLARED + TRICKS_IN_ROUND

# ----- ints row: one value each ------------------------------------------------------------------
I_TARGET = 0  # the option target_wins
I_FIRST_HOLDER = 1  # the option first_holder
I_ROUND_NO = 2  # the round being played, from 0 (the last one's, once the match is over)
I_DEAL_NO = 3  # this round's deal: 0, then 1.. after redeals
I_REDEALS = 4  # redeals over the whole match
I_ROUNDS_PLAYED = 5  # rounds finished
I_HOLDER = 6  # this round's trump holder
I_PHASE = 7  # encoding.Phase
I_TO_MOVE = 8  # the seat whose decision it is (-1 once the match is over)
I_TRUMP = 9  # the trump suit, -1 before the choice
I_TRUMP_CHOICE = 10  # the trump action (52..56), -1 before the choice
I_THIRTEENTH = 11  # the holder's 13th card after "13", else -1 (public)
I_LEADER = 12  # the seat that led (or leads) the current trick
I_TRICK_NO = 13  # tricks completed in this round
I_TRICK_PLAYS = 14  # cards on the table in the current trick
I_LED_SUIT = 15  # the current trick's suit led (-1 before its lead)
I_BEST_CARD = 16  # the card taking the trick so far (-1 before the lead)
I_BEST_SEAT = 17  # the seat that played it
I_CHOICES = 18  # in a declaration: how many of 57, 58, 59 are offered (2 or 3)
I_BAVAN_TEAM = 19  # the team playing Bavan, -1 if none
I_FIRST_VOTER = 20  # the seat that took the 7th trick of a 7:0 (the first Bavan voter), -1 before one
I_VOTES_CAST = 21  # Bavan votes cast this round
I_DECISIONS = 22  # decisions taken so far
I_CRC = 23  # running CRC-32 register of the decision ids (finish with ``crc_final``)
I_WINNER_TEAM = 24  # the team that won the match (-1 while playing)
I_END_REASON = 25  # -1 while playing, else an index into END_REASONS
# ----- ints row: blocks ----------------------------------------------------------------------------
I_TRICK_CARD = 26  # 4 seats: the seat's card in the current trick, -1 before its turn
I_VOTE = I_TRICK_CARD + NUM_SEATS  # 4 seats: the seat's Bavan vote this round (61 or 62), -1 if none
I_SCORE = I_VOTE + NUM_SEATS  # 4 seats: the match result, +1 for the winning team, -1 for the other (0 before)
I_TRICKS = I_SCORE + NUM_SEATS  # 2 teams: tricks taken this round
I_LEAD_STATE = I_TRICKS + NUM_TEAMS  # 2 teams: the team's lead state (LeadState.code)
I_WINS = I_LEAD_STATE + NUM_TEAMS  # 2 teams: match wins so far
I_DECLARED = I_WINS + NUM_TEAMS  # 13 tricks: this round's declaration on each trick's lead (as R_DECLARED)
I_LAST_ROUND = I_DECLARED + TRICKS_IN_ROUND  # ROUND_FIELDS: the record of the last round finished
NUM_INT_FIELDS = I_LAST_ROUND + ROUND_FIELDS

END_REASONS: tuple[MatchEnd, ...] = tuple(MatchEnd)
"""``ints[I_END_REASON]`` indexes this (a match has one way to end: target_reached)."""

# ----- phases and lead kinds as plain ints (what the kernels compare against) -------------------------------
P_TRUMP, P_LEAD, P_DECLARE, P_FOLLOW, P_VOTE, P_OVER = (int(p) for p in (
    Phase.TRUMP, Phase.LEAD, Phase.DECLARE, Phase.FOLLOW, Phase.VOTE, Phase.OVER))
K_FREE, K_SAR, K_SAR_NEXT, K_TROP, K_TROP_DONE = (int(k) for k in LeadKind)

# ----- random streams -----------------------------------------------------------------------------
RNG_DEAL = DEAL_STREAM  # rngs[g, RNG_DEAL]: the match's own stream (the decks, and the protocol's decisions)
RNG_SEAT = SEAT_STREAMS  # rngs[g, RNG_SEAT + s]: seat s's own stream (the RANDOM policy)
NUM_RNG = 1 + NUM_SEATS

# ----- tables ---------------------------------------------------------------------------------------
SUITS = np.array(SUIT_MASK, dtype=np.uint64)
FACES = U64(FACE_CARDS)


def max_rounds(target_wins: int) -> int:
    """The most rounds a match to ``target_wins`` can last: every round gives one team 1 win or more."""
    return 2 * target_wins - 1


@njit(**config.KERNEL)
def new_position() -> Position:
    """Empty working arrays for one match's position (the step API's ``new_position``)."""
    return empty_position(NUM_CARD_FIELDS, NUM_INT_FIELDS, NUM_RNG)


@njit(**config.INLINED_KERNEL)
def card_bit(card: int) -> np.uint64:
    """The one-card set holding ``card``."""
    return U64(1) << U64(card)


@njit(**config.INLINED_KERNEL)
def state_kind(code: int) -> int:
    """A lead state's ``LeadKind`` from its code."""
    return code & 7


@njit(**config.INLINED_KERNEL)
def trop_code(made: int, of: int) -> int:
    """The code of ``trop(made, of)``."""
    return K_TROP + 8 * made + 64 * of


@njit(**config.INLINED_KERNEL)
def write_round_record(ints: np.ndarray, result: int, team: int, gained: int) -> None:
    """Write the round just ended into the ``I_LAST_ROUND`` block: ``team`` got ``gained`` wins by ``result``
    (the match's wins already count them)."""
    record = I_LAST_ROUND
    ints[record + R_RESULT] = result
    ints[record + R_TEAM] = team
    ints[record + R_WINS] = gained
    ints[record + R_HOLDER] = ints[I_HOLDER]
    ints[record + R_TRUMP] = ints[I_TRUMP]
    ints[record + R_TRUMP_13] = 1 if ints[I_TRUMP_CHOICE] == TRUMP_13 else 0
    ints[record + R_REDEALS] = ints[I_DEAL_NO]
    ints[record + R_BAVAN] = 1 if ints[I_BAVAN_TEAM] >= 0 else 0
    for t in range(NUM_TEAMS):
        ints[record + R_TRICKS + t] = ints[I_TRICKS + t]
        ints[record + R_SCORE + t] = ints[I_WINS + t]
    for i in range(TRICKS_IN_ROUND):
        ints[record + R_DECLARED + i] = ints[I_DECLARED + i]
