"""Text for people: the board, the log and the result of a Knorri hand."""

from __future__ import annotations

from typing import Any

from sim.cards import card_list, cards_text
from sim.knorri.reference import KnorriHand


def describe_event(event: dict[str, Any]) -> str:
    """One log event as a line a person who knows the rules can follow."""
    kind = event["kind"]
    seat = f"seat {event['seat']}" if "seat" in event else ""
    if kind == "deal":
        label = "redeal" if event["redeal"] else "deal"
        return f"{label}: table {cards_text(event['table'])}"
    if kind == "turn":
        return f"{seat} turns {cards_text([event['card']])}"
    if kind == "capture":
        how = "chooses to take" if event["chosen"] else "takes"
        return f"  {cards_text([event['card']])} {how} {cards_text([event['took']])} for {seat}"
    if kind == "redeal":
        return f"nobody captured: redeal #{event['count']}"
    if kind == "sweep":
        return f"{seat}, the last to capture, sweeps the table: {cards_text(event['cards'])}"
    if kind == "phase2":
        return "phase 2: piles " + " ".join(str(c) for c in event["card_counts"])
    if kind == "play":
        return f"{seat} plays {cards_text(event['cards'])}"
    if kind == "pickup":
        return f"{seat} picks up {cards_text([event['card']])}"
    if kind == "trick":
        return f"  trick complete ({cards_text(event['cards'])}), set aside"
    if kind == "out":
        return f"{seat} is out, scoring {event['score']:+d}"
    if kind == "end":
        text = f"end ({event['reason']}): seat {event['loser']} loses; scores {event['scores']}"
        if "ranking" in event:
            text += f"; still holding, ranked {event['ranking']}"
        if "cycle_length" in event:
            text += f"; the position recurred after {event['cycle_length']} actions"
        return text
    return str(event)


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
