"""Bots that play from what a seat may know, and the protocol for a user's own.

Importing this package registers every game's built-in agents: ``random`` (every
game), Knorri's ``greedy``, ``loginf`` and ``mcts`` and their compiled lineup player
(``agents.knorri.lineup``), Knockout Whist's and Kort's own (``agents.knockout_whist``,
``agents.kort``), and every game's ``learned`` (``agents.learned``).
"""

import runpy as _runpy
from pathlib import Path as _Path

# A user's own sim/ ahead on sys.path would be imported in place of the harness's engines, and fail far from the
# cause: refuse it (or any other harness name taken) in one line before this package imports sim. sim/harness.py
# imports nothing of the harness, so it is run from its file.
_runpy.run_path(str(_Path(__file__).resolve().parent.parent / "sim" / "harness.py"),
                run_name="sim.harness")["refuse_shadowing"]()

# registering the built-in agents and their compiled lineup players
from agents import knockout_whist, knorri, kort, learned  # noqa: E402, F401 (after the guard above)
from agents.base import (  # noqa: E402
    Agent,
    AgentSpecError,
    RandomAgent,
    known_agents,
    make_agent,
    parse_spec,
    register,
)

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "known_agents", "make_agent", "parse_spec", "register"]
