"""The tables a network learns and is judged at by default: the chance of each other agent at a seat of a training
deal, and the agent at the seats an evaluation does not test."""

from __future__ import annotations

SELF_PLAY_OPPONENTS = {"greedy": 0.3, "random": 0.2}
"""Deep Monte-Carlo's table: the engine policies at a seat; the network holds the other seats."""

TEACHER_OPPONENTS = {"greedy": 0.25, "random": 0.2, "loginf": 0.15}
"""An imitation's table: the other agents at a seat; the teacher holds the other seats."""

EVAL_OTHERS = "random"
"""The spec at the seats an evaluation does not test (every game has it); ``--eval-others`` changes it."""


def chances_text(chances: dict[str, float]) -> str:
    """``--opponents``'s spelling of a table: ``greedy=0.3,random=0.2``."""
    return ",".join(f"{name}={chance:g}" for name, chance in chances.items())
