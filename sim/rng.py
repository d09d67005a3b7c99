"""The project's one random stream: splitmix64, as the conformance protocol fixes it.

Every engine draws its decks (and the protocol's choices) from this generator, so
that any two engines given the same seed deal the same cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15

T = TypeVar("T")


def splitmix64_mix(z: int) -> int:
    """The splitmix64 output function (a bijection on 64-bit integers)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class SplitMix64:
    """A splitmix64 generator over unsigned 64-bit state."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def __deepcopy__(self, memo: dict) -> SplitMix64:
        """A twin at the same point of the stream (what a cloned game's later decks come from): one int to copy,
        so a clone does not pay for the generic deep copy."""
        return SplitMix64(self.state)

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        return splitmix64_mix(self.state)

    def below(self, n: int) -> int:
        """``next() % n``: the protocol's (slightly biased, but fixed) way to pick one of n."""
        return self.next() % n

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``, as the protocol picks: ``options[next() % len(options)]``."""
        return options[self.next() % len(options)]

    def shuffled_deck(self, size: int = 52) -> list[int]:
        """A permutation of ``0..size-1`` by the protocol's Fisher-Yates: i from size-1 down to 1."""
        deck = list(range(size))
        for i in range(size - 1, 0, -1):
            j = self.next() % (i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck


def derive_seed(seed: int, *path: int) -> int:
    """A 64-bit seed for a sub-stream (a hand of a match, a chunk of a run), from a seed and a path."""
    value = seed & MASK64
    for step in path:
        value = splitmix64_mix((value + GOLDEN_GAMMA * ((step & MASK64) + 1)) & MASK64)
    return value


AGENT_STREAM = 1


def agent_seed(hand_seed: int, seat: int) -> int:
    """The seed an agent at ``seat`` is reset with for the hand dealt from ``hand_seed``.

    Every driver (the play command, the runner, the compiled playouts) uses this, so
    a hand with its agents is a function of its seed alone, whatever engine plays it.
    """
    return derive_seed(hand_seed, AGENT_STREAM, seat)


def derive_seeds(seeds: np.ndarray, step: int | np.ndarray) -> np.ndarray:
    """``sim.rng.derive_seed(seed, step)`` entry by entry over uint64 arrays (or one step), at NumPy speed."""
    steps = np.atleast_1d(np.asarray(step, dtype=np.uint64))  # arrays wrap silently; scalars would warn
    z = np.asarray(seeds, dtype=np.uint64) + np.uint64(GOLDEN_GAMMA) * (steps + np.uint64(1))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
