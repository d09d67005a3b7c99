"""Worlds a seat cannot tell from the real one: the shared part of each game's draw of its unseen cards.

A game's ``worlds.py`` (``sim/<game>/worlds.py``) says what its seats do not see and
returns a copy of a reference game with those cards dealt afresh and every later deck
from a fresh stream; its adapter hands that function to the RL interfaces as
``LearningFacts.resample``, which OpenSpiel's ``resample_from_infostate`` (and so its
ISMCTS) calls. What is shared lives here: placing unseen cards into hands of given
sizes that avoid the suits a seat showed it lacks, the voids read from the tricks, the
log since a deal began, and the fresh stream of later decks.

The draw is by rejection (uniform shuffles until one fits). If none fits within
``REJECTION_TRIES`` shuffles (hands late in a deal with several voids), the cards are
placed by a matching that always fits, consistent but not exactly uniform.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sim.cards import bit, suit_of, to_set
from sim.rng import SplitMix64

REJECTION_TRIES = 2000
"""Uniform shuffles tried before the unseen cards are placed by matching instead."""

ALL_SUITS = 0b1111


def fresh_stream(rng: random.Random) -> Callable[[], list[int]]:
    """A deck source for every later deal, seeded from ``rng``."""
    return SplitMix64(rng.getrandbits(64)).shuffled_deck


# ----- placing unseen cards ------------------------------------------------------------------


def place_cards(cards: Sequence[int], capacities: Sequence[int], allowed: Sequence[int], rng: random.Random,
                accept: Callable[[list[int]], bool] | None = None, tries: int = REJECTION_TRIES) -> list[int]:
    """Deal ``cards`` into places of the given sizes (which add up to their number), a place taking only cards of
    the suits in its ``allowed`` mask (bit s: suit s); returns each place's card set. Uniform over the fits (and
    over those ``accept`` takes) by rejection over ``tries`` shuffles, then by matching (fitting the suits, not
    uniform, and not asked of ``accept``) if rejection runs out."""
    pool = list(cards)
    assert sum(capacities) == len(pool)
    for _ in range(tries):
        rng.shuffle(pool)
        sets, start = [], 0
        for size, suits in zip(capacities, allowed, strict=True):
            chunk = pool[start:start + size]
            start += size
            if suits != ALL_SUITS and any(not suits >> suit_of(card) & 1 for card in chunk):
                break
            sets.append(to_set(chunk))
        else:
            if accept is None or accept(sets):
                return sets
    return _place_by_matching(pool, capacities, allowed, rng)


def _place_by_matching(cards: list[int], capacities: Sequence[int], allowed: Sequence[int],
                       rng: random.Random) -> list[int]:
    """Cards into places by augmenting paths over the places' free slots (a fit exists: the true deal is one)."""
    slots = [place for place, size in enumerate(capacities) for _ in range(size)]
    holder: list[int | None] = [None] * len(slots)  # slot -> index into cards
    order = list(range(len(cards)))
    rng.shuffle(order)

    def fits(card_index: int, slot: int) -> bool:
        return bool(allowed[slots[slot]] >> suit_of(cards[card_index]) & 1)

    def augment(card_index: int, seen: set[int]) -> bool:
        candidates = [slot for slot in range(len(slots)) if slot not in seen and fits(card_index, slot)]
        rng.shuffle(candidates)
        for slot in candidates:
            seen.add(slot)
            if holder[slot] is None or augment(holder[slot], seen):
                holder[slot] = card_index
                return True
        return False

    for card_index in order:
        if not augment(card_index, set()):
            raise ValueError("the unseen cards fit no deal consistent with the observation")
    sets = [0] * len(capacities)
    for slot, card_index in enumerate(holder):
        sets[slots[slot]] |= bit(cards[card_index])
    return sets


def suit_voids(tricks: Sequence[Sequence[tuple[int, int]]], exempt: Callable[[int], bool] = lambda seat: False,
               skip: int | None = None) -> dict[int, int]:
    """For each seat, the mask of suits it has shown it lacks: a led suit it did not follow (``skip``: an action
    that is no card and leads nothing, a dog's knock)."""
    voids: dict[int, int] = {}
    for plays in tricks:
        cards = [(seat, action) for seat, action in plays if action != skip]
        if not cards:
            continue
        led = suit_of(cards[0][1])
        for seat, card in cards[1:]:
            if suit_of(card) != led and not exempt(seat):
                voids[seat] = voids.get(seat, 0) | 1 << led
    return voids


def events_since(log: Sequence[dict], start: Callable[[dict], bool]) -> list[dict]:
    """The log's events from the last one ``start`` takes on."""
    for index in range(len(log) - 1, -1, -1):
        if start(log[index]):
            return list(log[index:])
    return list(log)
