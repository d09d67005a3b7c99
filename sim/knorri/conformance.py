"""The conformance protocol: play the seeded random hand and summarise it as one line.

Two engines that print the same line for a seed dealt the same cards, offered
the same legal actions at every decision and reached the same result.
"""

from __future__ import annotations

import zlib

from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64


def play_protocol_hand(n_seats: int, seed: int, first_seat: int, *, cap: int = MAX_PHASE2_ACTIONS,
                       repeat: int = DEFAULT_REPEAT) -> KnorriHand:
    """The hand for ``seed`` with every decision taken as ``legal[next() % len(legal)]``, under the cut-off
    options ``cap`` and ``repeat``."""
    rng = SplitMix64(seed)
    hand = KnorriHand(n_seats, rng.shuffled_deck(), first_seat, redeal=rng.shuffled_deck, cap=cap, repeat=repeat)
    while not hand.done:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def protocol_line(seed: int, redeals: int, reason: str, phase2_actions: int,
                  scores: list[int], decisions: bytes | list[int]) -> str:
    """``seed redeals reason phase2_actions score_0 … score_{n-1} decisions crc32``."""
    data = bytes(decisions)
    fields = [seed, redeals, reason, phase2_actions, *scores, len(data), zlib.crc32(data)]
    return " ".join(str(f) for f in fields)


def reference_line(n_seats: int, seed: int, first_seat: int, *, cap: int = MAX_PHASE2_ACTIONS,
                   repeat: int = DEFAULT_REPEAT) -> str:
    """The protocol line of the reference engine for one seed (under the cut-off options, if given)."""
    hand = play_protocol_hand(n_seats, seed, first_seat, cap=cap, repeat=repeat)
    return protocol_line(seed, hand.redeals, hand.end_reason.value, hand.phase2_actions,
                         hand.scores, hand.decisions)
