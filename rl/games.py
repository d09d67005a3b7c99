"""The facts the RL interfaces need of a game, read off its adapter; everything in ``rl`` is written once for all.

Every game has the same shape (``sim.reference_base.ReferenceGame`` for play with
agents and text, ``sim.batch_base.CompiledBatch`` for lockstep batches): what differs
is how a deal is made from a seed (the adapter's ``deal``), which options and seat
counts there are, and the adapter's ``LEARNING`` facts (tensors, batches, cut-offs,
bounds). A registered game whose adapter gives ``LEARNING`` is offered here.

An episode is the game's runner row: a Knorri hand, a Knockout Whist game, a Kort
match. Episode ``k`` of an environment seeded ``S`` is the runner's match with seed
``derive_seed(S, k)``: its deal is seeded ``derive_seed(match_seed, 0)`` and every
agent is reset with ``agent_seed(deal_seed, seat)``, exactly as ``knorri-sim run``
plays it, so an episode can be replayed by the runner.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from sim import games
from sim.batch_base import CompiledBatch
from sim.contract import LearningFacts, check_seats
from sim.errors import GameInputError
from sim.reference_base import ReferenceGame
from sim.rng import derive_seed

Options = Mapping[str, Any]


@dataclass(frozen=True)
class GameFacts:
    """What the RL interfaces must know of one game (the rest they read from its engines)."""

    name: str  # the game's name in ``sim.games`` (and agent specs)
    title: str
    seats: tuple[int, ...]  # the seat counts it is played with
    default_seats: int
    new_game: Callable[[int, int, Options], ReferenceGame]  # (seats, deal seed, options) -> the reference deal
    num_actions: int
    observation_size: int
    new_batch: Callable[[int, np.ndarray, Options], CompiledBatch]  # (seats, deal seeds, options) -> a batch
    acting_tensor: Callable[[ReferenceGame], np.ndarray]  # the seat to move's float32 tensor
    board: Callable[[ReferenceGame], str]  # the position as text for people
    cut_offs: tuple[str, ...]  # end reasons that are cut-offs (truncations, with scores), not natural ends
    cut_off_codes: tuple[int, ...]  # the same as the compiled batch's ``end_reason`` codes
    score_range: Callable[[int], tuple[float, float]]  # (lowest, highest) score a seat can get at n seats
    max_decisions: Callable[[int, Options], int]  # an upper bound on one deal's decisions (n seats, options)
    # (deal, seat, rng) -> a copy the seat cannot tell from the deal, its unseen cards drawn afresh (None: not given)
    resample: Callable[[ReferenceGame, int, random.Random], ReferenceGame] | None = None

    def check_seats(self, n_seats: int) -> int:
        """``n_seats`` if the game is played with it; otherwise one clear line (the contract's one seat check)."""
        return check_seats(games.adapter(self.name), n_seats)

    def truncated(self, game: ReferenceGame) -> bool:
        """Whether a finished reference game ended by a cut-off (a truncation) rather than by the rules' end."""
        return game.done and str(game.end_reason.value) in self.cut_offs


def facts(name: str) -> GameFacts:
    """The facts of the game called ``name``; an unknown game, or one without ``LEARNING``, is one line."""
    adapter = games.adapter(name)
    learning: LearningFacts | None = adapter.LEARNING
    if learning is None:
        raise GameInputError(f"{adapter.TITLE} has no RL interface: its adapter gives no LEARNING facts")
    return GameFacts(name=name, title=adapter.TITLE, seats=tuple(range(adapter.MIN_SEATS, adapter.MAX_SEATS + 1)),
                     default_seats=adapter.DEFAULT_SEATS,
                     new_game=lambda n_seats, seed, options: adapter.deal(n_seats, seed, options),
                     **{field.name: getattr(learning, field.name) for field in fields(LearningFacts)})


def learning_games() -> dict[str, GameFacts]:
    """Every registered game that gives the RL interfaces their facts, by name."""
    return {name: facts(name) for name in games.names() if games.adapter(name).LEARNING is not None}


def deal_seed(match_seed: int) -> int:
    """The seed of the deal of the runner's match ``match_seed`` (its first and only row)."""
    return derive_seed(int(match_seed), 0)
