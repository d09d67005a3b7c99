"""The ``learned`` agent: a Q-network trained by ``knorri-sim train``, played in NumPy and numba (``network.py``),
from the seat's observation tensor (the agent in ``agent.py``). Each game's agents package
registers it for its game with the encoder of its observations (``agent.register_learned``).
"""
