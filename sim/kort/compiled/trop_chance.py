"""The chance that Trop to the end succeeds, for the engine's compiled greedy policy and the Python ``greedy``.

Compiled with numba and allocating nothing, so that playouts can call it as well as the
Python ``greedy``: one implementation for both.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim import config

BINOMIAL = np.array([[math.comb(n, k) for k in range(14)] for n in range(40)], dtype=np.float64)
OTHER_CARDS = 39  # the cards of the three other seats (13 each)
ONE = np.uint64(1)
NONE = np.uint64(0)


@njit(**config.INLINED_KERNEL)
def count_cards(cards):
    """How many cards a uint64 card set holds."""
    count = 0
    while cards != NONE:
        cards &= cards - ONE
        count += 1
    return count


@njit(**config.INLINED_KERNEL)
def _kth_highest(ranks, k):
    """The k-th highest (from 1) of the ranks in a 13-bit set."""
    for rank in range(12, -1, -1):
        if ranks >> rank & 1:
            k -= 1
            if k == 0:
                return rank
    return -1


@njit(**config.KERNEL)
def trop_to_end_chance(trump_ranks: int) -> float:
    """The chance that Trop to the end succeeds for a leader whose trumps have these ranks (bit r: rank r).

    The leader leads its trumps from the highest down; each opponent plays its lowest
    trump and keeps its highest, so an opponent holding k trumps breaks the Trop when
    its highest outranks the leader's k-th highest; the partner never overtakes. Every
    split of the outside trumps among the three other hands (13 cards each) is weighed by
    its exact probability. (Allocates nothing, so compiled playouts may call it.)
    """
    n_out = 13 - count_cards(np.uint64(trump_ranks))
    others = OTHER_CARDS - n_out
    total_ways = BINOMIAL[OTHER_CARDS, 13] * BINOMIAL[OTHER_CARDS - 13, 13]
    chance = 0.0
    for code in range(3 ** n_out):  # base-3 digit k: who holds the k-th outside trump (0 the partner, 1, 2 opponents)
        rest = code
        held0, held1, held2, top1, top2 = 0, 0, 0, -1, -1
        for rank in range(12, -1, -1):
            if trump_ranks >> rank & 1:
                continue
            seat = rest % 3
            rest //= 3
            if seat == 0:
                held0 += 1
            elif seat == 1:
                held1 += 1
                top1 = max(top1, rank)
            else:
                held2 += 1
                top2 = max(top2, rank)
        if held0 > 13 or held1 > 13 or held2 > 13:
            continue
        if held1 > 0 and top1 > _kth_highest(trump_ranks, held1):
            continue
        if held2 > 0 and top2 > _kth_highest(trump_ranks, held2):
            continue
        chance += BINOMIAL[others, 13 - held0] * BINOMIAL[others - 13 + held0, 13 - held1]
    return chance / total_ways
