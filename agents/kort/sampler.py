"""Hidden hands for one Kort seat, drawn uniformly among the deals consistent with what its tracker knows.

``HiddenHands`` reads, from a ``KortTracker`` and an observation, how many unseen cards each other seat holds and,
per seat and suit, the fewest and most cards of that suit it may hold. ``HandSampler`` draws the other seats'
hands **uniformly over the deals consistent with that knowledge** (their policies are not modelled), exactly
rather than by rejection; ``draw_hands`` is the compiled draw a compiled search calls. The bounds, the trump
choice's case and how the exact draw works are in docs/internals.md, ``agents.kort.sampler``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.deal_sampling import BINOMIAL, suit_splits
from sim import config
from sim.cards import SUIT_MASK, CardSet, popcount, to_set
from sim.kort.compiled import below, refill, take_within_suits, uniform_float
from sim.kort.compiled import popcount as count_cards
from sim.kort.encoding import FIRST_PACKET, NUM_SEATS

UNDEALT = 52 - FIRST_PACKET  # the cards still in the deck while the holder chooses trumps


@dataclass(frozen=True)
class HiddenHands:
    """What one seat knows of the cards it cannot see, at one moment of a deal.

    ``pool``: the cards in the other seats' hands that no one has shown (or, while the
    holder chooses trumps, every card the seat cannot see: the holder's five if it is
    another seat's, and the 47 undealt). ``counts[s]``: seat s's pool cards (0 for the
    seat itself). ``known[s]``: the cards everyone knows seat s holds. ``low[s][suit]``
    and ``high[s][suit]``: the fewest and most pool cards of ``suit`` seat s may hold.
    ``undealt``: whether the pool holds the undealt deck (the holder choosing trumps).
    """

    seat: int
    pool: CardSet
    counts: tuple[int, ...]
    known: tuple[CardSet, ...]
    low: tuple[tuple[int, ...], ...]
    high: tuple[tuple[int, ...], ...]
    undealt: bool

    @classmethod
    def from_tables(cls, tables: DealTables, seat: int) -> HiddenHands:
        """What the ``DealTables`` a compiled search draws from say ``seat`` knows (``compiled_tracker.hidden_hands``);
        a seat holding no pool card has bounds of 0."""
        counts, low, high = [0] * NUM_SEATS, [(0,) * 4] * NUM_SEATS, [(0,) * 4] * NUM_SEATS
        for i, s in enumerate(tables.seats.tolist()):
            counts[s], low[s], high[s] = int(tables.counts[i]), tuple(tables.low[i].tolist()), tuple(
                tables.high[i].tolist())
        return cls(seat, to_set(tables.pool.tolist()), tuple(counts), tuple(int(k) for k in tables.known),
                   tuple(low), tuple(high), bool(tables.undealt))

    def is_consistent(self, hands: list[CardSet]) -> bool:
        """Whether ``hands`` (one set per seat; the seat's own ignored) could be the other seats' hands now."""
        taken = 0
        for s, hand in enumerate(hands):
            if s == self.seat:
                continue
            hidden = hand & ~self.known[s]
            if hand & self.known[s] != self.known[s] or hidden & ~self.pool or hidden & taken:
                return False
            if popcount(hidden) != self.counts[s]:
                return False
            for suit in range(4):
                if not self.low[s][suit] <= popcount(hidden & SUIT_MASK[suit]) <= self.high[s][suit]:
                    return False
            taken |= hidden
        return True


class DealTables(NamedTuple):
    """What ``draw_hands`` draws a deal from: the pool laid out by suit, the hidden seats' counts and suit bounds,
    and their table of completion counts (``deal_tables`` builds them)."""

    by_suit: np.ndarray  # int64[4, 13]: the pool's cards of each suit, ascending
    suit_size: np.ndarray  # int64[4]: how many of each suit
    seats: np.ndarray  # int64: the seats holding pool cards
    counts: np.ndarray  # int64: their pool cards
    low: np.ndarray  # int64[seats, 4]: the fewest cards of each suit each may hold
    high: np.ndarray  # int64[seats, 4]: the most
    known: np.ndarray  # uint64[4]: the cards everyone knows each seat holds
    table: np.ndarray  # float64: ``completion_counts``' table
    radix: np.ndarray  # int64[4]: its mixed radix
    binomial: np.ndarray  # float64: ``agents.deal_sampling.BINOMIAL``
    undealt: np.int64  # 1 while the holder chooses trumps: the pool is the undealt deck, shuffled
    pool: np.ndarray  # int64: the pool's cards, ascending


class HandSampler:
    """Draws the other seats' hands uniformly among consistent deals (module docstring).

    ``tables`` are the kernel inputs of ``draw_hands`` (built once, as a compiled search builds its own).
    """

    def __init__(self, hidden: HiddenHands) -> None:
        self.hidden = hidden
        self.tables = deal_tables(np.uint64(hidden.pool), np.array(hidden.counts, dtype=np.int64),
                                  np.array(hidden.known, dtype=np.uint64), np.array(hidden.low, dtype=np.int64),
                                  np.array(hidden.high, dtype=np.int64), np.int64(hidden.undealt), BINOMIAL)
        table, suit_size, radix = self.tables.table, self.tables.suit_size, self.tables.radix
        if not hidden.undealt and table[0, int(suit_size @ radix)] <= 0:
            raise ValueError("no deal of the hidden cards fits what the seat knows")

    def sample(self, rng: np.ndarray, stream: int = 0) -> tuple[list[CardSet], list[int]]:
        """One deal: every seat's hand (the seat's own: 0) and the undealt cards in deal order (empty once dealt).

        ``rng`` is a uint64 array of splitmix64 states; ``rng[stream]`` is drawn from.
        """
        hands = np.zeros(NUM_SEATS, dtype=np.uint64)
        undealt = np.zeros(UNDEALT, dtype=np.int64)
        draw_hands(self.tables, rng, stream, hands, undealt)
        return [int(hand) for hand in hands], undealt.tolist() if self.hidden.undealt else []


# ----- compiled ------------------------------------------------------------------------------------
@njit(**config.KERNEL)
def deal_tables(pool, counts, known, low, high, undealt, binomial):
    """The ``DealTables`` of a seat's hidden cards: ``pool`` (a card set) dealt to the seats by ``counts[s]``, with
    ``low[s, suit]`` to ``high[s, suit]`` cards of each suit, beside the cards ``known[s]`` everyone knows seat s
    holds; with ``undealt`` (the holder choosing trumps) the pool is shuffled whole instead."""
    holders = 0
    for s in range(NUM_SEATS):
        holders += 1 if counts[s] > 0 else 0
    seats = np.zeros(holders, dtype=np.int64)
    seat_counts = np.zeros(holders, dtype=np.int64)
    seat_low = np.zeros((holders, 4), dtype=np.int64)
    seat_high = np.zeros((holders, 4), dtype=np.int64)
    i = 0
    for s in range(NUM_SEATS):
        if counts[s] > 0:
            seats[i], seat_counts[i] = s, counts[s]
            for suit in range(4):
                seat_low[i, suit], seat_high[i, suit] = low[s, suit], high[s, suit]
            i += 1
    by_suit = np.zeros((4, 13), dtype=np.int64)
    suit_size = np.zeros(4, dtype=np.int64)
    pool_cards = np.zeros(count_cards(pool), dtype=np.int64)
    k = 0
    for card in range(52):
        if pool >> np.uint64(card) & np.uint64(1):
            by_suit[card // 13, suit_size[card // 13]] = card
            suit_size[card // 13] += 1
            pool_cards[k] = card
            k += 1
    table, radix = completion_counts(suit_size, seat_counts, seat_low, seat_high, binomial)
    return DealTables(by_suit, suit_size, seats, seat_counts, seat_low, seat_high, known, table, radix, binomial,
                      np.int64(undealt), pool_cards)


@njit(**config.KERNEL)
def completion_counts(suit_size, counts, low, high, binomial):
    """``table[i, r]``: the ways to deal seats i.. (of ``counts``) from remaining per-suit counts r (mixed radix).

    Returns the table and the radix (``r = sum(r_suit * radix[suit])``). Past the last seat
    only the empty remainder counts (1): the pool is exactly the seats' hidden cards.
    """
    radix = np.ones(4, dtype=np.int64)
    for suit in range(1, 4):
        radix[suit] = radix[suit - 1] * (suit_size[suit - 1] + 1)
    box = radix[3] * (suit_size[3] + 1)
    n = counts.shape[0]
    table = np.zeros((n + 1, box))
    table[n, 0] = 1.0
    stage_total = np.zeros(n + 1, dtype=np.int64)
    stage_total[0] = suit_size.sum()
    for i in range(n):
        stage_total[i + 1] = stage_total[i] - counts[i]
    remaining = np.zeros(4, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        for state in range(box):
            total = 0
            for suit in range(4):
                remaining[suit] = state // radix[suit] % (suit_size[suit] + 1)
                total += remaining[suit]
            if total != stage_total[i]:
                continue
            table[i, state] = suit_splits(i, remaining, counts[i], low[i], high[i], table, radix, binomial, -1.0)[0]
    return table, radix


@njit(**config.KERNEL)
def draw_hands(tables, rng, stream, hands, rest):
    """Draw one consistent deal (module docstring) from ``rng[stream]`` and the ``DealTables``.

    Writes ``hands[s]`` (uint64 card sets: the drawn cards and those known to be there; 0 for
    the observing seat) or, while the holder chooses trumps, ``rest``: the undealt cards in
    deal order.
    """
    seats, counts, table, radix = tables.seats, tables.counts, tables.table, tables.radix
    if tables.undealt:  # a uniform shuffle of the pool: the holder's five when hidden, then the deck's undealt cards
        order = tables.pool.copy()
        for k in range(order.shape[0] - 1, 0, -1):
            j = below(rng, stream, k + 1)
            order[k], order[j] = order[j], order[k]
        start = 0
        for i in range(seats.shape[0]):
            hand = np.uint64(0)
            for k in range(start, start + counts[i]):
                hand |= np.uint64(1) << np.uint64(order[k])
            hands[seats[i]] = hand
            start += counts[i]
        for k in range(rest.shape[0]):
            rest[k] = order[start + k]
        return
    work = np.empty((4, 13), dtype=np.int64)
    left = np.empty(4, dtype=np.int64)
    split = np.empty(4, dtype=np.int64)
    for s in range(hands.shape[0]):
        hands[s] = tables.known[s]
    refill(tables.by_suit, tables.suit_size, work, left)
    for i in range(seats.shape[0]):
        state = left[0] * radix[0] + left[1] * radix[1] + left[2] * radix[2] + left[3] * radix[3]
        target = uniform_float(rng, stream) * table[i, state]
        _, x0, x1, x2 = suit_splits(i, left, counts[i], tables.low[i], tables.high[i], table, radix,
                                    tables.binomial, target)
        split[0], split[1], split[2] = x0, x1, x2
        split[3] = counts[i] - x0 - x1 - x2
        hands[seats[i]] |= take_within_suits(split, work, left, rng, stream)
