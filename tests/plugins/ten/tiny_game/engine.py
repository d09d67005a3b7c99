"""Ten's rules and reference engine.

Ten cards, 0 to 9, each worth its number. The seed's splitmix64 stream shuffles a
52-card deck and the cards below 10 keep that order; seat ``s`` holds the
``s``-th three of them. Seat 0 leads the first of three tricks; every seat plays
one card in turn, any card it holds; the highest card takes the trick and its
player leads the next. A seat scores the tricks it took; the game's winner is
the seat with most tricks, a tie going to whichever of the tied seats took the
last trick among them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from sim.cards import card_list
from sim.errors import GameInputError
from sim.reference_base import DeckSource, Observation, ReferenceGame
from sim.rng import SplitMix64

CARDS = 10
HAND_SIZE = 3
MIN_SEATS, MAX_SEATS = 2, 3


class EndReason(Enum):
    """Ten ends one way: every card held has been played."""

    PLAYED_OUT = "played_out"


@dataclass(frozen=True)
class TenObservation(Observation):
    """What a seat sees: its own cards, the trick so far, the tricks each seat took."""

    seat: int
    hand: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]
    tricks: tuple[int, ...]
    phase: int = 0


class TenGame(ReferenceGame):
    """One game of Ten from the shuffle to the last trick."""

    UNIT: ClassVar[str] = "game"
    NUM_ACTIONS: ClassVar[int] = CARDS
    COPIED: ClassVar[tuple[str, ...]] = ("hands", "decisions", "log", "trick", "tricks")

    def __init__(self, n_seats: int, seed: int = 0, deck_source: DeckSource | None = None) -> None:
        if not MIN_SEATS <= n_seats <= MAX_SEATS:
            raise GameInputError(f"Ten is for {MIN_SEATS} to {MAX_SEATS} seats, not {n_seats}")
        deck = [card for card in (deck_source or SplitMix64(seed).shuffled_deck)() if card < CARDS]
        self.n_seats = n_seats
        self.hands = [sum(1 << card for card in deck[HAND_SIZE * s:HAND_SIZE * (s + 1)]) for s in range(n_seats)]
        self.decisions: list[int] = []
        self.log: list[dict[str, Any]] = [{"kind": "deal", "hands": [card_list(hand) for hand in self.hands]}]
        self.trick: list[tuple[int, int]] = []
        self.tricks = [0] * n_seats
        self.last_taker = 0
        self.end_reason: EndReason | None = None
        self._to_move = 0

    @property
    def scores(self) -> list[int]:
        """The tricks each seat took."""
        return list(self.tricks)

    @property
    def winner(self) -> int:
        """The seat with most tricks; among tied seats, the one that took a trick last."""
        best = max(self.tricks)
        return max((seat for seat in range(self.n_seats) if self.tricks[seat] == best), key=self._last_trick_taken)

    def legal_actions(self) -> list[int]:
        """Any card the seat to move holds."""
        return [] if self.done else card_list(self.hands[self._to_move])

    def observation(self, seat: int) -> TenObservation:
        """The seat's view: never another seat's cards."""
        return TenObservation(seat, tuple(card_list(self.hands[seat])), tuple(self.trick), tuple(self.tricks))

    def _take(self, action: int) -> None:
        seat = self._to_move
        self.hands[seat] &= ~(1 << action)
        self.trick.append((seat, action))
        self.log.append({"kind": "play", "seat": seat, "card": action})
        if len(self.trick) < self.n_seats:
            self._to_move = (seat + 1) % self.n_seats
            return
        taker = max(self.trick, key=lambda play: play[1])[0]
        self.tricks[taker] += 1
        self.last_taker = taker
        self.log.append({"kind": "trick", "cards": [card for _, card in self.trick], "taker": taker})
        self.trick = []
        self._to_move = taker
        if not any(self.hands):
            self.end_reason = EndReason.PLAYED_OUT
            self.log.append({"kind": "end", "winner": self.winner, "tricks": list(self.tricks)})

    def _last_trick_taken(self, seat: int) -> int:
        takes = [i for i, event in enumerate(self.log) if event["kind"] == "trick" and event["taker"] == seat]
        return takes[-1] if takes else -1
