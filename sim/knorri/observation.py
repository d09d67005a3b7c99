"""What one seat may know of a Knorri hand (the rulings' "Agents and information").

An observation holds the seat's own cards, the table, the trick, every seat's
card count, who is out, the scores so far and the public log. It never holds
the stock order or another seat's hand as such: those can only be deduced.
The table's cut-off options (``cap``, ``repeat``) are public rules, so they are
in every view too: a searching agent plays out under them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS
from sim.reference_base import SeatView


@dataclass(frozen=True)
class KnorriObservation(SeatView):
    """One seat's view of a hand at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``log`` holds the engine's own event dicts (copying them at every decision would
    cost more than the rest of the step): treat them as read-only.
    """

    n_seats: int
    phase: int
    table: tuple[int, ...]
    turned: int | None
    stock_left: int
    trick: tuple[tuple[int, ...], ...]
    plays_needed: int
    opening: bool
    out: tuple[bool, ...]
    phase2_actions: int
    cap: int = MAX_PHASE2_ACTIONS
    repeat: int = DEFAULT_REPEAT

    @property
    def top_card(self) -> int | None:
        """The trick's top card, or None for an empty trick."""
        return self.trick[-1][-1] if self.trick else None


# What each field means, for people writing agents: docs/observations.md is generated from this
# (``python -m experiments.observation_docs``) and a test checks every field is here.
FIELD_DOCS: dict[str, str] = {
    "seat": "the seat this view belongs to (0 to n_seats - 1)",
    "n_seats": "seats at the table, 3 to 6",
    "phase": "1 while the stock is turned (capture choices), 2 for the tricks",
    "to_move": "the seat whose decision it is",
    "hand": "this seat's own cards, ascending card ids (phase 1: its pile so far)",
    "table": "the face-up cards on the table (phase 1), ascending ids",
    "turned": "phase 1: the stock card just turned that this seat is choosing a capture for; None otherwise",
    "stock_left": "cards still in the stock",
    "trick": "phase 2: the plays in the current trick, bottom first; each play is a tuple of card ids "
             "(the opening club run is one play)",
    "plays_needed": "plays that complete the current trick (the seats holding cards when it was led)",
    "opening": "True while the holder of 2C must open (actions 53-64 open with a club run)",
    "card_counts": "cards each seat holds, by seat",
    "out": "by seat: True once the seat has played its last card in phase 2",
    "scores": "each seat's score so far (final once done)",
    "phase2_actions": "plays and pick-ups so far in phase 2 (a hand is cut off at `cap`, 1,500 by default)",
    "legal": "the legal action ids, ascending, when this seat is to move; () otherwise",
    "done": "True once the hand has ended",
    "log": "the public log: the engine's event dicts in order (read-only); deal, captures, plays, pick-ups, "
           "tricks, seats going out",
    "cap": "the table's cut-off option: phase-2 actions after which the hand ends with reason cap (default 1,500)",
    "repeat": "the table's repeat option: the hand ends with reason repeat when a position has been reached this "
              "many times in phase 2 (2, the default: the first return; 3: threefold; 0: no check)",
}
