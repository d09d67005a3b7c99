"""Compiled whole-match playouts: matches from seeds to their end without returning to Python (private).

The matches are split into chunks, which threads may play at once (``sim.batch_base.play_spread``).
Each chunk owns its scratch rows and writes only its own matches' rows of the
outputs, so nothing is shared between threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.kort.compiled.kernels import apply_action, init_match, seed_streams, uniform_action
from sim.kort.compiled.state import (
    I_END_REASON,
    I_LAST_ROUND,
    I_ROUNDS_PLAYED,
    I_TO_MOVE,
    RNG_DEAL,
    RNG_SEAT,
    ROUND_FIELDS,
    new_position,
)
from sim.policy_ids import PROTOCOL, RANDOM

POLICY_NAMES: dict[str, np.int64] = {"protocol": PROTOCOL, "random": RANDOM}
"""The policies whole-match playouts play, by name (ids: ``sim.policy_ids``)."""


@njit(**config.INLINED_KERNEL)
def copy_round_record(ints, rounds, recorded):
    """Copy the rounds finished since ``recorded`` (at most one a step) into ``rounds`` while it has room.

    Returns how many rounds are recorded now. ``rounds`` is ``int16[R, ROUND_FIELDS]``; with R = 0 nothing is kept.
    """
    played = ints[I_ROUNDS_PLAYED]
    if played > recorded and recorded < rounds.shape[0]:
        for i in range(ROUND_FIELDS):
            rounds[recorded, i] = ints[I_LAST_ROUND + i]
    return played


@njit(**config.STEP_KERNEL)
def _play_to_end(cards, ints, deck, rng, policy, rounds):
    """Play one match on to its end, every decision uniform from the policy's stream, recording its rounds."""
    recorded = ints[I_ROUNDS_PLAYED]
    while ints[I_END_REASON] < 0:
        stream = RNG_DEAL if policy == PROTOCOL else RNG_SEAT + ints[I_TO_MOVE]
        apply_action(cards, ints, deck, rng, uniform_action(cards, ints, rng, stream))
        recorded = copy_round_record(ints, rounds, recorded)


@njit(**config.KERNEL)
def play_chunk(target_wins, first_holder, seeds, policy, start, stop, ints_out, rounds_out):
    """Play matches ``start`` to ``stop - 1`` of the seeds to their end with one set of scratch rows; ``ints_out[g]``
    gets match g's final ints row and ``rounds_out[g, r]`` its round r's record (``int16[G, R, ROUND_FIELDS]``; R = 0
    keeps none). Several threads may play disjoint chunks at once (``sim.batch_base.play_spread``).

    Match g's own stream starts at ``seeds[g]`` (and seat s's at ``agent_seed(seeds[g], s)``); ``policy`` is
    ``PROTOCOL`` or ``RANDOM``.
    """
    cards, _, deck, rng = new_position()
    for g in range(start, stop):
        ints = ints_out[g]
        seed_streams(rng, seeds[g])
        init_match(cards, ints, deck, rng, target_wins, first_holder)
        _play_to_end(cards, ints, deck, rng, policy, rounds_out[g])
