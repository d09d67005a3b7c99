"""Bots that play from what a seat may know, and the protocol for a user's own.

Importing this package registers every game's built-in agents: ``random`` (every
game), Knorri's ``greedy``, ``loginf`` and ``mcts`` and their compiled lineup player
(``agents.knorri.lineup``), and Knockout Whist's and Kort's own (``agents.knockout_whist``,
``agents.kort``).
"""

# registering the built-in agents and their compiled lineup players
from agents import knockout_whist, knorri, kort  # noqa: F401
from agents.base import (
    Agent,
    AgentSpecError,
    RandomAgent,
    known_agents,
    make_agent,
    parse_spec,
    register,
)

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "known_agents", "make_agent", "parse_spec", "register"]
