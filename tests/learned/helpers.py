"""Weights for the learned agent's tests: random networks written as the training writes them."""

from __future__ import annotations

from pathlib import Path

from agents.learned.network import random_network
from sim import games


def random_weights(folder: Path, game: str = "knorri", seed: int = 1, hidden: tuple[int, int] = (32, 16)) -> Path:
    """A small random network for ``game`` saved in ``folder``; its path."""
    facts = games.adapter(game).LEARNING
    path = folder / f"{game}-{seed}.npz"
    random_network(facts.observation_size, facts.num_actions, hidden, seed=seed, meta={"game": game}).save(path)
    return path
