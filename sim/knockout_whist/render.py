"""A Knockout Whist position drawn as SVG (the contract's render facet, ``sim.contract.GameRender``).

It shows the hand being played (its number, dealer and trumps, hand 1's turned
card), each seat's cards, tricks taken this hand and standing (in, on its dog's
life, out), the trick's plays in order (a dog's knock as a badge), whether the
game's dog's life has been given, and how the game ended. Drawn for an analyst
every hand is face up; drawn for one ``seat``, only its own cards are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import card_list
from sim.errors import GameInputError
from sim.knockout_whist.encoding import KNOCK, NO_TRUMPS, Phase, Status, cards_in_hand
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.svg_cards import Sheet, card_label, legal_cards, seat_label, suit_symbol

STATUS_BADGES = {Status.IN: ("in", "#3a7d44"), Status.DOG: ("dog's life", "#b5651d"), Status.OUT: ("out", "#8a90a0")}


def render_svg(game: KnockoutWhistGame, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The position of ``game`` as one SVG document: every hand, or what ``seat`` may know; ``names`` are the
    agents at the seats, each named beside its seat, and the seat to move has its legal cards raised."""
    if seat is not None and not 0 <= seat < game.n_seats:
        raise GameInputError(f"a seat of this {game.n_seats}-player game is 0 to {game.n_seats - 1}, not {seat}")
    sheet = Sheet()
    whose = "analyst's view" if seat is None else f"seat {seat}'s view"
    sheet.heading(f"Knockout Whist, {game.n_seats} players: hand {game.hand_no} of 7 "
                  f"({cards_in_hand(game.hand_no)} cards each)", whose)
    sheet.line(f"dealer seat {game.dealer}, leader seat {game.leader}; trumps: {_trumps_text(game)}"
               + (f"; turned card {card_label(game.turned)}" if game.turned is not None else "")
               + f"; dog's life {'given' if game.dogs_life_used else 'not yet given'}")
    plays = [(f"seat {who}", [] if action == KNOCK else [action]) for who, action in game.trick]
    knocks = [f"seat {who} knocks" for who, action in game.trick if action == KNOCK]
    sheet.groups("trick", plays)
    if knocks:
        sheet.badges([(words, "#b5651d") for words in knocks])
    for other in range(game.n_seats):
        status = Status(game.status[other])
        shown = seat is None or other == seat
        cards = card_list(game.hands[other])
        marked = legal_cards(cards, game.legal_actions()) if shown and other == game.to_move and not game.done \
            else []
        sheet.cards(seat_label(other, names), cards if shown else [], 0 if shown else len(cards),
                    note=f"{STATUS_BADGES[status][0]}, tricks {game.tricks[other]}",
                    to_move=other == game.to_move, shaded=status == Status.OUT, marked=marked)
    sheet.badges([(f"{STATUS_BADGES[Status(s)][0]}: seat {n}", STATUS_BADGES[Status(s)][1])
                  for n, s in enumerate(game.status)], "standing")
    if game.done:
        sheet.line(f"end ({game.end_reason.value}): seat {game.winner} wins after {game.hands_played} hands; "
                   f"scores {list(game.scores)}", "h")
    return sheet.svg(f"Knockout Whist position after {len(game.decisions)} decisions")


def _trumps_text(game: KnockoutWhistGame) -> str:
    if game.trumps is None:
        return f"to be chosen by seat {game.chooser}" if game.phase == Phase.CHOOSE else "none yet"
    return "no trumps" if game.trumps == NO_TRUMPS else suit_symbol(game.trumps)


def repeat_span(game: KnockoutWhistGame, row: Mapping[str, Any] | None = None) -> tuple[int, int] | None:
    """Knockout Whist has no repeat cut-off: always None."""
    return None
