"""The part every one-look heuristic agent shares: it remembers nothing and draws no random numbers.

A ``HeuristicAgent`` chooses from the observation alone, so its seed is unused and a new
game only tells it its seat. A game's ``greedy`` subclasses it and writes ``act`` (and,
with spec parameters, ``PARAMETERS``, an ``__init__`` that checks them, and its ``name``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class HeuristicAgent:
    """A deterministic agent whose choice is a function of the observation and the legal ids."""

    PARAMETERS: dict[str, type] = {}
    NAME = "greedy"
    """The spec name the agent is registered under (its ``name`` without parameters)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = self.NAME
        self.seat = 0

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Nothing to forget between games: only the seat changes."""
        self.seat = seat

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The agent's choice among ``legal`` for ``observation``."""
        raise NotImplementedError
