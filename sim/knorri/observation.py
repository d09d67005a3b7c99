"""What one seat may know of a Knorri hand (the rulings' "Agents and information").

An observation holds the seat's own cards, the table, the trick, every seat's
card count, who is out, the scores so far and the public log. It never holds
the stock order or another seat's hand as such: those can only be deduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.reference_base import Observation


@dataclass(frozen=True)
class KnorriObservation(Observation):
    """One seat's view of a hand at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``log`` holds the engine's own event dicts (copying them at every decision would
    cost more than the rest of the step): treat them as read-only.
    """

    seat: int
    n_seats: int
    phase: int
    to_move: int
    hand: tuple[int, ...]
    table: tuple[int, ...]
    turned: int | None
    stock_left: int
    trick: tuple[tuple[int, ...], ...]
    plays_needed: int
    opening: bool
    card_counts: tuple[int, ...]
    out: tuple[bool, ...]
    scores: tuple[int, ...]
    phase2_actions: int
    legal: tuple[int, ...]
    done: bool
    log: tuple[dict[str, Any], ...]

    @property
    def top_card(self) -> int | None:
        """The trick's top card, or None for an empty trick."""
        return self.trick[-1][-1] if self.trick else None
