"""The compiled helpers that Knockout Whist's and Kort's step APIs (``sim.<game>.compiled``) share, listed once.

Each of those packages re-exports these beside its own steps and readers, so that a search agent
imports everything it calls from its game's API: the random streams (``DEAL_STREAM``,
``SEAT_STREAMS``, ``next_u64``, ``below``, ``uniform_float``, and ``agent_seed``, ``derive_seed1``
for an agent's own streams), card sets (``popcount``, ``lowest_card``), a position as one record
(``Position``) and copying it (``copy_position``), and dealing hidden cards suit by suit (``refill``,
``take_within_suits``).
All are compiled with numba and can be called from Python or from an agent's own compiled
code (an edit to the engine recompiles the agent's kernels too: ``sim.compile_cache`` keys
them by every source file).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import (
    DEAL_STREAM,
    SEAT_STREAMS,
    agent_seed,
    below,
    derive_seed1,
    lowest_card,
    next_u64,
    popcount,
    refill,
    take_within_suits,
    uniform_float,
)

__all__ = [
    "DEAL_STREAM",
    "SEAT_STREAMS",
    "Position",
    "agent_seed",
    "below",
    "copy_position",
    "derive_seed1",
    "lowest_card",
    "next_u64",
    "popcount",
    "refill",
    "take_within_suits",
    "uniform_float",
]


class Position(NamedTuple):
    """One position of a game whose state is four arrays: what a search keeps as its root, copies and steps.

    The layout of ``cards`` and ``ints`` is the game's own (private to ``sim.<game>``); the step API's
    ``new_position`` makes one and its kernels read and write it.
    """

    cards: np.ndarray  # uint64 card sets
    ints: np.ndarray  # int64 scalars
    deck: np.ndarray  # int64[52]: the current deal's permutation
    rng: np.ndarray  # uint64 splitmix64 states: rng[DEAL_STREAM] the game's, rng[SEAT_STREAMS + s] seat s's


@njit(**config.INLINED_KERNEL)
def copy_position(source: Position, target: Position) -> None:
    """Copy ``source`` into ``target``'s arrays, its streams included (a search's restart)."""
    for i in range(source.cards.shape[0]):
        target.cards[i] = source.cards[i]
    for i in range(source.ints.shape[0]):
        target.ints[i] = source.ints[i]
    for i in range(52):
        target.deck[i] = source.deck[i]
    for i in range(source.rng.shape[0]):
        target.rng[i] = source.rng[i]


@njit(**config.KERNEL)
def empty_position(card_fields: int, int_fields: int, streams: int) -> Position:
    """A zeroed position with rows this wide (a game's ``new_position``; compiled, so kernels make their own)."""
    return Position(np.zeros(card_fields, dtype=np.uint64), np.zeros(int_fields, dtype=np.int64),
                    np.zeros(52, dtype=np.int64), np.zeros(streams, dtype=np.uint64))
