"""Bots that play from what a seat may know, and the protocol for a user's own."""

from agents.base import Agent, AgentSpecError, RandomAgent, known_agents, make_agent, parse_spec, register

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "known_agents", "make_agent", "parse_spec", "register"]
