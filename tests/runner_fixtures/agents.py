"""Agents the runner tests load by import path (``runner_fixtures.agents:Name``, with ``tests/`` on the path)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from agents.base import RandomAgent

FAIL_AFTER_ENV = "KNORRI_TEST_FAIL_AFTER"


class PythonRandom(RandomAgent):
    """``RandomAgent`` under another name: the runner plays it through the reference engine."""


class Flaky(RandomAgent):
    """Plays like ``RandomAgent`` until this process has dealt it ``$KNORRI_TEST_FAIL_AFTER`` hands at seat 0.

    From then on it answers every decision with the illegal id 99. Without the
    variable it never fails, so a stopped run can be resumed.
    """

    hands_seen = 0

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Count the hands this process deals the agent at seat 0."""
        super().reset(seat, n_seats, seed)
        if seat == 0:
            Flaky.hands_seen += 1

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A random legal id, or 99 once the limit has passed."""
        limit = os.environ.get(FAIL_AFTER_ENV)
        if limit is not None and Flaky.hands_seen > int(limit):
            return 99
        return super().act(observation, legal)


class Raises(RandomAgent):
    """Raises on its first decision."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Always fails."""
        raise RuntimeError("this agent always fails")
