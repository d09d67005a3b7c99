"""Deals of the cards one Knockout Whist seat cannot see, drawn uniformly among those consistent with what it knows.

What a seat knows is the *pool* of cards it has not seen, each seat's card count and the suits it showed it lacks:
``decision.hidden_cards`` reads it from the seat's tracker row into the ``DealTables`` a deal is drawn from
(``deal_tables``), and ``HiddenCards`` states it readably (for a test, or a hand-made case). ``DealSampler``
draws every other seat's hand and the stock's order, **uniformly over the deals consistent with that
knowledge** (the other seats' policies are not modelled), exactly rather than by rejection; ``draw_deal`` is the
compiled draw a compiled search calls. What a seat knows, the ``rainbow`` option's check and how the exact draw
works are in docs/internals.md, ``agents.knockout_whist.sampler``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.deal_sampling import BINOMIAL, suit_splits
from sim import config
from sim.cards import SUIT_MASK, CardSet, popcount, to_set
from sim.knockout_whist.compiled import (
    below,
    lowest_card,
    refill,
    take_within_suits,
    uniform_float,
)
from sim.knockout_whist.encoding import MAX_SEATS

ALL_SUITS = 0b1111
RAINBOW_TRIES = 10_000  # redraws before a deal breaking the rainbow rule is kept (never seen on a reachable position)
_SUIT_MASKS = np.array(SUIT_MASK, dtype=np.uint64)


@dataclass(frozen=True)
class HiddenCards:
    """What one seat knows of the cards it cannot see, at one moment of a hand.

    ``pool``: every card it cannot see. ``counts[s]``: the cards seat s holds (0 for the
    seat itself). ``voids[s]``: bit per suit that seat s cannot hold. ``stock_left``: the
    stock's cards still to draw (the rest of the pool, past the hands and the stock, are
    the other seats' thrown-away cards). ``rainbow_shown[s]``: for hand 4 with ``rainbow``
    (and no card exchange), the cards ordinary seat s has played this hand, whose dealt
    hand was no rainbow; None where there is nothing to check.
    """

    seat: int
    pool: CardSet
    counts: tuple[int, ...]
    voids: tuple[int, ...]
    stock_left: int
    rainbow_shown: tuple[CardSet | None, ...]

    @classmethod
    def from_tables(cls, tables: DealTables, seat: int, n_seats: int) -> HiddenCards:
        """What the ``DealTables`` a compiled search draws from say ``seat`` knows (``decision.hidden_cards``)."""
        pool = 0
        for suit in range(4):
            pool |= to_set(int(card) for card in tables.by_suit[suit, :tables.suit_size[suit]])
        counts, voids = [0] * n_seats, [0] * n_seats
        for s, count, allowed in zip(tables.seats, tables.seat_counts, tables.allowed_suits, strict=True):
            counts[s], voids[s] = int(count), ALL_SUITS & ~int(allowed)
        shown = tuple(int(tables.shown[s]) if int(tables.checked) >> s & 1 else None for s in range(n_seats))
        return cls(seat, pool, tuple(counts), tuple(voids), int(tables.stock_left), shown)

    def allowed(self, seat: int) -> CardSet:
        """The pool cards ``seat`` may hold."""
        return self.pool & ~sum(SUIT_MASK[suit] for suit in range(4) if self.voids[seat] >> suit & 1)

    def is_consistent(self, hands: list[CardSet]) -> bool:
        """Whether ``hands`` (one set per seat; the seat's own ignored) could be the other seats' hands now."""
        taken = 0
        for s, hand in enumerate(hands):
            if s == self.seat:
                continue
            if popcount(hand) != self.counts[s] or hand & ~self.allowed(s) or hand & taken:
                return False
            taken |= hand
            shown = self.rainbow_shown[s]
            if shown is not None and _is_rainbow(hand | shown):
                return False
        return True


def _is_rainbow(cards: CardSet) -> bool:
    return popcount(cards) == 4 and all(cards & mask for mask in SUIT_MASK)


class DealTables(NamedTuple):
    """What ``draw_deal`` draws a deal from: the pool laid out by suit (``lay_out_pool``), the hidden seats' counts
    and allowed suits, their table of completion counts, and the rainbow check (``deal_tables`` builds them)."""

    by_suit: np.ndarray  # int64[4, 13]: the pool's cards of each suit, ascending
    suit_size: np.ndarray  # int64[4]: how many of each suit
    seats: np.ndarray  # int64: the seats holding hidden cards, those with voids first
    seat_counts: np.ndarray  # int64: their hidden cards
    allowed_suits: np.ndarray  # int64: bit per suit each may hold
    n_constrained: np.int64  # how many of ``seats`` have voids
    table: np.ndarray  # float64: ``completion_counts``' table
    radix: np.ndarray  # int64[4]: its mixed radix
    stock_left: np.int64  # the stock's cards still to draw
    shown: np.ndarray  # uint64[MAX_SEATS]: the cards each seat played this hand
    checked: np.int64  # bit per seat whose dealt hand must be no rainbow (``HiddenCards.rainbow_shown``)
    binomial: np.ndarray  # float64: ``agents.deal_sampling.BINOMIAL``


class DealSampler:
    """Draws the other seats' hands and the stock's order uniformly among consistent deals (module docstring).

    ``tables`` are the kernel inputs of ``draw_deal`` (built once, as a compiled search builds its own).
    """

    def __init__(self, hidden: HiddenCards) -> None:
        self.hidden = hidden
        shown = np.zeros(MAX_SEATS, dtype=np.uint64)
        checked = 0
        for s, cards in enumerate(hidden.rainbow_shown):
            if cards is not None:
                shown[s], checked = cards, checked | 1 << s
        self.tables = deal_tables(np.uint64(hidden.pool), np.array(hidden.counts, dtype=np.int64),
                                  np.array(hidden.voids, dtype=np.int64), np.int64(hidden.stock_left), shown,
                                  np.int64(checked), BINOMIAL)
        table, suit_size, radix = self.tables.table, self.tables.suit_size, self.tables.radix
        if table[0, int(suit_size @ radix)] <= 0:
            raise ValueError("no deal of the hidden cards fits what the seat knows")

    def sample(self, rng: np.ndarray, stream: int = 0) -> tuple[list[CardSet], list[int]]:
        """One deal: every seat's hidden hand (the seat's own: 0) and the stock, top card first.

        ``rng`` is a uint64 array of splitmix64 states; ``rng[stream]`` is drawn from.
        """
        hands = np.zeros(MAX_SEATS, dtype=np.uint64)
        rest = np.zeros(52, dtype=np.int64)
        draw_deal(self.tables, rng, stream, hands, rest)
        n = len(self.hidden.counts)
        return [int(h) for h in hands[:n]], rest[:self.hidden.stock_left].tolist()


# ----- compiled ------------------------------------------------------------------------------------
@njit(**config.KERNEL)
def deal_tables(pool, counts, voids, stock_left, shown, checked, binomial):
    """The ``DealTables`` of a seat's hidden cards: ``pool`` (a card set) dealt to the seats by ``counts[s]``,
    none of the suits in ``voids[s]`` (bit per suit), ``stock_left`` of the rest to the stock, and no rainbow
    dealt to a seat in ``checked`` (bit per seat) given the cards it played, ``shown[s]``."""
    by_suit = np.zeros((4, 13), dtype=np.int64)
    suit_size = np.zeros(4, dtype=np.int64)
    seats = np.zeros(MAX_SEATS, dtype=np.int64)
    seat_counts = np.zeros(MAX_SEATS, dtype=np.int64)
    allowed_suits = np.zeros(MAX_SEATS, dtype=np.int64)
    holders, constrained = lay_out_pool(pool, counts, voids, by_suit, suit_size, seats, seat_counts, allowed_suits)
    seats, seat_counts, allowed_suits = seats[:holders], seat_counts[:holders], allowed_suits[:holders]
    table, radix = completion_counts(suit_size, seat_counts, allowed_suits, constrained, binomial)
    return DealTables(by_suit, suit_size, seats, seat_counts, allowed_suits, np.int64(constrained), table, radix,
                      np.int64(stock_left), shown, np.int64(checked), binomial)


@njit(**config.KERNEL)
def lay_out_pool(pool, counts, voids, by_suit, suit_size, seats, seat_counts, allowed_suits):
    """Lay the hidden cards out for ``completion_counts`` and ``draw_deal``; returns (holders, constrained seats).

    ``by_suit[suit, :suit_size[suit]]``: the pool's cards of each suit, ascending. The seats holding
    hidden cards (``counts[s] > 0``) go to ``seats``, those with voids first, each group in seat order,
    with their counts and allowed suits (``voids[s]``: bit per suit it cannot hold).
    """
    for suit in range(4):
        suit_size[suit] = 0
    rest = np.uint64(pool)
    while rest:
        card = lowest_card(rest)
        rest &= rest - np.uint64(1)
        suit = card // 13
        by_suit[suit, suit_size[suit]] = card
        suit_size[suit] += 1
    holders, constrained = 0, 0
    for with_voids in (True, False):
        for s in range(counts.shape[0]):
            if counts[s] > 0 and ((voids[s] & ALL_SUITS) != 0) == with_voids:
                seats[holders] = s
                seat_counts[holders] = counts[s]
                allowed_suits[holders] = ALL_SUITS & ~voids[s]
                holders += 1
        if with_voids:
            constrained = holders
    return holders, constrained


@njit(**config.KERNEL)
def completion_counts(suit_size, seat_counts, allowed_suits, n_constrained, binomial):
    """``table[i, r]``: the ways to deal constrained seats i.. from remaining per-suit counts r (mixed radix).

    Returns the table and the radix (``r = sum(r_suit * radix[suit])``). Only the counts a deal
    can reach are filled; past the last constrained seat every way counts 1 (the shuffle of the
    rest weighs every remaining count the same).
    """
    radix = np.ones(4, dtype=np.int64)
    for suit in range(1, 4):
        radix[suit] = radix[suit - 1] * (suit_size[suit - 1] + 1)
    box = radix[3] * (suit_size[3] + 1)
    table = np.zeros((n_constrained + 1, box))
    table[n_constrained, :] = 1.0
    stage_total = np.zeros(n_constrained + 1, dtype=np.int64)
    stage_total[0] = suit_size.sum()
    for i in range(n_constrained):
        stage_total[i + 1] = stage_total[i] - seat_counts[i]
    remaining = np.zeros(4, dtype=np.int64)
    low = np.zeros(4, dtype=np.int64)
    high = np.zeros(4, dtype=np.int64)
    for i in range(n_constrained - 1, -1, -1):
        _suit_bounds(seat_counts[i], allowed_suits[i], high)
        for state in range(box):
            remaining[0] = state % (suit_size[0] + 1)
            remaining[1] = state // radix[1] % (suit_size[1] + 1)
            remaining[2] = state // radix[2] % (suit_size[2] + 1)
            remaining[3] = state // radix[3]
            if remaining.sum() != stage_total[i]:
                continue
            table[i, state] = suit_splits(i, remaining, seat_counts[i], low, high, table, radix, binomial, -1.0)[0]
    return table, radix


@njit(**config.INLINED_KERNEL)
def _suit_bounds(count, allowed, high):
    """Write into ``high`` the most cards of each suit a seat allowed the suits in bitmask ``allowed`` may get."""
    for suit in range(4):
        high[suit] = count if allowed & (1 << suit) else 0


@njit(**config.KERNEL)
def draw_deal(tables, rng, stream, hands, rest):
    """Draw one consistent deal (module docstring) from ``rng[stream]`` and the ``DealTables``.

    Writes ``hands[s]`` (uint64 card sets, 0 for seats holding no hidden card) and ``rest``:
    the stock in draw order first (``stock_left`` cards), then the others' thrown-away cards.
    """
    seats, seat_counts, allowed_suits, table, radix = (tables.seats, tables.seat_counts, tables.allowed_suits,
                                                       tables.table, tables.radix)
    n_constrained = tables.n_constrained
    work = np.empty((4, 13), dtype=np.int64)
    left = np.empty(4, dtype=np.int64)
    split = np.empty(4, dtype=np.int64)
    low = np.zeros(4, dtype=np.int64)
    high = np.empty(4, dtype=np.int64)
    for _ in range(RAINBOW_TRIES):
        for s in range(hands.shape[0]):
            hands[s] = np.uint64(0)
        refill(tables.by_suit, tables.suit_size, work, left)
        for i in range(n_constrained):
            state = left[0] * radix[0] + left[1] * radix[1] + left[2] * radix[2] + left[3] * radix[3]
            target = uniform_float(rng, stream) * table[i, state]
            _suit_bounds(seat_counts[i], allowed_suits[i], high)
            _, x0, x1, x2 = suit_splits(i, left, seat_counts[i], low, high, table, radix, tables.binomial, target)
            split[0], split[1], split[2] = x0, x1, x2
            split[3] = seat_counts[i] - x0 - x1 - x2
            hands[seats[i]] = take_within_suits(split, work, left, rng, stream)
        total = 0
        for suit in range(4):
            for k in range(left[suit]):
                rest[total] = work[suit, k]
                total += 1
        for k in range(total - 1, 0, -1):
            j = below(rng, stream, k + 1)
            rest[k], rest[j] = rest[j], rest[k]
        taken = 0
        for i in range(n_constrained, seats.shape[0]):
            hand = np.uint64(0)
            for _k in range(seat_counts[i]):
                hand |= np.uint64(1) << np.uint64(rest[taken])
                taken += 1
            hands[seats[i]] = hand
        for k in range(total - taken):
            rest[k] = rest[taken + k]
        if _no_rainbow_dealt(hands, tables.shown, tables.checked, _SUIT_MASKS):
            return


@njit(**config.INLINED_KERNEL)
def _no_rainbow_dealt(hands, shown, checked, suit_masks):
    """Whether no checked seat's cards (its hand and those it played this hand) are one of each suit."""
    for s in range(shown.shape[0]):
        if not (checked >> s) & 1:
            continue
        cards = hands[s] | shown[s]
        suits, count = 0, 0
        for suit in range(4):
            if cards & suit_masks[suit]:
                suits |= 1 << suit
        while cards:
            cards &= cards - np.uint64(1)
            count += 1
        if count == 4 and suits == ALL_SUITS:
            return False
    return True
