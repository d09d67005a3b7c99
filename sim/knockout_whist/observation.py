"""What one seat may know of a Knockout Whist game (the rulings' "Agents and information").

An observation holds the seat's own cards (and, in a card exchange, the cards it
picked or threw away), the options, the hand number, dealer and leader, the
trumps, the current trick, every seat's tricks, card count and status, the
exchange counts and the public log. It never holds the stock, another seat's
hand, anyone else's thrown-away cards or a dog's card before it is played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.reference_base import Observation


@dataclass(frozen=True)
class KnockoutWhistObservation(Observation):
    """One seat's view of a game at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``log`` holds the engine's own event dicts (copying them at every decision would
    cost more than the step): treat them as read-only. ``trumps`` is a suit 0..3,
    4 for no trumps, or None before the chooser has chosen. ``status`` holds
    ``Status`` values (0 in, 1 dog, 2 out); ``out_hand`` the hand after which a seat
    went out. ``exchanged`` is each seat's exchange count this hand (None before its turn ends).
    """

    seat: int
    n_seats: int
    options: dict[str, Any]
    hand_no: int
    dealer: int
    leader: int
    phase: int
    to_move: int
    hand: tuple[int, ...]
    picked: tuple[int, ...]
    thrown: tuple[int, ...]
    turned: int | None
    trumps: int | None
    trick: tuple[tuple[int, int], ...]
    trick_seats: tuple[int, ...]
    tricks: tuple[int, ...]
    card_counts: tuple[int, ...]
    status: tuple[int, ...]
    out_hand: tuple[int | None, ...]
    dogs_life_used: bool
    exchanged: tuple[int | None, ...]
    legal: tuple[int, ...]
    done: bool
    winner: int | None
    scores: tuple[int, ...]
    log: tuple[dict[str, Any], ...]
