"""What the exact deal samplers share: the binomials, and the sum over one seat's suit splits.

Knockout Whist's and Kort's samplers draw, seat by seat, how many cards of each suit a
seat gets (from a table of completion counts each builds its own way), then which cards:
a uniform choice within each suit. The compiled steps of that draw (``uniform_float``,
``refill``, ``take_within_suits``) are the engines' stream helpers, taken from each game's
compiled module; the binomial table and the sum over one seat's suit splits (``suit_splits``) are the same in
both and live here.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim import config

BINOMIAL = config.read_only(np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], dtype=np.float64))
"""``BINOMIAL[n, k]``: the ways to choose k of n cards of one suit (read-only: the form kernels see it in)."""


@njit(**config.INLINED_KERNEL)
def suit_splits(i, remaining, count, low, high, table, radix, binomial, target):
    """Sum the weights of every split of ``count`` cards over the suits (``remaining[suit]`` left in each), each
    suit's share within ``low[suit] .. high[suit]``; ``table[i + 1]`` holds the completions after seat ``i``.

    A split's weight is its ways to choose the cards times the completions after it. With
    ``target`` >= 0 it also returns the first split whose running sum passes ``target``
    (the draw), as (sum, x0, x1, x2); x3 is the rest of ``count``.
    """
    total = 0.0
    pick0, pick1, pick2 = -1, -1, -1
    picked = False
    state = 0
    for suit in range(4):
        state += remaining[suit] * radix[suit]
    for x0 in range(low[0], min(high[0], remaining[0], count) + 1):
        for x1 in range(low[1], min(high[1], remaining[1], count - x0) + 1):
            for x2 in range(low[2], min(high[2], remaining[2], count - x0 - x1) + 1):
                x3 = count - x0 - x1 - x2
                if x3 < low[3] or x3 > high[3] or x3 > remaining[3]:
                    continue
                after = table[i + 1, state - x0 * radix[0] - x1 * radix[1] - x2 * radix[2] - x3 * radix[3]]
                weight = (binomial[remaining[0], x0] * binomial[remaining[1], x1] * binomial[remaining[2], x2]
                          * binomial[remaining[3], x3] * after)
                if weight <= 0.0:
                    continue
                total += weight
                if target >= 0.0 and not picked:  # the latest split until the sum passes target (rounding-safe)
                    pick0, pick1, pick2 = x0, x1, x2
                    picked = total > target
    return total, pick0, pick1, pick2
