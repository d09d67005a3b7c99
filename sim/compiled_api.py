"""The compiled helpers that Knockout Whist's and Kort's step APIs (``sim.<game>.compiled``) share, listed once.

Each of those packages re-exports these beside its own steps and readers, so that a search agent
imports everything it calls from its game's API: the random streams (``DEAL_STREAM``,
``SEAT_STREAMS``, ``next_u64``, ``below``, ``uniform_float``, and ``agent_seed``, ``derive_seed1``
for an agent's own streams), card sets (``popcount``, ``lowest_card``), copying a position
(``copy_position``) and dealing hidden cards suit by suit (``refill``, ``take_within_suits``).
All are compiled with numba and can be called from Python or from an agent's own compiled
code (an edit to the engine recompiles the agent's kernels too: ``sim.compile_cache`` keys
them by every source file).
"""

from __future__ import annotations

from sim.compiled_bits import (
    DEAL_STREAM,
    SEAT_STREAMS,
    agent_seed,
    below,
    copy_position,
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
