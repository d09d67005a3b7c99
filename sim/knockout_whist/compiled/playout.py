"""Compiled whole-game playouts: games from seeds to their end without returning to Python (private).

The games are split into chunks, which threads may play at once (``sim.batch_base.play_spread``).
Each chunk owns its scratch rows and writes only its own games' rows of the
output, so nothing is shared between threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import seed_streams
from sim.knockout_whist.compiled.kernels import apply_action, init_game, uniform_action
from sim.knockout_whist.compiled.state import I_END_REASON, I_TO_MOVE, RNG_DEAL, RNG_SEAT, new_position
from sim.policy_ids import PROTOCOL, RANDOM

POLICY_NAMES: dict[str, np.int64] = {"protocol": PROTOCOL, "random": RANDOM}
"""The policies whole-game playouts play, by name (ids: ``sim.policy_ids``)."""


@njit(**config.STEP_KERNEL)
def _play_to_end(cards, ints, deck, rng, policy):
    """Play one game on to its end, every decision uniform from the policy's stream."""
    while ints[I_END_REASON] < 0:
        stream = RNG_DEAL if policy == PROTOCOL else RNG_SEAT + ints[I_TO_MOVE]
        apply_action(cards, ints, deck, rng, uniform_action(cards, ints, rng, stream))


@njit(**config.KERNEL)
def play_chunk(n_seats, flags, seeds, policy, start, stop, ints_out):
    """Play games ``start`` to ``stop - 1`` of the seeds to their end with one set of scratch rows; ``ints_out[g]``
    gets game g's final ints row. Several threads may play disjoint chunks at once (``sim.batch_base.play_spread``).

    Game g's own stream starts at ``seeds[g]`` (and seat s's at ``agent_seed(seeds[g], s)``); ``flags`` are the
    options as ``Options.flags()``; ``policy`` is ``PROTOCOL`` or ``RANDOM``.
    """
    cards, _, deck, rng = new_position()
    for g in range(start, stop):
        ints = ints_out[g]
        seed_streams(rng, seeds[g], n_seats)
        init_game(cards, ints, deck, rng, n_seats, flags)
        _play_to_end(cards, ints, deck, rng, policy)
