"""Knockout Whist's own agents, registered for the game ``knockout-whist``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Knockout Whist's observation: ``greedy`` (``greedy.py``) and
``tracker`` (``tracker.py``: greedy that remembers what each seat cannot hold).
They live beside Knorri's agents, under ``agents/``, so that ``sim/`` (rules and
engines) never holds a policy. Importing this package registers them.
"""

from agents.knockout_whist import greedy, tracker  # noqa: F401  (registering the built-in agents)
