"""A Knorri position drawn as SVG (the contract's render facet, ``sim.contract.GameRender``).

Phase 1 shows the table's cards, the stock count, the turned card waiting for a
choice (the cards it may take edged) and each seat's pile; phase 2 each seat's
hand, the trick's plays in order with who made them, the plays the trick needs,
whose turn it is and the scores; a finished hand adds how it ended. Drawn for an
analyst every hand is face up; drawn for one ``seat``, only what its observation
holds is: its own cards face up, the others' as backs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import card_list
from sim.errors import GameInputError
from sim.knorri.encoding import PICK_UP, run_cards
from sim.knorri.reference import KnorriHand
from sim.svg_cards import Sheet, card_label, legal_cards, seat_label


def render_svg(hand: KnorriHand, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The position of ``hand`` as one SVG document: the whole deal, or what ``seat`` may know; ``names`` are the
    agents at the seats, each named beside its seat."""
    if seat is not None and not 0 <= seat < hand.n_seats:
        raise GameInputError(f"a seat of this {hand.n_seats}-seat hand is 0 to {hand.n_seats - 1}, not {seat}")
    sheet = Sheet()
    view = hand.observation(0 if seat is None else seat)
    whose = "analyst's view" if seat is None else f"seat {seat}'s view"
    if hand.phase == 1:
        sheet.heading(f"Knorri, {hand.n_seats} seats: phase 1" + (f", redeal {hand.redeals}" if hand.redeals else ""),
                      whose)
        _phase1(sheet, hand, view, seat, names)
    else:
        sheet.heading(f"Knorri, {hand.n_seats} seats: phase 2, {hand.phase2_actions} actions", whose)
        _phase2(sheet, hand, view, seat, names)
    if hand.done:
        sheet.line(_end_text(hand), "h")
    return sheet.svg(f"Knorri position after {len(hand.decisions)} decisions")


def _phase1(sheet: Sheet, hand: KnorriHand, view: Any, seat: int | None, names: Sequence[str] | None) -> None:
    legal = set(view.legal) if seat is not None else set(hand.legal_actions())
    turned = "" if view.turned is None else f"; seat {view.to_move} turned {card_label(view.turned)} and chooses"
    sheet.line(f"stock: {view.stock_left} cards left{turned}")
    if view.turned is not None:
        sheet.cards("turned card", [view.turned], note=f"seat {view.to_move} to choose")
    sheet.cards("table", list(view.table), marked=sorted(legal), note=f"{len(view.table)} cards")
    for other in range(hand.n_seats):
        cards, hidden = _seat_cards(hand, view, seat, other)
        sheet.cards(f"{seat_label(other, names)} pile", cards, hidden, note=f"{view.card_counts[other]} cards",
                    to_move=other == hand.to_move)


def _phase2(sheet: Sheet, hand: KnorriHand, view: Any, seat: int | None, names: Sequence[str] | None) -> None:
    needed = view.plays_needed
    opening = "; the holder of 2C opens" if view.opening else ""
    legal = [] if hand.done or seat not in (None, hand.to_move) else hand.legal_actions()
    playable = {card for action in legal for card in ([action] if action < PICK_UP else run_cards(action))
                if action != PICK_UP}
    may = " (its legal plays raised" + (", or pick up" if PICK_UP in legal else "") + ")" if legal else ""
    to_move = "" if hand.done else f"; seat {hand.to_move} to play{may}"
    sheet.line(f"trick: {len(view.trick)} of {needed} plays{opening}{to_move}; "
               f"{hand.tricks_completed} tricks set aside")
    plays = [(f"seat {who}" if who >= 0 else "", cards) for who, cards in trick_plays(hand)]
    sheet.groups("trick (bottom first)", plays)
    for other in range(hand.n_seats):
        cards, hidden = _seat_cards(hand, view, seat, other)
        out = view.out[other]
        note = f"{view.card_counts[other]} cards" + (f", out: {view.scores[other]:+d}" if out else "")
        if hand.done:
            note = f"{view.card_counts[other]} cards, score {hand.scores[other]:+d}"
        marked = legal_cards(cards, sorted(playable)) if other == hand.to_move else []
        sheet.cards(seat_label(other, names), cards, hidden, note=note, to_move=other == hand.to_move, shaded=out,
                    marked=marked)
    sheet.line("scores: " + "  ".join(f"seat {s} {v:+d}" for s, v in enumerate(hand.scores)))


def _seat_cards(hand: KnorriHand, view: Any, seat: int | None, other: int) -> tuple[list[int], int]:
    """A seat's cards as drawn: face up for an analyst or the seat itself, else as many backs."""
    if seat is None:
        return card_list(hand.hands[other]), 0
    if other == seat:
        return list(view.hand), 0
    return [], view.card_counts[other]


def trick_plays(hand: KnorriHand) -> list[tuple[int, list[int]]]:
    """The plays still in the trick, bottom first, each with the seat that made it.

    Plays join the trick at the top and leave it only from the bottom (a pick-up), so the plays in it are the
    last ``len(trick)`` plays of the log since the last completed trick.
    """
    seats: list[int] = []
    for event in reversed(hand.log):
        if len(seats) == len(hand.trick) or event["kind"] in ("trick", "phase2"):
            break
        if event["kind"] == "play":
            seats.append(event["seat"])
    seats.reverse()
    seats = [-1] * (len(hand.trick) - len(seats)) + seats  # a position set up mid-trick names no one
    return [(who, list(play)) for who, play in zip(seats, hand.trick, strict=True)]


def _end_text(hand: KnorriHand) -> str:
    reason = hand.end_reason.value
    text = f"end ({reason}): seat {hand.loser} loses"
    if hand.cycle_length is not None:
        text += f"; the position of {hand.cycle_length} actions before recurred"
    elif reason == "cap":
        text += f"; cut off at {hand.phase2_actions} phase-2 actions"
    return text


def repeat_span(hand: KnorriHand, row: Mapping[str, Any] | None = None) -> tuple[int, int] | None:
    """The two equal positions of a hand cut off by a repeat, as decisions taken (0: the deal), else None.

    A run's row gives ``cycle_start`` (phase-2 actions before the first of the two) where it has the column, and
    else ``phase2_actions - cycle_length``; without a row the hand's own ``cycle_length`` says the same. Phase 2's
    decisions are the last ``phase2_actions`` of the hand's, so phase-2 action ``k`` is decision
    ``len(decisions) - phase2_actions + k``.
    """
    row = row or {}
    length = row.get("cycle_length", hand.cycle_length)
    if length is None or length != length or hand.cycle_length is None:  # NaN: not a repeat
        return None
    start = row.get("cycle_start")
    if start is None or start != start:
        start = hand.phase2_actions - int(length)
    phase1_decisions = len(hand.decisions) - hand.phase2_actions
    return phase1_decisions + int(start), phase1_decisions + int(start) + int(length)
