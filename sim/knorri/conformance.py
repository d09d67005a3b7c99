"""The conformance protocol: play the seeded random hand and summarise it as one line.

Two engines that print the same line for a seed dealt the same cards, offered
the same legal actions at every decision and reached the same result.
"""

from __future__ import annotations

import zlib

from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64


def play_protocol_hand(n_seats: int, seed: int, first_seat: int) -> KnorriHand:
    """The hand for ``seed`` with every decision taken as ``legal[next() % len(legal)]``."""
    rng = SplitMix64(seed)
    hand = KnorriHand(n_seats, rng.shuffled_deck(), first_seat, redeal=rng.shuffled_deck)
    while not hand.done:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def protocol_line(seed: int, redeals: int, reason: str, phase2_actions: int,
                  scores: list[int], decisions: bytes | list[int]) -> str:
    """``seed redeals reason phase2_actions score_0 … score_{n-1} decisions crc32``."""
    data = bytes(decisions)
    fields = [seed, redeals, reason, phase2_actions, *scores, len(data), zlib.crc32(data)]
    return " ".join(str(f) for f in fields)


def reference_line(n_seats: int, seed: int, first_seat: int) -> str:
    """The protocol line of the reference engine for one seed."""
    hand = play_protocol_hand(n_seats, seed, first_seat)
    return protocol_line(seed, hand.redeals, hand.end_reason.value, hand.phase2_actions,
                         hand.scores, hand.decisions)
