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

from sim.reference_base import SeatView


@dataclass(frozen=True)
class KnockoutWhistObservation(SeatView):
    """One seat's view of a game at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``log`` holds the engine's own event dicts (copying them at every decision would
    cost more than the step): treat them as read-only. ``trumps`` is a suit 0..3,
    4 for no trumps, or None before the chooser has chosen. ``status`` holds
    ``Status`` values (0 in, 1 dog, 2 out); ``out_hand`` the hand after which a seat
    went out. ``exchanged`` is each seat's exchange count this hand (None before its turn ends).
    """

    n_seats: int
    options: dict[str, Any]
    hand_no: int
    dealer: int
    leader: int
    phase: int
    picked: tuple[int, ...]
    thrown: tuple[int, ...]
    turned: int | None
    trumps: int | None
    trick: tuple[tuple[int, int], ...]
    trick_seats: tuple[int, ...]
    tricks: tuple[int, ...]
    status: tuple[int, ...]
    out_hand: tuple[int | None, ...]
    dogs_life_used: bool
    exchanged: tuple[int | None, ...]
    winner: int | None


# What each field means, for people writing agents: docs/observations.md is generated from this
# (``python -m experiments.observation_docs``) and a test checks every field is here.
FIELD_DOCS: dict[str, str] = {
    "seat": "the seat this view belongs to (0 to n_seats - 1)",
    "n_seats": "seats at the table, 2 to 7",
    "options": "the game's options by name (dogs_life, safe_first_hand, winner_deals, card_exchange, "
               "no_trumps_choice, rainbow)",
    "hand_no": "the hand being played, 1 to 7 (hand k deals 8 - k cards)",
    "dealer": "the seat that dealt this hand",
    "leader": "the seat that leads this hand's first trick",
    "phase": "what the seat to move decides: 0 choose trumps, 1 card exchange, 2 play a card (or knock), 3 over",
    "to_move": "the seat whose decision it is",
    "hand": "this seat's own cards, ascending card ids",
    "picked": "in this seat's card exchange: the cards picked so far to throw away; () otherwise",
    "thrown": "the cards this seat threw away in exchanges (only its own are visible)",
    "turned": "hand 1's turned trump card, or None",
    "trumps": "this hand's trumps: a suit 0-3 (C D H S), 4 for no trumps, None before they are chosen",
    "trick": "the current trick's plays in order, as (seat, action): a card id, or 52 for a dog's knock",
    "trick_seats": "the seats that play to the current trick, in order from its leader",
    "tricks": "tricks each seat has taken this hand, by seat",
    "card_counts": "cards each seat holds, by seat",
    "status": "by seat: 0 in, 1 on its dog's life (one card this hand), 2 out",
    "out_hand": "by seat: the hand after which the seat went out, or None while it is in",
    "dogs_life_used": "True once a dog's life has been given in this game",
    "exchanged": "by seat: how many cards it exchanged this hand, None before its exchange ends",
    "legal": "the legal action ids, ascending, when this seat is to move; () otherwise",
    "done": "True once the game has ended",
    "winner": "the winning seat once done, else None",
    "scores": "each seat's score: 0 until the end, then seats - 1 for the winner and -1 for every other seat",
    "log": "the public log: the engine's event dicts in order (read-only): hands, trumps, plays, knocks, "
           "tricks, seats going out",
}
