"""A Knorri hand a seat cannot tell from the real one, its unseen cards drawn afresh (``LearningFacts.resample``).

Phase 1 hides only the order of the stock left (and later redeals); phase 2 hides
nothing (every pile is built from public captures), so the hand is copied as it is.
"""

from __future__ import annotations

import random

from sim.knorri.encoding import TABLE_SIZE
from sim.knorri.reference import KnorriHand
from sim.worlds import fresh_stream


def resample(hand: KnorriHand, seat: int, rng: random.Random) -> KnorriHand:
    """A copy of ``hand`` that ``seat`` cannot tell from it: the stock left shuffled from ``rng`` and later redeals
    from a fresh stream (every seat sees the same in Knorri, so ``seat`` changes nothing)."""
    twin = hand.clone()
    if hand.phase != 1:
        return twin  # phase 2 hides nothing, and deals nothing more
    rest = list(hand._stock[hand._turn:])
    rng.shuffle(rest)
    twin._stock = list(hand._stock[:hand._turn]) + rest
    twin.deck = list(hand.deck[:TABLE_SIZE]) + twin._stock
    twin._redeal_source = fresh_stream(rng)
    return twin
