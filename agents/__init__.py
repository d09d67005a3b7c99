"""Bots that play from what a seat may know, and the protocol for a user's own.

Importing this package registers the built-in agents: ``random``, ``greedy``,
``loginf`` and ``mcts``, and Kort's own (``agents.kort``).
"""

from agents import greedy, kort, loginf, mcts  # noqa: F401  (registering the built-in agents)
from agents.base import Agent, AgentSpecError, RandomAgent, known_agents, make_agent, parse_spec, register

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "known_agents", "make_agent", "parse_spec", "register"]
