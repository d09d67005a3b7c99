"""Ten: a deliberately tiny trick game that proves the game contract (``sim.contract``) from outside ``sim``.

It lives only here and is registered only by the tests (``register``); every
command plays it through its adapter (``tiny_game.adapter``) alone.
"""

from __future__ import annotations

from agents.base import register as register_agent
from sim.games import register_game
from tiny_game.bots import LowestCard

NAME = "ten"


def register() -> None:
    """Add Ten to the registry, as a plugin would: one line naming the adapter module, one for its own bot."""
    register_game(NAME, "Ten", "tiny_game.adapter")
    register_agent("lowest", game=NAME)(LowestCard)
