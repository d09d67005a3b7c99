"""Kort's own agents, registered for the game ``kort``.

``random`` plays every game through the protocol alone (``agents.base``); the agents here read Kort's observation
and play for their team: ``greedy`` (a one-look heuristic), ``tracker`` (greedy that also remembers what each seat
cannot hold) and ``mcts`` (information-set search over the hidden hands drawn by ``sampler.py``, compiled in
``search.py``). Importing this package registers them, and ``learned`` (``agents.learned``) for the game.

Every one of them also has a compiled twin making the same choices, so that a lineup of built-in specs plays whole
matches inside numba on the runner's compiled path (``lineup.py``).
"""

from agents.base import register_bench_lineups
from agents.kort import greedy, lineup, mcts, tracker  # noqa: F401  (registering the built-in agents)
from agents.learned.agent import register_learned
from sim.kort.tensor import encode_observation

register_learned("kort", lambda n_seats: encode_observation)
# What `python -m experiments.bench.lineups` times for the game by default.
register_bench_lineups("kort", ("greedy", "tracker"))
