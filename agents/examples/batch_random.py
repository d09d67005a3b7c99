"""A vectorised agent: uniform over the legal ids, many deals per call, the same choices as ``random``.

    knorri-sim run --agents 'agents.examples.batch_random:BatchRandom;random;greedy;random' --hands 2000 --out runs/br

``act_batch`` gets the rows of every deal where its seat is to move (observation tensor rows, legal masks)
and, as a third argument, each deal's own splitmix64 stream for its seat, started as ``random``'s is and
advanced here in place; so it draws exactly what ``random`` draws, in NumPy. ``act`` plays on the
reference path (a lineup with agents the batch engine cannot play, or a logged run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.rng import GOLDEN_GAMMA, SplitMix64


class BatchRandom:
    """Uniform over the legal ids: ``legal[next() % len(legal)]`` from the deal's and seat's own stream."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "batch_random"
        self._stream = SplitMix64(seed)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Start a deal (reference path) or a batch; the per-deal streams come with ``act_batch``."""
        if seed is not None:
            self._stream = SplitMix64(seed)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """One deal at a time, on the reference path."""
        return int(self._stream.choice(legal))

    def act_batch(self, observations: np.ndarray, legal_mask: np.ndarray, streams: np.ndarray) -> np.ndarray:
        """One legal id per row: the k-th legal id, k = splitmix64(next state) % legal count."""
        streams += np.uint64(GOLDEN_GAMMA)  # advance each row's stream, then mix (splitmix64's output)
        z = (streams ^ (streams >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
        k = z % legal_mask.sum(axis=1).astype(np.uint64)
        return (np.cumsum(legal_mask, axis=1) > k[:, None].astype(np.int64)).argmax(axis=1)
