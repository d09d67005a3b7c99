"""Kort's ``greedy``: a one-look heuristic for every decision, playing for its team.

Every choice is a pure function of the ``Table`` a seat sees (its own cards, the trick, trumps, its team's lead
state, tricks and wins); it remembers nothing. A card's *cost* is its rank, plus 13 for a trump: cheap cards are
thrown first, trumps last. It names the trump suit it holds most of, redeals a hand without face cards unless it
is strong anyway (``redeal=never`` keeps every deal), leads by a fixed order of preferences, declares Trop to the
end when it is likely to succeed, never overtakes its partner, and says yes to Bavan only with near certainty.
Each rule and why is in docs/internals.md, ``agents.kort.greedy``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.heuristic import HeuristicAgent
from agents.kort.view import Table
from sim.cards import SUIT_MASK, CardSet, card_list, popcount, rank_of, suit_of
from sim.kort.compiled import (  # greedy's thresholds: the engine's compiled greedy policy makes the same choices
    ACE,
    DRAW_TRUMPS_FROM,
    KING,
    REDEAL_UNLESS_ACES,
    REDEAL_UNLESS_TRUMPS,
    TROP_FROM,
    TROP_TO_END_CHANCE,
    trop_to_end_chance,
)
from sim.kort.encoding import (
    BAVAN_NO,
    BAVAN_YES,
    REDEAL,
    RESULT_WINS,
    SAR,
    TROP,
    TROP_TO_END,
    TRUMP_BASE,
    Phase,
    Result,
)
from sim.kort.rules import FACE_CARDS, card_beats, team_of

GAME = "kort"
FACES = frozenset(card_list(FACE_CARDS))
REDEAL_RULES = ("auto", "never")  # greedy's redeal rule: redeal a weak faceless hand, or never


def card_cost(card: int, trump: int | None) -> int:
    """How much greedy minds spending ``card``: its rank, plus 13 for a trump."""
    return rank_of(card) + (13 if suit_of(card) == trump else 0)


def cheapest(cards: Sequence[int], trump: int | None) -> int:
    """The cheapest of ``cards`` (ties: the lower id)."""
    return min(cards, key=lambda card: (card_cost(card, trump), card))


def highest(cards: Sequence[int]) -> int:
    """The highest-ranked of ``cards`` (ties: the higher id)."""
    return max(cards, key=lambda card: (rank_of(card), card))


def suit_cards(hand: CardSet, suit: int) -> list[int]:
    """The cards of ``suit`` in ``hand``, ascending."""
    return card_list(hand & SUIT_MASK[suit])


def trumps_of(hand: CardSet, trump: int | None) -> list[int]:
    """The trumps in ``hand`` (none while trumps are unknown)."""
    return [] if trump is None else suit_cards(hand, trump)


def holds_a_top_trump(hand: CardSet, trump: int) -> bool:
    """Whether ``hand`` holds the ace or king of trumps."""
    return any(rank_of(card) >= KING for card in trumps_of(hand, trump))


# ----- trumps and redeal --------------------------------------------------------------------------


def choose_trump(hand: CardSet) -> int:
    """The action naming the suit it holds most of (ties: the higher ranks, then the higher suit); never "13"."""
    def weight(suit: int) -> tuple[int, int, int]:
        cards = suit_cards(hand, suit)
        return len(cards), sum(rank_of(card) for card in cards), suit

    return TRUMP_BASE + max(range(4), key=weight)


def wants_redeal(hand: CardSet, trump: int) -> bool:
    """Whether a faceless holder's hand is weak enough to redeal: fewer than 5 trumps and fewer than 3 aces."""
    aces = sum(1 for card in card_list(hand) if rank_of(card) == ACE)
    return len(trumps_of(hand, trump)) < REDEAL_UNLESS_TRUMPS and aces < REDEAL_UNLESS_ACES and not hand & FACE_CARDS


# ----- declarations ----------------------------------------------------------------------------------


def declaration(table: Table, legal: Sequence[int]) -> int:
    """Sar, Trop or Trop to the end after a trump lead (module docstring); ``table.hand`` lacks the led card."""
    trump = table.trump
    held = trumps_of(table.hand, trump) + [card for seat, card in table.trick if seat == table.seat]
    if TROP_TO_END in legal and trop_to_end_chance(sum(1 << rank_of(card) for card in held)) >= TROP_TO_END_CHANCE:
        return TROP_TO_END
    if len(held) >= TROP_FROM and any(rank_of(card) >= KING for card in held):
        return TROP
    return SAR


# ----- leads and follows ------------------------------------------------------------------------------


def lead_card(table: Table, cards: Sequence[int]) -> int:
    """Greedy's lead among the legal ``cards`` (module docstring)."""
    trump, hand = table.trump, table.hand
    trumps = [card for card in cards if suit_of(card) == trump]
    side = [card for card in cards if suit_of(card) != trump]
    if not side:
        return highest(trumps)
    held = trumps_of(hand, trump)
    if trumps and (len(held) >= DRAW_TRUMPS_FROM or (len(held) >= DRAW_TRUMPS_FROM - 1 and holds_a_top_trump(
            hand, trump))):
        return highest(trumps)
    return side_lead(hand, side, len(held))


def side_lead(hand: CardSet, side: Sequence[int], trumps_held: int) -> int:
    """A side-suit lead: an ace of its shortest suit, a low singleton to ruff later, else the longest suit's lowest."""
    def length(card: int) -> int:
        return popcount(hand & SUIT_MASK[suit_of(card)])

    aces = [card for card in side if rank_of(card) == ACE]
    if aces:
        return min(aces, key=lambda card: (length(card), card))
    singletons = [card for card in side if length(card) == 1 and card not in FACES]
    if trumps_held >= 2 and singletons:
        return min(singletons, key=lambda card: (rank_of(card), card))
    return min(side, key=lambda card: (-length(card), rank_of(card), card))


def follow_card(table: Table, cards: Sequence[int]) -> int:
    """Greedy's card to a trick: don't overtake a winning partner, else win cheaply, else duck cheaply."""
    trump = table.trump
    seat, best = table.winning_play()
    if seat == table.partner:
        under = [card for card in cards if not card_beats(card, best, trump)]
        return cheapest(under or cards, trump)
    winners = [card for card in cards if card_beats(card, best, trump)]
    return cheapest(winners or cards, trump)


# ----- Bavan ---------------------------------------------------------------------------------------


def bavan_vote(table: Table) -> int:
    """Yes only to stake a Kort that does not end the match, holding nothing but trumps and aces."""
    team = table.team
    kort = team_of(table.holder) == team
    if not kort or table.wins[team] + RESULT_WINS[Result.KORT] >= table.target:
        return BAVAN_NO
    cards = card_list(table.hand)
    sure = all(suit_of(card) == table.trump or rank_of(card) == ACE for card in cards)
    return BAVAN_YES if sure else BAVAN_NO


# ----- the whole policy --------------------------------------------------------------------------------


def greedy_choice(table: Table, legal: Sequence[int], redeal: str = "auto") -> int:
    """Greedy's choice among ``legal`` (ascending ids) at the decision ``table`` shows, under the ``redeal`` rule."""
    if len(legal) == 1:
        return legal[0]
    phase = table.phase
    if phase == Phase.TRUMP:
        return choose_trump(table.hand)
    if phase == Phase.DECLARE:
        return declaration(table, legal)
    if phase == Phase.VOTE:
        return bavan_vote(table)
    if REDEAL in legal and redeal == "auto" and wants_redeal(table.hand, table.trump):
        return REDEAL
    cards = [action for action in legal if action < TRUMP_BASE]
    if phase == Phase.LEAD:
        return lead_card(table, cards)
    return follow_card(table, cards)


def greedy_action(observation: Any, legal: Sequence[int], redeal: str = "auto") -> int:
    """Greedy's choice from what the seat sees (see the module docstring)."""
    return greedy_choice(Table.from_observation(observation), legal, redeal)


class GreedyAgent(HeuristicAgent):
    """Kort's greedy heuristic (see the module docstring); deterministic, so its seed is unused.

    ``redeal`` is its redeal rule: ``auto`` redeals a weak faceless hand, ``never`` keeps every deal.
    """

    PARAMETERS: dict[str, type] = {"redeal": str}

    def __init__(self, seed: int = 0, redeal: str = "auto") -> None:
        if redeal not in REDEAL_RULES:
            raise ValueError(f"redeal={redeal!r} is unknown: use {' or '.join(REDEAL_RULES)}")
        super().__init__(seed)
        if redeal != "auto":
            self.name = f"greedy:redeal={redeal}"
        self.redeal = redeal

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Greedy's choice from the observation."""
        return greedy_action(observation, legal, self.redeal)


register("greedy", game=GAME)(GreedyAgent)
