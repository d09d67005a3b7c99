"""Cards of the ordinary 52-card pack: integer ids, text forms and 64-bit card sets.

Every game in the project shares this encoding (the rulings fix it):
``id = suit * 13 + rank``, suits ordered clubs, diamonds, hearts, spades and
ranks from the 2 (0) up to the ace (12). A set of cards is an ``int`` whose bit
``id`` is set for each card in it, so both engines can use the same masks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from sim.errors import GameInputError

Card: TypeAlias = int
CardSet: TypeAlias = int

NUM_CARDS = 52
NUM_RANKS = 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_LETTERS = "CDHS"
RANK_LETTERS = "23456789TJQKA"
FULL_DECK: CardSet = (1 << NUM_CARDS) - 1
SUIT_MASK: tuple[CardSet, ...] = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(4))

_SUIT_SYMBOLS = {"♣": CLUBS, "♦": DIAMONDS, "♥": HEARTS, "♠": SPADES}


class CardParseError(ValueError):
    """Raised for text that does not name a card."""


def card_id(suit: int, rank: int) -> Card:
    """The id of the card of ``suit`` (0..3) and ``rank`` (0 for the 2 .. 12 for the ace)."""
    return suit * NUM_RANKS + rank


def suit_of(card: Card) -> int:
    """The suit (0 clubs, 1 diamonds, 2 hearts, 3 spades) of a card id."""
    return card // NUM_RANKS


def rank_of(card: Card) -> int:
    """The rank (0 for the 2 .. 12 for the ace) of a card id."""
    return card % NUM_RANKS


def card_text(card: Card) -> str:
    """The two-letter text form, rank then suit: ``2C``, ``TD``, ``AS``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range: ids are 0 to 51")
    return RANK_LETTERS[rank_of(card)] + SUIT_LETTERS[suit_of(card)]


def parse_card(text: str) -> Card:
    """Read a card from its text form; accepts ``10`` for ``T``, lower case and ♣ ♦ ♥ ♠."""
    cleaned = text.strip().upper()
    if len(cleaned) < 2:
        raise CardParseError(f"{text!r} is not a card: write rank then suit, like 2C, TD, 10H or Q♠")
    rank_part, suit_part = cleaned[:-1], cleaned[-1]
    if rank_part == "10":
        rank_part = "T"
    suit = _SUIT_SYMBOLS.get(suit_part, SUIT_LETTERS.find(suit_part))
    if len(rank_part) != 1 or rank_part not in RANK_LETTERS or suit < 0:
        raise CardParseError(
            f"{text!r} is not a card: ranks are 2-9, T (or 10), J, Q, K, A; suits are C, D, H, S or ♣ ♦ ♥ ♠"
        )
    return card_id(suit, RANK_LETTERS.index(rank_part))


def suit_named(text: object, cleaned: str, prefix: str, hint: str) -> int:
    """The suit 0..3 an action's text names after ``prefix`` (``cleaned`` is ``text`` stripped and lower case:
    ``"trumps h"`` -> 2); anything else is a one-line ``GameInputError`` ending in ``hint``."""
    suit = SUIT_LETTERS.lower().find(cleaned[len(prefix):])
    if len(cleaned) != len(prefix) + 1 or suit < 0:
        raise GameInputError(f"{text!r} is not a trump choice: {hint}")
    return suit


def parse_cards(text: str) -> list[Card]:
    """Read a space- or comma-separated list of cards."""
    return [parse_card(part) for part in text.replace(",", " ").split()]


def bit(card: Card) -> CardSet:
    """The one-card set holding ``card``."""
    return 1 << card


def to_set(cards: Iterable[Card]) -> CardSet:
    """The card set holding the given cards."""
    result = 0
    for card in cards:
        result |= 1 << card
    return result


def card_list(cards: CardSet) -> list[Card]:
    """The cards of a set as an ascending list."""
    listed = []
    while cards:  # lowest card first: take the lowest set bit off until none is left
        low = cards & -cards
        listed.append(low.bit_length() - 1)
        cards ^= low
    return listed


def popcount(cards: CardSet) -> int:
    """How many cards a set holds."""
    return cards.bit_count()


def lower_in_suit(card: Card) -> CardSet:
    """Every card of ``card``'s suit with a lower rank."""
    return ((1 << card) - 1) & SUIT_MASK[suit_of(card)]


def higher_in_suit(card: Card) -> CardSet:
    """Every card of ``card``'s suit with a higher rank."""
    return SUIT_MASK[suit_of(card)] & ~((1 << (card + 1)) - 1)


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as space-separated text."""
    return " ".join(card_text(c) for c in cards)
