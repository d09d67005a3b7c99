"""The ``learned`` agent of every built-in game: a Q-network trained by ``knorri-sim train``, played in NumPy and
numba (``network.py``), from the seat's observation tensor (``tensors.py``; the agent in ``agent.py``). Importing
this package registers it.
"""

from agents.learned import agent  # noqa: F401  (registering learned for every built-in game)
