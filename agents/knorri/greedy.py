"""``greedy``: a one-look-ahead heuristic for both phases, simple enough to compile.

A pure function of the seat's own cards and the trick: in phase 1 it takes the highest-ranked candidate; it opens
with its longest club run; following, it plays the cheapest card that beats the top card (a diamond costs 13 ranks
more) and picks up only when nothing beats; leading, it plays its cheapest card. The reasons for each rule are in
docs/internals.md, ``agents.knorri.greedy``.

``greedy_action`` is the whole policy; the compiled playouts carry the same rules, and a test checks that both
make the same choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.heuristic import HeuristicAgent
from sim.cards import DIAMONDS, CardSet, rank_of, suit_of
from sim.knorri.encoding import PICK_UP

GAME = "knorri"  # the game this agent is registered for


def card_cost(card: int) -> int:
    """How much greedy minds spending ``card``: its rank, plus 13 for a diamond (a trump)."""
    return rank_of(card) + (13 if suit_of(card) == DIAMONDS else 0)


def greedy_action(phase: int, hand: CardSet, top: int | None, opening: bool, legal: Sequence[int]) -> int:
    """Greedy's choice among ``legal`` (ascending ids) from its own cards and the trick's top card."""
    if phase == 1:
        return max(legal, key=lambda card: (rank_of(card), card))
    if opening:
        return legal[-1]
    if top is None:
        return min(legal, key=lambda card: (card_cost(card), card))
    beating = [card for card in legal if card != PICK_UP]
    if not beating:
        return PICK_UP
    return min(beating, key=lambda card: (card_cost(card), card))


class GreedyAgent(HeuristicAgent):
    """The greedy heuristic (see the module docstring); deterministic, so its seed is unused."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Greedy's choice from the observation's own hand and trick."""
        hand = 0
        for card in observation.hand:
            hand |= 1 << card
        return greedy_action(observation.phase, hand, observation.top_card, observation.opening, legal)


register("greedy", game=GAME)(GreedyAgent)
