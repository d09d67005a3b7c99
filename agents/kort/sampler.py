"""Hidden hands for one Kort seat, drawn uniformly among the deals consistent with what its tracker knows.

``HiddenHands`` reads, from a ``KortTracker`` and an observation, how many unseen cards each other seat holds and,
per seat and suit, the fewest and most cards of that suit it may hold. ``HandSampler`` draws the other seats'
hands **uniformly over the deals consistent with that knowledge** (their policies are not modelled), exactly
rather than by rejection; ``draw_hands`` is the compiled draw a compiled search calls. The bounds, the trump
choice's case and how the exact draw works are in docs/internals.md, ``agents.kort.sampler``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.deal_sampling import BINOMIAL, pool_by_suit, suit_splits
from agents.kort.tracker import KortTracker
from sim import config
from sim.cards import FULL_DECK, SUIT_MASK, CardSet, card_list, popcount, to_set
from sim.kort.compiled import below, refill, take_within_suits, uniform_float
from sim.kort.encoding import CARDS_EACH, FIRST_PACKET, NUM_SEATS, Phase

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
    def from_tracker(cls, tracker: KortTracker, observation: Any) -> HiddenHands:
        """Read the hidden hands from a tracker already updated with ``observation`` (the seat's own)."""
        seat = observation.seat
        own = to_set(observation.hand)
        if observation.phase == Phase.TRUMP:
            counts = tuple(FIRST_PACKET if s == observation.holder and s != seat else 0 for s in range(NUM_SEATS))
            return cls(seat, FULL_DECK & ~own, counts, (0,) * NUM_SEATS, ((0,) * 4,) * NUM_SEATS,
                       ((CARDS_EACH,) * 4,) * NUM_SEATS, True)
        known = tuple(0 if s == seat else tracker.known[s] for s in range(NUM_SEATS))
        pool = FULL_DECK & ~(own | tracker.played | reduce(or_, known))
        counts, low, high = [], [], []
        for s in range(NUM_SEATS):
            if s == seat:
                counts.append(0)
                low.append((0,) * 4)
                high.append((0,) * 4)
                continue
            counts.append(observation.card_counts[s] - popcount(known[s]))
            lows, highs = [], []
            for suit in range(4):
                room = popcount(tracker.possible(s) & SUIT_MASK[suit] & pool)
                fewest, most = 0, room
                if suit == tracker.trump:
                    in_known = popcount(known[s] & SUIT_MASK[suit])
                    lo, hi = tracker.trump_bounds(s)
                    fewest, most = max(0, lo - in_known), min(room, hi - in_known)
                lows.append(fewest)
                highs.append(most)
            low.append(tuple(lows))
            high.append(tuple(highs))
        return cls(seat, pool, tuple(counts), known, tuple(low), tuple(high), False)

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
    and their table of completion counts (``HandSampler.tables``, or ``compiled_tracker.hidden_hands``)."""

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

    ``tables`` are the kernel inputs of ``draw_hands`` (built once; a compiled search passes them on).
    """

    def __init__(self, hidden: HiddenHands) -> None:
        self.hidden = hidden
        by_suit, suit_size = pool_by_suit(hidden.pool)
        seats = [s for s in range(NUM_SEATS) if hidden.counts[s] > 0]
        seat_ids = np.array(seats, dtype=np.int64)
        counts = np.array([hidden.counts[s] for s in seats], dtype=np.int64)
        low = np.array([hidden.low[s] for s in seats], dtype=np.int64).reshape(len(seats), 4)
        high = np.array([hidden.high[s] for s in seats], dtype=np.int64).reshape(len(seats), 4)
        known = np.array(hidden.known, dtype=np.uint64)
        table, radix = completion_counts(suit_size, counts, low, high, BINOMIAL)
        if not hidden.undealt and table[0, int(suit_size @ radix)] <= 0:
            raise ValueError("no deal of the hidden cards fits what the seat knows")
        pool = np.array(card_list(hidden.pool), dtype=np.int64)
        self.tables = DealTables(by_suit, suit_size, seat_ids, counts, low, high, known, table, radix, BINOMIAL,
                                 np.int64(hidden.undealt), pool)

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
