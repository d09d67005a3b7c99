"""Knockout Whist's ``greedy``: a one-look heuristic from the seat's own cards and the trick on the table.

Every decision is a pure function of the observation: trumps by its longest suit, an exchange that throws away
low side cards, high side cards led and trumps kept to ruff with, the cheapest card that beats the trick when
following, and a dog that knocks unless its card wins. The rules in full are in docs/internals.md,
``agents.knockout_whist.greedy``. The engine's compiled greedy policy (``compiled.GREEDY``) makes the same
choices; it plays ``greedy`` seats (and search playouts) inside compiled code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.heuristic import HeuristicAgent
from sim.cards import rank_of, suit_of
from sim.knockout_whist.encoding import END_EXCHANGE, KNOCK, Phase, Status, trumps_action
from sim.knockout_whist.rules import card_beats

GAME = "knockout-whist"
EXCHANGE_BELOW = 6  # rank index of an 8: cards below it are thrown away in a card exchange


def card_cost(card: int, trumps: int) -> int:
    """How much greedy minds spending ``card``: its rank, plus 13 for a trump (``trumps`` 4: none)."""
    return rank_of(card) + (13 if suit_of(card) == trumps else 0)


def best_card(trick: Sequence[tuple[int, int]], trumps: int) -> int | None:
    """The card winning the trick so far (knocks set nothing), or None before a card is played."""
    best = None
    for _, action in trick:
        if action != KNOCK and (best is None or card_beats(action, best, trumps)):
            best = action
    return best


def choose_trumps(hand: Sequence[int]) -> int:
    """The action choosing its longest suit (ties: higher ranks, then higher suit id)."""
    def weight(suit: int) -> tuple[int, int, int]:
        cards = [card for card in hand if suit_of(card) == suit]
        return len(cards), sum(rank_of(card) for card in cards), suit

    return trumps_action(max(range(4), key=weight))


def exchange_pick(legal: Sequence[int], trumps: int | None) -> int:
    """The lowest non-trump card below an 8 still to throw away, or the end of the exchange."""
    throwable = [card for card in legal if card < KNOCK and rank_of(card) < EXCHANGE_BELOW
                 and not (trumps is not None and suit_of(card) == trumps)]
    return min(throwable, key=rank_of) if throwable else END_EXCHANGE


def lead_card(cards: Sequence[int], trumps: int) -> int:
    """Its highest non-trump card; the highest trump when it holds only trumps (ties: the higher id)."""
    side = [card for card in cards if suit_of(card) != trumps]
    return max(side or cards, key=lambda card: (rank_of(card), card))


def cheapest(cards: Sequence[int], trumps: int) -> int:
    """The cheapest of ``cards`` (ties: the lower id)."""
    return min(cards, key=lambda card: (card_cost(card, trumps), card))


def greedy_action(observation: Any, legal: Sequence[int]) -> int:
    """Greedy's choice among ``legal`` (ascending ids) from what the seat sees (see the module docstring)."""
    if len(legal) == 1:
        return legal[0]
    if observation.phase == Phase.CHOOSE:
        return choose_trumps(observation.hand)
    trumps = observation.trumps
    if observation.phase == Phase.EXCHANGE:
        return exchange_pick(legal, trumps)
    cards = [action for action in legal if action < KNOCK]
    best = best_card(observation.trick, trumps)
    if observation.status[observation.seat] == Status.DOG:
        return cards[0] if best is not None and card_beats(cards[0], best, trumps) else KNOCK
    if best is None:
        return lead_card(cards, trumps)
    winners = [card for card in cards if card_beats(card, best, trumps)]
    return cheapest(winners or cards, trumps)


class GreedyAgent(HeuristicAgent):
    """Knockout Whist's greedy heuristic (see the module docstring); deterministic, so its seed is unused."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Greedy's choice from the observation."""
        return greedy_action(observation, legal)


register("greedy", game=GAME)(GreedyAgent)
