"""PettingZoo AEC environments: every game's reference engine, one agent per seat (``player_0`` ...).

``env(game="knorri", n_seats=4)`` (wrapped as PettingZoo's classic games are) or ``raw_env(...)``. An episode is
the game's runner row; every agent's reward is its score, given when the episode ends, and Knorri's cut-offs are
truncations. The acting agent observes its tensor (only what its seat may know) and its legal actions as
``action_mask``. ``reset(seed=S)`` plays the runner's match ``derive_seed(S, k)`` at the k-th reset after it; a
deal that ends before anyone decides is skipped. PettingZoo's ``api_test`` and ``seed_test`` pass;
``max_cycles_test`` needs a parallel environment and does not apply. More in docs/internals.md,
``rl.pettingzoo_env``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rl.common import EpisodeSeeds, Setup
from sim.games import DEFAULT_GAME


class CardGameEnv(AECEnv):
    """One game's deals as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "knorri_sim_v0", "is_parallelizable": False}

    def __init__(self, game: str = DEFAULT_GAME, n_seats: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        """The environment of ``game`` at ``n_seats`` (its default if None) with ``options`` (the runner's)."""
        super().__init__()
        self.setup = Setup(game, n_seats, options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"{game.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{seat}" for seat in range(self.setup.n_seats)]
        self._observation_space = self.setup.observation_space()
        self._action_space = spaces.Discrete(self.setup.facts.num_actions)
        self._seeds = EpisodeSeeds()
        self.game = None

    def observation_space(self, agent: str) -> spaces.Dict:
        """Every agent's observation space: ``{"observation": float32[F], "action_mask": int8[A]}``."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """Every agent's action space: the game's action ids."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal the next episode (the first of ``seed``'s if given)."""
        self._seeds.restart(seed)
        self.game = None
        while self.game is None or self.game.done:  # a deal that ends before any decision (rare) is skipped
            self.match_seed = int(self._seeds.take()[0])
            self.game = self.setup.new_game(self.match_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"match_seed": self.match_seed} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation (zeros unless it is to move)."""
        return self.setup.observe(self.game, self.possible_agents.index(agent))

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; at the end, every agent's reward is its score."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.done:
            ended = self.truncations if self.setup.facts.truncated(self.game) else self.terminations
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = float(self.game.scores[seat])
                ended[name] = True
                self.infos[name] = {"match_seed": self.match_seed, "end_reason": str(self.game.end_reason.value)}
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % self.num_agents]
        else:
            self.agent_selection = self.possible_agents[self.game.to_move]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``); None without a render mode."""
        if self.render_mode is None or self.game is None:
            return None
        return self.setup.facts.board(self.game)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs: Any) -> CardGameEnv:
    """The environment without PettingZoo's wrappers."""
    return CardGameEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are: an illegal action ends the episode with one point
    below the lowest score for the agent that took it, out-of-range actions and calls out of order are refused."""
    raw = CardGameEnv(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=raw.setup.illegal_reward())
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
