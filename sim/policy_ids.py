"""The compiled playout policies' ids, one numbering for every game, and the rule for where compiled bots live.

Where compiled bots live: each game's engine owns its fixed playout policies, the ones
that need no memory and no search (the conformance ``protocol``, uniform ``random``, the
one-look ``greedy``), in ``sim/<game>/compiled/policies.py``, public through
``sim.<game>.compiled``; the engine's playouts, batches and every search's rollouts
call them there. A bot that remembers or searches (a tracker, a sampler of hidden
cards, mcts, a lineup kernel dispatching seats) is an agent: its compiled parts live in
``agents/`` beside its Python twin and reach the engine through ``sim.<game>.compiled``
alone. The Python ``greedy`` agents stay in ``agents/`` and take their thresholds from
the engine's policies module, so both make the same choices from one set of numbers.

Every game numbers its policies with the ids below and offers the subset it has.
"""

from __future__ import annotations

import numpy as np

# int64, not int: numba compiles a separate copy of a kernel for each plain-int constant passed to it.
PROTOCOL = np.int64(0)
"""The conformance protocol: ``legal[next() % n_legal]`` from the game's own stream (the deck's)."""
RANDOM = np.int64(1)
"""Uniform random from the seat's own stream, seeded ``agent_seed(game_seed, seat)``, exactly as ``RandomAgent``."""
GREEDY = np.int64(2)
"""The game's ``greedy`` agent's heuristic, choice for choice (it draws no random numbers)."""

POLICY_NAMES: dict[str, np.int64] = {"protocol": PROTOCOL, "random": RANDOM, "greedy": GREEDY}
"""Every compiled policy by the name a user gives on the command line."""
