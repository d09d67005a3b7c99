"""Kort's own agents, registered for the game ``kort``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Kort's observation and play for their team (partners share a
result): ``greedy`` (``greedy.py``, a one-look heuristic for every decision),
``tracker`` (``tracker.py``: greedy that also remembers what each seat cannot hold)
and ``mcts`` (``mcts.py``: information-set search over the hidden hands drawn by
``sampler.py``, compiled in ``search.py`` on the engine's compiled step API; its playouts
play the engine's compiled ``greedy`` or ``random`` policy on the view ``playout.py`` keeps).
Importing this package registers them, and ``learned`` (``agents.learned``) for the game.

Every one of them also has a compiled twin making the same choices, so that a lineup of
built-in specs plays whole matches inside numba on the runner's compiled path:
``lineup.py`` dispatches each seat to random, greedy (the engine's ``greedy_choice``),
tracker (``compiled_tracker.py``: the tracker's deductions and choice, stepped from the
public state only) or mcts (the same compiled search, fed by the compiled tracker).
"""

from agents.base import register_bench_lineups
from agents.kort import greedy, lineup, mcts, tracker  # noqa: F401  (registering the built-in agents)
from agents.learned.agent import register_learned
from sim.kort.tensor import encode_observation

register_learned("kort", lambda n_seats: encode_observation)
# What `python -m experiments.bench.lineups` times for the game by default.
register_bench_lineups("kort", ("greedy", "tracker"))
