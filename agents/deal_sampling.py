"""What the exact deal samplers share: the hidden pool sorted by suit, binomials, and drawing cards within suits.

Knockout Whist's and Kort's samplers draw, seat by seat, how many cards of each suit a
seat gets (from a table of completion counts each builds its own way), then which cards:
a uniform choice within each suit. That last step, the uniform float a draw is made
from and the layout of the pool are the same in both and live here; the compiled ones
are inlined into each sampler's kernels (which list this file with their engine files).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim import config, fast_bits
from sim.cards import CardSet, card_list
from sim.fast_bits import below, next_u64

config.drop_stale_cache(__file__, [fast_bits.__file__, config.__file__])  # the kernels inline the stream functions

BINOMIAL = np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], dtype=np.float64)
"""``BINOMIAL[n, k]``: the ways to choose k of n cards of one suit."""


def pool_by_suit(pool: CardSet) -> tuple[np.ndarray, np.ndarray]:
    """The pool's cards as ``by_suit[suit, :suit_size[suit]]`` (ascending within each suit) and ``suit_size``."""
    by_suit = np.zeros((4, 13), dtype=np.int64)
    suit_size = np.zeros(4, dtype=np.int64)
    for card in card_list(pool):
        suit = card // 13
        by_suit[suit, suit_size[suit]] = card
        suit_size[suit] += 1
    return by_suit, suit_size


@njit(**config.INLINED_KERNEL)
def uniform_float(rng, stream):
    """A uniform float in [0, 1) from 53 bits of ``rng[stream]``."""
    return (next_u64(rng, stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**config.INLINED_KERNEL)
def take_within_suits(split, work, left, rng, stream):
    """``split[suit]`` uniformly chosen cards of each suit from ``work[suit, :left[suit]]``, as a card set.

    The chosen cards move to the end of each suit's live part (a partial shuffle) and ``left`` shrinks.
    """
    hand = np.uint64(0)
    for suit in range(4):
        for _k in range(split[suit]):  # a uniform choice within the suit: the last slots of a partial shuffle
            j = below(rng, stream, left[suit])
            left[suit] -= 1
            card = work[suit, j]
            work[suit, j] = work[suit, left[suit]]
            work[suit, left[suit]] = card
            hand |= np.uint64(1) << np.uint64(card)
    return hand


@njit(**config.INLINED_KERNEL)
def refill(by_suit, suit_size, work, left):
    """Put the whole pool back into ``work`` (suit by suit, as ``by_suit``) with ``left`` its suit sizes."""
    for suit in range(4):
        left[suit] = suit_size[suit]
        for k in range(suit_size[suit]):
            work[suit, k] = by_suit[suit, k]
