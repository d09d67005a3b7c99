"""An agent with compiled code of its own, loaded by import path as a user's would be.

It declares its kernel module in ``COMPILED_CODE`` as the built-in search agents do,
so a run tells a first use that it compiles, and compiles it once before its workers start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from sim import config


@njit(**config.KERNEL)
def lowest(legal):
    """The smallest legal id (compiled)."""
    return legal.min()


class CompiledLowest:
    """Always the lowest legal id, chosen by a compiled kernel."""

    PARAMETERS: dict[str, type] = {}
    COMPILED_CODE: dict[str, float] = {"runner_fixtures.compiled": 1.0}

    def __init__(self, seed: int = 0) -> None:
        self.name = "compiled-lowest"

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Nothing to remember."""

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The lowest legal id."""
        return int(lowest(np.asarray(legal, dtype=np.int64)))
