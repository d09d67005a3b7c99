"""Kort's own agents, registered for the game ``kort``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Kort's observation and play for their team (partners share a
result): ``greedy`` (``greedy.py``, a one-look heuristic for every decision) and
``tracker`` (``tracker.py``: greedy that also remembers what each seat cannot hold);
``sampler.py`` draws the hidden hands consistent with what a seat knows. Importing
this package registers them.
"""

from agents.kort import greedy, tracker  # noqa: F401  (registering the built-in agents)
