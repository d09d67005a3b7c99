"""The ``learned`` agent: a Q-network's greedy choice among the legal actions, from the seat's observation tensor.

``learned`` plays the weights shipped for the game (``agents/learned/weights/<game>.npz``, with a model card
beside them); ``learned:weights=PATH`` plays any file ``knorri-sim train`` wrote. One network serves every seat
count of its game: the tensor says which seats are at the table.

It plays on every route. On the runner's batch route ``act_batch`` scores the rows of every hand where its seat is
to move in one compiled call; on the reference route ``act`` builds the same tensor from the observation (with
the encoder the game registered it with) and scores it alone. Each row is scored on its own, so both make the same
choice; among actions of equal value the lowest id is taken, so the agent is deterministic and draws nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from agents.base import register, resolve_spec
from agents.learned import network
from sim import games

Encoder = Callable[[Any], np.ndarray]
"""A seat's observation -> the ``float32`` tensor the game's compiled batch writes for that seat's decision."""

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
"""Where the shipped weights and their model cards live, inside the package."""

_LOADED: dict[tuple[str, str, float], network.QNetwork] = {}  # (game, path, mtime) -> network, loaded once


def shipped_weights(game: str) -> Path:
    """The path of the weights shipped for ``game`` (which may not exist yet)."""
    return WEIGHTS_DIR / f"{game.replace('-', '_')}.npz"


def load_network(game: str, weights: str | None = None) -> network.QNetwork:
    """The network a ``learned`` spec plays for ``game``: ``weights`` (a path), or the shipped file; one line
    (``WeightsError``) for a file that is missing or does not fit the game."""
    path = Path(os.path.expanduser(weights)) if weights else shipped_weights(game)
    if not weights and not path.exists():
        raise network.WeightsError(f"no weights are shipped for {game} yet: train some with knorri-sim train "
                                   f"--game {game} and play them with learned:weights=PATH")
    try:
        key = (game, str(path.resolve()), path.stat().st_mtime)
    except OSError:
        raise network.WeightsError(f"weights file {str(path)!r} does not exist") from None
    if key not in _LOADED:
        facts = games.adapter(game).LEARNING
        _LOADED[key] = network.load(path, facts.observation_size, facts.num_actions, game)
    return _LOADED[key]


class LearnedAgent:
    """Greedy over a Q-network's values of the legal actions (``agents.learned.network``)."""

    GAME: ClassVar[str] = ""
    ENCODER: ClassVar[Callable[[int], Encoder]]
    PARAMETERS: ClassVar[dict[str, type]] = {"weights": str}
    BATCH_COMPILED_CODE: ClassVar[dict[str, float]] = {"agents.learned.network": 3.0}  # the batch's tensors: no encoder
    COMPILED_CODE: ClassVar[dict[str, float]] = BATCH_COMPILED_CODE  # and register_learned adds the game's encoder

    def __init__(self, seed: int = 0, weights: str | None = None) -> None:
        self.name = "learned"
        self.network = load_network(self.GAME, weights)
        self.seat, self.n_seats = 0, 0
        self._encode = None

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new hand (or game) at ``seat``: forget the log read so far. It draws nothing, so ``seed`` is unused."""
        self.seat, self.n_seats = seat, n_seats
        self._encode = type(self).ENCODER(n_seats)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The legal action of highest Q in this position (lowest id among equals)."""
        if self._encode is None:
            self.reset(observation.seat, observation.n_seats)
        if len(legal) == 1:  # nothing to choose; the tracker reads the log it skips at the next call
            return int(legal[0])
        return self.network.best_of(self._encode(observation), np.asarray(legal, dtype=np.int64))

    def act_batch(self, observations: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """The same choice for every row at once: the batch route's tensor rows and legal masks."""
        return self.network.best_actions(observations, legal_mask)


def register_learned(game: str, encoder: Callable[[int], Encoder],
                     compiled_code: dict[str, float] | None = None) -> type[LearnedAgent]:
    """Register ``learned`` for ``game``, whose observations ``encoder(n_seats)`` turns into the tensor its batch
    writes (a new encoder each hand, as it may remember the log); ``compiled_code`` names the encoder's kernel
    modules and their compile seconds, as ``COMPILED_CODE`` does. A game's agents package calls this for itself."""
    bound = type(f"Learned{game.title().replace('-', '')}", (LearnedAgent,),
                 {"GAME": game, "ENCODER": staticmethod(encoder), "__doc__": LearnedAgent.__doc__,
                  "COMPILED_CODE": {**LearnedAgent.COMPILED_CODE, **(compiled_code or {})}})
    return register("learned", game=game)(bound)


def encoder_for(game: str, n_seats: int) -> Encoder:
    """A new encoder of ``game``'s observations at ``n_seats`` seats: the one ``learned`` was registered with for
    the game (an ``AgentSpecError`` line for a game without ``learned``)."""
    return resolve_spec("learned", game).factory.ENCODER(n_seats)
