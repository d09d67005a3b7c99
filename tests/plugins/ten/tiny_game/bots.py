"""A bot for Ten written against the ``Agent`` protocol alone, so it also plays any other game: the lowest legal id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register


@register("lowest", game="ten")
class LowestCard:
    """Plays the lowest legal action id: in Ten its lowest card, which saves the high ones for later tricks."""

    PARAMETERS: dict[str, type] = {}

    def __init__(self, seed: int = 0) -> None:
        self.name = "lowest"

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Nothing to forget between deals."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The first of the ascending legal ids."""
        return int(legal[0])
