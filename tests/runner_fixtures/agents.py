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


FAIL_SEED_ENV = "KNORRI_TEST_FAIL_SEED"
HANG_ENV = "KNORRI_TEST_HANG"


class FailsOnSeed(RandomAgent):
    """Plays like ``RandomAgent``, but raises in the hand whose agent seed is ``$KNORRI_TEST_FAIL_SEED``."""

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Remember whether this is the failing hand."""
        super().reset(seat, n_seats, seed)
        self.failing = str(seed) == os.environ.get(FAIL_SEED_ENV)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A random legal id, except in the failing hand."""
        if self.failing:
            raise RuntimeError("the hand this agent was told to fail")
        return super().act(observation, legal)


class Hangs(RandomAgent):
    """Never returns from its first decision: ``$KNORRI_TEST_HANG`` says how (``sleep``, ``spin`` or ``wait``)."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Block for ever."""
        import threading
        import time

        how = os.environ.get(HANG_ENV, "sleep")
        while True:
            if how == "spin":
                continue
            if how == "wait":
                threading.Event().wait()
            time.sleep(3600)


class StartFails(RandomAgent):
    """Its constructor raises."""

    def __init__(self, seed: int = 0) -> None:
        raise RuntimeError("this agent cannot start")


class Exits(RandomAgent):
    """Calls ``sys.exit`` on its first decision."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Leave the process, if allowed."""
        import sys

        sys.exit(3)


DIE_ENV = "KNORRI_TEST_DIE"


class Dies(RandomAgent):
    """Kills its own process (SIGKILL) on its first decision when ``$KNORRI_TEST_DIE`` is set: a dying worker."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A random legal id, or the end of this process."""
        if os.environ.get(DIE_ENV):
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(observation, legal)


SLOW_SECONDS = 0.002
QUICK_ENV = "KNORRI_TEST_QUICK"  # set: Slow no longer sleeps (a resume whose pace no test watches)


class Slow(RandomAgent):
    """Plays like ``RandomAgent``, taking ``SLOW_SECONDS`` over each decision: a chunk lasts long enough for a
    test to kill the worker playing it. With ``$KNORRI_TEST_QUICK`` set it makes the same moves without waiting."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A random legal id, after a short sleep."""
        import time

        if not os.environ.get(QUICK_ENV):
            time.sleep(SLOW_SECONDS)
        return super().act(observation, legal)
