"""The few facts of a Kort decision that the heuristics read, taken from one seat's observation.

``Table`` is what ``greedy`` (and ``tracker``, and the search's playouts) decide
from: the seat's own cards, trumps, the trick on the table, its team's lead state,
both teams' tricks and wins, the holder and the match target. An agent builds one
from its observation (``Table.from_observation``); the search builds the same from
a position it plays out, so one heuristic serves both. Nothing here holds another
seat's cards.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sim.cards import CardSet, to_set
from sim.kort.encoding import LeadState, Phase
from sim.kort.rules import card_beats, partner_of, team_of


class Table(NamedTuple):
    """One seat's decision as the heuristics see it (card sets are ints, bit ``id`` per card)."""

    seat: int
    phase: int  # encoding.Phase
    hand: CardSet
    trump: int | None  # None before trumps are known
    trick: tuple[tuple[int, int], ...]  # (seat, card) in play order
    own_state: LeadState  # the seat's team's lead state
    tricks: tuple[int, int]  # per team, this round
    wins: tuple[int, int]  # per team, this match
    target: int  # the match's target in wins
    holder: int
    trick_no: int  # tricks completed this round
    bavan_team: int | None

    @classmethod
    def from_observation(cls, observation: Any) -> Table:
        """The table an observation shows its seat."""
        return cls(
            seat=observation.seat,
            phase=observation.phase,
            hand=to_set(observation.hand),
            trump=observation.trump,
            trick=tuple(tuple(play) for play in observation.trick),
            own_state=LeadState.from_text(observation.lead_states[observation.team]),
            tricks=tuple(observation.tricks),
            wins=tuple(observation.wins),
            target=observation.options["target_wins"],
            holder=observation.holder,
            trick_no=observation.trick_no,
            bavan_team=observation.bavan_team,
        )

    @property
    def team(self) -> int:
        """The seat's team."""
        return team_of(self.seat)

    @property
    def partner(self) -> int:
        """The seat's partner."""
        return partner_of(self.seat)

    @property
    def leading(self) -> bool:
        """Whether the seat is to lead (no card on the table yet)."""
        return self.phase == Phase.LEAD

    def winning_play(self) -> tuple[int, int] | None:
        """The (seat, card) taking the trick so far, or None before the lead."""
        if not self.trick:
            return None
        best = self.trick[0]
        for play in self.trick[1:]:
            if card_beats(play[1], best[1], self.trump):
                best = play
        return best

    def seats_after(self) -> list[int]:
        """The seats still to play to this trick after this one."""
        played = len(self.trick)
        return [(self.seat + step) % 4 for step in range(1, 4 - played)]
