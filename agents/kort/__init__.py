"""Kort's own agents, registered for the game ``kort``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Kort's observation and play for their team (partners share a
result): ``greedy`` (``greedy.py``, a one-look heuristic for every decision),
``tracker`` (``tracker.py``: greedy that also remembers what each seat cannot hold)
and ``mcts`` (``mcts.py``: information-set search over the hidden hands drawn by
``sampler.py``, compiled in ``search.py`` on the engine's compiled step API, with
greedy's choices compiled for playouts in ``playout.py``). Importing this package
registers them.
"""

from agents.kort import greedy, mcts, tracker  # noqa: F401  (registering the built-in agents)
