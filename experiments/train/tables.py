"""The tables a network learns at by default: the chance of each other agent at a seat of a training deal."""

from __future__ import annotations

SELF_PLAY_OPPONENTS = {"greedy": 0.3, "random": 0.2}
"""Deep Monte-Carlo's table: the engine policies at a seat; the network holds the other seats."""

TEACHER_OPPONENTS = {"greedy": 0.25, "random": 0.2, "loginf": 0.15}
"""An imitation's table: the other agents at a seat; the teacher holds the other seats."""


def chances_text(chances: dict[str, float]) -> str:
    """``--opponents``'s spelling of a table: ``greedy=0.3,random=0.2``."""
    return ",".join(f"{name}={chance:g}" for name, chance in chances.items())
