"""Knorri's rules as pure functions over card ids and card sets.

Nothing here holds state, draws a random number or prints: the engines call
these to decide what is legal and who scores what.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.cards import (
    DIAMONDS,
    HEARTS,
    NUM_CARDS,
    SPADES,
    Card,
    CardSet,
    card_list,
    higher_in_suit,
    lower_in_suit,
    suit_of,
)
from sim.knorri.encoding import (
    CLUB_MASK,
    DIAMOND_MASK,
    PICK_UP,
    RUN_BASE,
    SPADES_AND_HEARTS,
    TWO_OF_CLUBS,
)


def beats(card: Card, top: Card) -> bool:
    """Whether ``card`` beats ``top`` in phase 2: higher in its suit, or a diamond on a spade or heart."""
    if suit_of(card) == suit_of(top):
        return card > top
    return suit_of(card) == DIAMONDS and suit_of(top) in (HEARTS, SPADES)


def beaters(top: Card) -> CardSet:
    """Every card that beats ``top``."""
    result = higher_in_suit(top)
    if suit_of(top) in (HEARTS, SPADES):
        result |= DIAMOND_MASK
    return result


def capture_candidates(turned: Card, table: CardSet) -> CardSet:
    """The table cards a turned card may take in phase 1 (it takes exactly one of them).

    Lower cards of its own suit come first; only when there are none does a
    diamond take a spade or a heart instead.
    """
    same_suit_lower = table & lower_in_suit(turned)
    if same_suit_lower or suit_of(turned) != DIAMONDS:
        return same_suit_lower
    return table & SPADES_AND_HEARTS


def club_run_length(hand: CardSet) -> int:
    """How many clubs from 2C up the hand holds unbroken (0 without the 2C)."""
    clubs = hand & CLUB_MASK
    # Adding 1 to the run of low set bits carries past its end: the run's length is the carry's position.
    return ((clubs + 1) & ~clubs).bit_length() - 1


def opening_actions(hand: CardSet) -> list[int]:
    """The legal opening plays of the 2C holder: 2C alone, or 2C with an unbroken club run from 3C."""
    length = club_run_length(hand)
    return [TWO_OF_CLUBS] + [RUN_BASE + k - 2 for k in range(2, length + 1)]


def phase2_legal(hand: CardSet, top: Card | None, opening: bool) -> list[int]:
    """The legal action ids, ascending, for a phase-2 turn.

    ``top`` is the trick's top card, or None for a lead into an empty trick.
    """
    if opening:
        return opening_actions(hand)
    if top is None:
        return card_list(hand)
    return card_list(hand & beaters(top)) + [PICK_UP]


def phase2_allows(hand: CardSet, top: Card | None, opening: bool, action: int) -> bool:
    """Whether ``action`` is among ``phase2_legal(hand, top, opening)``, found without listing them."""
    if opening:
        return action == TWO_OF_CLUBS or RUN_BASE <= action <= RUN_BASE + club_run_length(hand) - 2
    if action == PICK_UP:
        return top is not None
    if not 0 <= action < NUM_CARDS or not hand >> action & 1:
        return False
    return top is None or beats(action, top)


def plays_needed(seats_holding: int) -> int:
    """The plays a trick needs: as many as there were seats holding cards when it was led."""
    return seats_holding


def going_out_score(others_holding: int) -> int:
    """A seat that goes out scores one point for each other seat still holding cards."""
    return others_holding


def loser_score(scores: Sequence[int], loser: int) -> int:
    """The loser scores minus everyone else's total, so the hand sums to zero."""
    return -sum(score for seat, score in enumerate(scores) if seat != loser)


def cutoff_ranking(card_counts: Sequence[int], next_to_move: int) -> list[int]:
    """Rank the seats still holding cards at a cut-off: fewest cards first, ties by turn order.

    Turn order counts from ``next_to_move``, the seat that would move next. The last
    seat of the ranking is the loser.
    """
    n = len(card_counts)
    order = [(next_to_move + i) % n for i in range(n)]
    holding = [seat for seat in order if card_counts[seat] > 0]
    return sorted(holding, key=lambda seat: card_counts[seat])  # stable: ties keep turn order


def next_seat_holding(hands: Sequence[CardSet], seat: int) -> int:
    """The first seat after ``seat`` that still holds cards (``seat`` itself if nobody else does)."""
    n = len(hands)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if hands[candidate]:
            return candidate
    return seat


def phase2_legal_count(hand: CardSet, top: Card | None, opening: bool) -> int:
    """How many actions ``phase2_legal`` offers, without listing them (the loop anatomy counts them every action)."""
    if opening:
        return max(club_run_length(hand), 1)
    if top is None:
        return hand.bit_count()
    return (hand & beaters(top)).bit_count() + 1


def repeat_ends_hand(times_reached: int, repeat: int) -> bool:
    """Whether a position reached ``times_reached`` times in phase 2 ends the hand under the option ``repeat``.

    ``repeat`` is 2 (the first return to a position), 3 (a threefold repetition) up to 10, or 0: no check.
    """
    return repeat > 0 and times_reached >= repeat
