"""What the PettingZoo, Gymnasium and OpenSpiel interfaces share: set-up checks, spaces, observations, seeds, agents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.base import Agent, make_agent
from agents.lineup import split_agent_specs
from rl.games import GameFacts, deal_seed, facts
from sim.errors import GameInputError
from sim.games import DEFAULT_GAME, adapter
from sim.reference_base import ReferenceGame
from sim.rng import agent_seed, derive_seeds


class Setup:
    """A game, a seat count and options, checked once: what every environment is built from."""

    def __init__(self, game: str = DEFAULT_GAME, n_seats: int | None = None, options: Mapping[str, Any] | None = None):
        self.facts: GameFacts = facts(game)
        self.n_seats = self.facts.check_seats(self.facts.default_seats if n_seats is None else n_seats)
        self.options = adapter(game).check_options(options)

    def new_game(self, match_seed: int) -> ReferenceGame:
        """The reference deal of the runner's match ``match_seed``."""
        return self.facts.new_game(self.n_seats, deal_seed(match_seed), self.options)

    def observation_space(self) -> spaces.Dict:
        """One seat's observation: its float32 tensor and the legal actions as an int8 mask."""
        return spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.facts.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.facts.num_actions,), np.int8),
        })

    def observe(self, game: ReferenceGame, seat: int) -> dict[str, np.ndarray]:
        """``seat``'s observation: its tensor and mask when it is to move, zeros otherwise (and once over)."""
        if game.done or seat != game.to_move:
            return {"observation": np.zeros(self.facts.observation_size, dtype=np.float32),
                    "action_mask": np.zeros(self.facts.num_actions, dtype=np.int8)}
        return {"observation": self.facts.acting_tensor(game).astype(np.float32),
                "action_mask": game.legal_mask().astype(np.int8)}

    def illegal_reward(self) -> float:
        """The reward for an illegal action: one below the lowest score a seat can get."""
        return self.facts.score_range(self.n_seats)[0] - 1.0


class EpisodeSeeds:
    """Episode ``k`` after ``reset(seed=S)`` is the runner's match ``derive_seed(S, k)``."""

    def __init__(self, seed: int = 0) -> None:
        self.base, self.count = int(seed), 0

    def restart(self, seed: int | None) -> None:
        """Start counting again from ``seed`` (None: carry on with the next episode)."""
        if seed is not None:
            self.base, self.count = int(seed), 0

    def take(self, count: int = 1) -> np.ndarray:
        """The next ``count`` episodes' match seeds (uint64)."""
        seeds = derive_seeds(np.uint64(self.base), np.arange(self.count, self.count + count, dtype=np.uint64))
        self.count += count
        return seeds


def lineup(spec: str | Sequence[str], n_seats: int, seat: int) -> list[str]:
    """The specs of the seats other than ``seat``, in seat order: one spec for all, or one per seat (``"a;b;c"``,
    read by the one lineup parser, ``agents.lineup``)."""
    specs = split_agent_specs(spec, "opponents")
    if len(specs) == 1:
        specs = specs * (n_seats - 1)
    if len(specs) != n_seats - 1:
        raise GameInputError(f"a {n_seats}-seat table with the learner at seat {seat} needs {n_seats - 1} opponent "
                             f"specs (or one for all), not {len(specs)}")
    if not 0 <= seat < n_seats:
        raise GameInputError(f"the learner's seat must be 0 to {n_seats - 1}, not {seat}")
    return specs


def seat_agents(game: str, specs: Sequence[str], seat: int) -> dict[int, Agent]:
    """The built-in (or user) agents for every seat but ``seat``, by seat."""
    others = [s for s in range(len(specs) + 1) if s != seat]
    return {other: make_agent(spec, seed=0, game=game) for other, spec in zip(others, specs, strict=True)}


def reset_agents(agents: Mapping[int, Agent], n_seats: int, seed: int) -> None:
    """Reset each seated agent for the deal seeded ``seed``, as the runner does (``agent_seed(seed, seat)``)."""
    for seat, agent in agents.items():
        agent.reset(seat, n_seats, agent_seed(seed, seat))


def play_agents(game: ReferenceGame, agents: Mapping[int, Agent]) -> None:
    """Let the seated agents move until a seat without one is to move or the game is over."""
    while not game.done and game.to_move in agents:
        seat = game.to_move
        legal = game.legal_actions()
        game.apply(agents[seat].act(game.observation(seat), legal))
