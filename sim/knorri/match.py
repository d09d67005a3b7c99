"""Playing matches of Knorri between agents (one hand: ``sim.seating.play_with_agents``).

A match is 1, 3 or 5 hands (any count for research): the first hand opens at
seat 0, each later one at the seat after the last hand's loser; totals run on,
and a tie for the top total is a shared win.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sim.agent import Agent
from sim.errors import GameInputError
from sim.knorri.reference import KnorriHand, check_seats
from sim.rng import derive_seed
from sim.seating import play_with_agents


@dataclass
class MatchResult:
    """The hands of a match, each seat's running total and the winners (several on a tie)."""

    hands: list[KnorriHand] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)

    @property
    def winners(self) -> list[int]:
        """Every seat with the top total."""
        best = max(self.totals)
        return [seat for seat, total in enumerate(self.totals) if total == best]


def hand_seed(match_seed: int, hand_index: int) -> int:
    """The seed of hand ``hand_index`` of the match with ``match_seed``."""
    return derive_seed(match_seed, hand_index)


def play_match(n_seats: int, n_hands: int, seed: int, agents: Sequence[Agent]) -> MatchResult:
    """Play a match of ``n_hands`` hands dealt from ``seed``."""
    n_seats = check_seats(n_seats)
    if n_hands < 1:
        raise GameInputError(f"a match has at least one hand, not {n_hands}")
    result = MatchResult(totals=[0] * n_seats)
    first_seat = 0
    for index in range(n_hands):
        seed_i = hand_seed(seed, index)
        hand = play_with_agents(KnorriHand.from_seed(n_seats, seed_i, first_seat), agents, seed_i)
        result.hands.append(hand)
        result.totals = [t + s for t, s in zip(result.totals, hand.scores, strict=True)]
        first_seat = (hand.loser + 1) % n_seats
    return result
