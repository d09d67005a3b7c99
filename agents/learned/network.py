"""The learned agent's network: its weights as NumPy arrays (an ``.npz`` file) and its compiled forward pass.

The network reads a seat's observation tensor (the game's ``LearningFacts``: the same numbers the compiled batch
and the RL interfaces give) and returns one value per action id: Q(s, a), the seat's expected final score after
taking action ``a`` in the position ``s``. Layers: ``x * scale`` (a fixed per-feature scale that brings counts
such as phase-2 actions near 1), then two hidden ReLU layers, then a linear layer with one output per action id.
One pass scores every action of a position at once, so a decision costs the same whatever the number of legal
actions.

The forward pass is a numba kernel that walks each row in a fixed order, skipping zero inputs (the tensors are
mostly zero): a row's values never depend on the other rows of its batch, so the batched ``act_batch`` and the
one-position ``act`` choose alike, bit for bit. Playing needs NumPy and numba only; the training library
(``knorri-sim train``, the ``train`` extra) writes the same file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from sim import config

LAYERS = ("w1", "b1", "w2", "b2", "w3", "b3")
"""The arrays of the three layers, in order: ``w`` is ``[inputs, outputs]``, ``b`` is ``[outputs]``."""
FORMAT = 1
"""The weights file's format version (``meta["format"]``)."""


class WeightsError(ValueError):
    """A weights file that cannot be read as a learned agent's network, or one made for another game."""


@dataclass
class QNetwork:
    """A learned agent's weights: the input scale, three layers, and what they were made for (``meta``)."""

    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def observation_size(self) -> int:
        """How many numbers the observation tensor it reads holds."""
        return int(self.w1.shape[0])

    @property
    def num_actions(self) -> int:
        """How many action ids it scores."""
        return int(self.w3.shape[1])

    def arrays(self) -> dict[str, np.ndarray]:
        """The scale and every layer's array, by name (float32, C order)."""
        return {"scale": self.scale, **{name: getattr(self, name) for name in LAYERS}}

    def q_values(self, observations: np.ndarray) -> np.ndarray:
        """``float32[k, num_actions]``: Q of every action id in each of ``k`` observation rows."""
        observations = np.ascontiguousarray(observations, dtype=np.float32).reshape(-1, self.observation_size)
        out = np.empty((len(observations), self.num_actions), dtype=np.float32)
        forward(observations, self.scale, self.w1, self.b1, self.w2, self.b2, self.w3, self.b3, out)
        return out

    def best_actions(self, observations: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """``int64[k]``: each row's legal action of highest Q (the lowest id among equals), deterministic."""
        return best_legal(self.q_values(observations), np.ascontiguousarray(legal_mask, dtype=np.bool_))

    def best_of(self, observation: np.ndarray, legal: np.ndarray) -> int:
        """One position's legal action of highest Q (lowest id among equals): ``best_actions`` for a single row,
        with its legal ids as an ``int64`` array, in one compiled call."""
        return int(best_of_row(np.ascontiguousarray(observation, dtype=np.float32), legal, self.scale, self.w1,
                               self.b1, self.w2, self.b2, self.w3, self.b3))

    def save(self, path: str | Path) -> str:
        """Write the weights to ``path`` (``.npz``, NumPy only, no pickles) and return their sha256 (of the arrays
        and meta, so the same weights give the same digest whatever the zip file's dates)."""
        arrays = {name: np.ascontiguousarray(array, dtype=np.float32) for name, array in self.arrays().items()}
        meta = json.dumps({**self.meta, "format": FORMAT}, sort_keys=True)
        path = Path(path)
        with open(path, "wb") as handle:
            np.savez(handle, meta=np.array(meta), **arrays)
        return digest(arrays, meta)

    def sha256(self) -> str:
        """The digest ``save`` returns for these weights."""
        arrays = {name: np.ascontiguousarray(array, dtype=np.float32) for name, array in self.arrays().items()}
        return digest(arrays, json.dumps({**self.meta, "format": FORMAT}, sort_keys=True))


def digest(arrays: dict[str, np.ndarray], meta: str) -> str:
    """The sha256 of a network's arrays (in ``LAYERS`` order after ``scale``) and its meta text."""
    sha = hashlib.sha256(meta.encode())
    for name in ("scale", *LAYERS):
        sha.update(arrays[name].tobytes())
    return sha.hexdigest()


def load(path: str | Path, observation_size: int | None = None, num_actions: int | None = None,
         game: str | None = None) -> QNetwork:
    """The network in ``path``; a ``WeightsError`` line for a file that is missing, unreadable, or made for another
    game or tensor than the one given."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {name: np.ascontiguousarray(data[name], dtype=np.float32) for name in ("scale", *LAYERS)}
            meta = json.loads(str(data["meta"]))
    except FileNotFoundError:
        raise WeightsError(f"weights file {str(path)!r} does not exist") from None
    except (OSError, KeyError, ValueError) as error:
        raise WeightsError(f"weights file {str(path)!r} is not a learned agent's .npz ({error})") from None
    network = QNetwork(meta=meta, **arrays)
    check_shapes(network, str(path))
    if game is not None and meta.get("game", game) != game:
        raise WeightsError(f"weights file {str(path)!r} was trained for {meta['game']}, not {game}")
    if observation_size is not None and network.observation_size != observation_size:
        raise WeightsError(f"weights file {str(path)!r} reads {network.observation_size} inputs; this game's "
                           f"observation tensor has {observation_size}")
    if num_actions is not None and network.num_actions != num_actions:
        raise WeightsError(f"weights file {str(path)!r} scores {network.num_actions} actions; this game has "
                           f"{num_actions}")
    return network


def check_shapes(network: QNetwork, where: str) -> None:
    """One ``WeightsError`` line unless the layers chain: ``scale[F]``, ``w1[F, H1]``, ``w2[H1, H2]``, ``w3[H2, A]``."""
    f, (h1, h2, a) = network.scale.shape[0], (network.b1.shape[0], network.b2.shape[0], network.b3.shape[0])
    expected = {"scale": (f,), "w1": (f, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2, a), "b3": (a,)}
    for name, shape in expected.items():
        if network.arrays()[name].shape != shape:
            raise WeightsError(f"weights file {where!r}: {name} has shape {network.arrays()[name].shape}, "
                               f"expected {shape}")


def random_network(observation_size: int, num_actions: int, hidden: tuple[int, int] = (256, 256), seed: int = 0,
                   scale: np.ndarray | None = None, meta: dict[str, Any] | None = None) -> QNetwork:
    """A network of random weights (He-scaled normal, zero biases), the start of training and of tests."""
    rng = np.random.default_rng(seed)
    sizes = (observation_size, *hidden, num_actions)
    layers: dict[str, np.ndarray] = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True), start=1):
        layers[f"w{i}"] = (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32)
        layers[f"b{i}"] = np.zeros(n_out, dtype=np.float32)
    layers["w3"] *= np.float32(0.1)  # small first values: Q starts near zero for every action
    scale = np.ones(observation_size, dtype=np.float32) if scale is None else scale.astype(np.float32)
    return QNetwork(scale=scale, meta=dict(meta or {}), **layers)


@njit(**config.KERNEL)
def forward(observations, scale, w1, b1, w2, b2, w3, b3, out):
    """``out[r]`` = the network's Q values of row ``r``: each row alone, inputs in order, zeros skipped."""
    h1 = np.empty(w1.shape[1], dtype=np.float32)
    h2 = np.empty(w2.shape[1], dtype=np.float32)
    for r in range(observations.shape[0]):
        h1[:] = b1
        for i in range(observations.shape[1]):
            x = observations[r, i] * scale[i]
            if x != 0.0:
                for j in range(h1.shape[0]):
                    h1[j] += x * w1[i, j]
        h2[:] = b2
        for i in range(h1.shape[0]):
            x = h1[i]
            if x > 0.0:
                for j in range(h2.shape[0]):
                    h2[j] += x * w2[i, j]
        for j in range(out.shape[1]):
            out[r, j] = b3[j]
        for i in range(h2.shape[0]):
            x = h2[i]
            if x > 0.0:
                for j in range(out.shape[1]):
                    out[r, j] += x * w3[i, j]


@njit(**config.KERNEL)
def best_legal(q, legal_mask):
    """``int64[k]``: each row's legal action of highest ``q`` (the lowest id among equals; -1 for a row with none)."""
    chosen = np.full(q.shape[0], -1, dtype=np.int64)
    for r in range(q.shape[0]):
        best = np.float32(0.0)
        for a in range(q.shape[1]):
            if legal_mask[r, a] and (chosen[r] < 0 or q[r, a] > best):
                chosen[r], best = a, q[r, a]
    return chosen


@njit(**config.KERNEL)
def best_of_row(observation, legal, scale, w1, b1, w2, b2, w3, b3):
    """The legal id (of ``legal``, ascending) of highest Q for one observation row: ``forward`` then ``best_legal``."""
    q = np.empty((1, w3.shape[1]), dtype=np.float32)
    forward(observation.reshape(1, observation.shape[0]), scale, w1, b1, w2, b2, w3, b3, q)
    best = legal[0]
    for a in legal[1:]:
        if q[0, a] > q[0, best]:
            best = a
    return best
