"""Vectorised agents the batch-agent tests load by import path (``runner_fixtures.batch_agents:Name``)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from agents.examples.batch_random import BatchRandom


class CountingBatchRandom(BatchRandom):
    """``BatchRandom`` that counts its calls and rows and checks what it is given."""

    calls: ClassVar[list[int]] = []

    def act_batch(self, observations: np.ndarray, legal_mask: np.ndarray, streams: np.ndarray) -> np.ndarray:
        """``BatchRandom``'s choice, after noting the call."""
        assert observations.dtype == np.float32 and observations.shape[0] == legal_mask.shape[0] == len(streams)
        assert legal_mask.any(axis=1).all() and observations.any(axis=1).all()
        CountingBatchRandom.calls.append(len(streams))
        return super().act_batch(observations, legal_mask, streams)


class Illegal(BatchRandom):
    """Chooses 99, never legal."""

    def act_batch(self, observations: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """99 for every row."""
        return np.full(len(legal_mask), 99)


class Raises(BatchRandom):
    """Fails on its first call."""

    def act_batch(self, observations: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """Always fails."""
        raise RuntimeError("this batch agent always fails")


class Resets(BatchRandom):
    """Notes every reset."""

    seen: ClassVar[list[tuple[int, int | None]]] = []

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Note the seat and seed."""
        Resets.seen.append((seat, seed))
