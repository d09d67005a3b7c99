"""Knorri's own agents, registered for the game ``knorri``.

``random`` plays every game through the protocol alone (``agents.base``); the agents here
read Knorri's observation: ``greedy`` (``greedy.py``, a one-look heuristic), ``loginf``
(``loginf.py``: reads the public log with the tracker in ``tracker.py`` and, in phase 2,
tries each legal action with a playout from ``playout.py``) and ``mcts`` (``mcts.py``:
information-set search, compiled in ``search.py``, with the opponent models of
``opponent_models.py``). Importing this package registers them, and ``learned`` (``agents.learned``) for Knorri.

Each has a compiled twin making the same choices, so that a lineup of built-in specs plays
whole hands inside numba on the runner's compiled path (``lineup.py``).
"""

from agents.base import register_bench_lineups
from agents.knorri import greedy, lineup, loginf, mcts  # noqa: F401  (registering the built-in agents)
from agents.knorri.tensor import KnorriEncoder
from agents.learned.agent import register_learned

register_learned("knorri", KnorriEncoder, {"agents.knorri.tensor": 1.0})
# What `python -m experiments.bench.lineups` times for the game by default.
register_bench_lineups("knorri", ("greedy", "loginf", "random;greedy;loginf;mcts:iters=100"))
