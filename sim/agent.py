"""The agent protocol: what the engines ask of a decision-maker, and how a caller hands them one.

It lives in ``sim`` because the engines' reference loops (``sim.seating``) drive agents through it;
the agents themselves live above, in ``agents`` (which re-exports ``Agent`` from ``agents.base``).
An engine never builds an agent from a spec: whoever seats agents gives it an ``AgentMaker``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable


class AgentSpecError(ValueError):
    """A spec string that names no agent, or gives it parameters it does not take (an ``AgentMaker`` raises it)."""


@runtime_checkable
class Agent(Protocol):
    """What every agent does. ``act_batch(observations, legal_mask[, streams]) -> int[k]`` is optional: an agent
    defining it plays on the game's compiled batch engine, many deals a call (the runner's batch path)."""

    name: str

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Start a new hand at ``seat``; forget the last hand's memory; reseed from ``seed`` if given."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Choose one of the ``legal`` action ids (ascending) from what the seat may know."""


AgentMaker = Callable[[str], Agent]
"""Builds the agent a spec names (for the game being played), raising ``AgentSpecError`` for a spec that makes
none; the runner makes one for its game (``experiments.runner.seating.agent_maker``)."""
