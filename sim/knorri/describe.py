"""Text for people: the board, the log and the result of a Knorri hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.cards import card_list, cards_text
from sim.knorri.reference import KnorriHand


def describe_event(event: dict[str, Any]) -> str:
    """One log event as a line a person who knows the rules can follow."""
    line = _EVENT_LINES.get(event["kind"])
    if line is None:
        return str(event)
    return line(event, f"seat {event['seat']}" if "seat" in event else "")


def _end_line(event: dict[str, Any], _seat: str) -> str:
    text = f"end ({event['reason']}): seat {event['loser']} loses; scores {event['scores']}"
    if "ranking" in event:
        text += f"; still holding, ranked {event['ranking']}"
    if "cycle_length" in event:
        text += f"; the position recurred after {event['cycle_length']} actions"
    return text


# Each event kind's line, from the event and its seat as words ("seat 2", or "" for an event without a seat).
_EVENT_LINES: dict[str, Callable[[dict[str, Any], str], str]] = {
    "deal": lambda event, _: f"{'redeal' if event['redeal'] else 'deal'}: table {cards_text(event['table'])}",
    "turn": lambda event, seat: f"{seat} turns {cards_text([event['card']])}",
    "capture": lambda event, seat: (f"  {cards_text([event['card']])} "
                                    f"{'chooses to take' if event['chosen'] else 'takes'} "
                                    f"{cards_text([event['took']])} for {seat}"),
    "redeal": lambda event, _: f"nobody captured: redeal #{event['count']}",
    "sweep": lambda event, seat: f"{seat}, the last to capture, sweeps the table: {cards_text(event['cards'])}",
    "phase2": lambda event, _: "phase 2: piles " + " ".join(str(c) for c in event["card_counts"]),
    "play": lambda event, seat: f"{seat} plays {cards_text(event['cards'])}",
    "pickup": lambda event, seat: f"{seat} picks up {cards_text([event['card']])}",
    "trick": lambda event, _: f"  trick complete ({cards_text(event['cards'])}), set aside",
    "out": lambda event, seat: f"{seat} is out, scoring {event['score']:+d}",
    "end": _end_line,
    "continue": lambda event, _: (f"the hand plays on past its {event['reason']} cut-off, under cap={event['cap']} "
                                  f"repeat={event['repeat']}"),
}


def describe_board(hand: KnorriHand) -> str:
    """The current position: each seat's cards, the table or trick, and whose turn it is."""
    lines = [f"{hand.n_seats} seats, phase {hand.phase}, first seat {hand.first_seat}, redeals {hand.redeals}"]
    for seat, cards in enumerate(hand.hands):
        marker = "->" if seat == hand.to_move else "  "
        lines.append(f"{marker} seat {seat} [{len(card_list(cards)):2d}] {cards_text(card_list(cards))}")
    if hand.phase == 1:
        lines.append(f"table: {cards_text(card_list(hand.table))}")
    else:
        plays = " | ".join(cards_text(play) for play in hand.trick) or "(empty)"
        lines.append(f"trick: {plays}   plays {len(hand.trick)}/{hand.plays_needed()}")
    return "\n".join(lines)


def describe_result(hand: KnorriHand) -> str:
    """How the hand ended and what each seat scored."""
    scores = "  ".join(f"seat {s}: {v:+d}" for s, v in enumerate(hand.scores))
    return (f"result: {hand.end_reason.value}, loser seat {hand.loser}, {hand.phase2_actions} phase-2 actions, "
            f"{hand.tricks_completed} tricks, {hand.redeals} redeals\n{scores}")
