"""What the exact deal samplers share in Python: the hidden pool laid out by suit, and binomials.

Knockout Whist's and Kort's samplers draw, seat by seat, how many cards of each suit a
seat gets (from a table of completion counts each builds its own way), then which cards:
a uniform choice within each suit. The compiled steps of that draw (``uniform_float``,
``refill``, ``take_within_suits``) are the engines' stream helpers, taken from each game's
compiled module; the pool's layout and the binomial table are the same in both and live here.
"""

from __future__ import annotations

import math

import numpy as np

from sim.cards import CardSet, card_list

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
