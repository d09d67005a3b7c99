"""Text for people shared by the games: a logged event of a trick game (Knockout Whist, Kort), a position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.cards import SUIT_LETTERS, card_list, card_text, cards_text

CARD_KEYS = ("card", "turned")  # event keys holding one card id
INDENTED = ("play", "knock", "declare")  # events within a trick, shown under it


def describe_logged_event(event: Mapping[str, Any]) -> str:
    """The event's kind, then its fields, with card ids and suits written as people write them."""
    words = []
    for key, value in event.items():
        if key == "kind":
            continue
        if key in CARD_KEYS and isinstance(value, int):
            value = card_text(value)
        elif key == "suit" and isinstance(value, int):
            value = SUIT_LETTERS[value] if 0 <= value < len(SUIT_LETTERS) else "none"
        elif key == "plays":
            value = " ".join(f"{seat}:{card_text(card) if 0 <= card < 52 else 'knock'}" for seat, card in value)
        words.append(f"{key}={value}")
    indent = "  " if event["kind"] in INDENTED else ""
    return f"{indent}{event['kind']}: " + ", ".join(words)


def describe_scores(deal: Any) -> str:
    """How a finished deal ended and each seat's score."""
    return f"end ({deal.end_reason.value}): scores {list(deal.scores)}"


def board_text(deal: Any) -> str:
    """Any game's position: each seat's cards and count (the seat to move marked), the scores, the latest event."""
    lines = []
    for seat, cards in enumerate(deal.hands):
        marker = "->" if seat == deal.to_move else "  "
        held = card_list(cards)
        lines.append(f"{marker} seat {seat} [{len(held):2d}] {cards_text(held)}")
    lines.append(f"scores {list(deal.scores)}" + (f", over ({deal.end_reason.value})" if deal.done else ""))
    if deal.log:
        lines.append(f"last: {deal.log[-1]}")
    return "\n".join(lines)
