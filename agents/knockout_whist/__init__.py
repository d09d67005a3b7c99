"""Knockout Whist's own agents, registered for the game ``knockout-whist``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Knockout Whist's observation: ``greedy`` (``greedy.py``),
``tracker`` (``tracker.py``: greedy that remembers what each seat cannot hold) and
``mcts`` (``mcts.py``: information-set search over deals of the hidden cards drawn by
``sampler.py``, compiled in ``search.py``). They live beside Knorri's agents, under
``agents/``, so that ``sim/`` (rules and engines) never holds a decision-maker.
Importing this package registers them, and ``learned`` (``agents.learned``) for the game.

Each also plays inside compiled code, making the very same decisions:
``lineup.py`` plays whole games of any mix of them in numba (the runner's compiled
path), with ``compiled_tracker.py`` the tracker's deductions as one row per seat.
"""

from agents.base import register_bench_lineups
from agents.knockout_whist import greedy, lineup, mcts, tracker  # noqa: F401  (registering the built-in agents)
from agents.learned.agent import register_learned
from sim.knockout_whist.tensor import encode_observation

register_learned("knockout-whist", lambda n_seats: encode_observation)
# What `python -m experiments.bench.lineups` times for the game by default.
register_bench_lineups("knockout-whist", ("greedy", "tracker", "random;greedy;tracker;mcts:iters=100"))
