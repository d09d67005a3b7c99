"""Agents that misbehave, loaded by import path (``hostile.bots:Name``, with ``tests/`` on the path)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from agents.base import RandomAgent


class Illegal(RandomAgent):
    """Answers an id no position allows."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Always 99."""
        return 99


class ReturnsNone(RandomAgent):
    """Forgets to return."""

    def act(self, observation: Any, legal: Sequence[int]) -> Any:
        """Nothing."""
        return None


class ReturnsFloat(RandomAgent):
    """Returns a legal id as a float."""

    def act(self, observation: Any, legal: Sequence[int]) -> Any:
        """The first legal id, as a float."""
        return float(legal[0])


class ReturnsText(RandomAgent):
    """Returns a legal id as text."""

    def act(self, observation: Any, legal: Sequence[int]) -> Any:
        """The first legal id, as a string."""
        return str(legal[0])


class Sleeper(RandomAgent):
    """Never answers."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Sleep for ever."""
        while True:
            time.sleep(3600)


class BadConstructor(RandomAgent):
    """Cannot be made."""

    def __init__(self, seed: int = 0) -> None:
        raise RuntimeError("ctor fails")


class Exits(RandomAgent):
    """Ends the whole process from its first decision."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Leave without a word."""
        os._exit(7)


class Chatty(RandomAgent):
    """Prints as it plays."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A random legal id, announced."""
        print("chatty thinks")
        return super().act(observation, legal)


class Interrupted(RandomAgent):
    """Is where Ctrl-C lands: its first decision raises ``KeyboardInterrupt``."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """As if the user pressed Ctrl-C now."""
        raise KeyboardInterrupt
