"""Bots that play from what a seat may know, and the protocol for a user's own.

Importing this package registers ``random`` (every game) and every installed game's own agents: each game's
package is named by an entry point of ``sim.plugins.AGENTS`` (the built-in games' in ``pyproject.toml``: Knorri's
``greedy``, ``loginf``, ``mcts`` and ``learned`` and their compiled lineup player, and the same for Knockout Whist
and Kort). A broken plug-in is named in one line and skipped.
"""

import runpy as _runpy
from pathlib import Path as _Path

# A user's own sim/ ahead on sys.path would be imported in place of the harness's engines, and fail far from the
# cause: refuse it (or any other harness name taken) in one line before this package imports sim. sim/harness.py
# imports nothing of the harness, so it is run from its file.
_runpy.run_path(str(_Path(__file__).resolve().parent.parent / "sim" / "harness.py"),
                run_name="sim.harness")["refuse_shadowing"]()

from agents.base import (  # noqa: E402 (after the guard above)
    Agent,
    AgentSpecError,
    RandomAgent,
    known_agents,
    make_agent,
    parse_spec,
    register,
)
from sim import plugins  # noqa: E402

plugins.load_modules(plugins.AGENTS)  # every installed game's agents register themselves on import

__all__ = ["Agent", "AgentSpecError", "RandomAgent", "known_agents", "make_agent", "parse_spec", "register"]
