"""Gymnasium single-learner environments: the learner holds one seat, built-in agents hold the others.

``SingleSeatEnv(game="knorri", n_seats=4, seat=0, opponents="greedy;loginf;random")``
plays the reference engine with any agents (specs as on the command line, one for
all or one per other seat in seat order). An episode is the game's runner row; the
reward is the learner's score at its end (0 before). Knorri's repeat and cap cut-offs
are truncations. An illegal action ends the episode with one point below the lowest
score (``info["illegal_action"]``), so an unmasked policy is told, not crashed.
A deal that ends before the learner decides anything is played out by the agents and
skipped; its match seed and scores are reported in the next ``reset``/``step`` info
(``skipped``) so that scores per deal stay complete. The vector version on the compiled
engines is ``rl.vector_env.BatchVectorEnv``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from rl.common import EpisodeSeeds, Setup, lineup, play_agents, reset_agents, seat_agents
from rl.games import deal_seed
from sim.games import DEFAULT_GAME


class SingleSeatEnv(gym.Env):
    """One seat of a game against built-in agents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str = DEFAULT_GAME, n_seats: int | None = None, seat: int = 0,
                 opponents: str | Sequence[str] = "random", options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        """The learner at ``seat`` of ``game`` with ``n_seats`` (the game's default if None), ``opponents`` the
        agent specs of the other seats, ``options`` the runner's options of the game."""
        self.setup = Setup(game, n_seats, options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.seat = int(seat)
        self.agents = seat_agents(game, lineup(opponents, self.setup.n_seats, self.seat), self.seat)
        self.observation_space = self.setup.observation_space()
        self.action_space = gym.spaces.Discrete(self.setup.facts.num_actions)
        self._seeds: EpisodeSeeds | None = None
        self._skipped: list[tuple[int, list[int]]] = []
        self.game = None
        self._ended = False

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal the next episode (the first of ``seed``'s if given) and play the others up to the learner's turn."""
        super().reset(seed=seed)
        if self._seeds is None:  # unseeded: a base drawn from Gymnasium's generator
            self._seeds = EpisodeSeeds(int(self.np_random.integers(2**63)) if seed is None else seed)
        self._seeds.restart(seed)
        while True:
            self.match_seed = int(self._seeds.take()[0])
            self.game = self.setup.new_game(self.match_seed)
            reset_agents(self.agents, self.setup.n_seats, deal_seed(self.match_seed))
            play_agents(self.game, self.agents)
            if not self.game.done:
                self._ended = False
                return self._observe(), self._info()
            self._skipped.append((self.match_seed, list(self.game.scores)))

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        """Take the learner's action, let the others play to its next turn; reward its score at the end."""
        if self.game is None or self.game.done or self._ended:
            raise gym.error.ResetNeeded("the episode is over: call reset() first")
        if not 0 <= int(action) < self.setup.facts.num_actions or not self.game.legal_mask()[int(action)]:
            self._ended = True
            info = {**self._info(), "illegal_action": int(action)}
            return self._zeros(), self.setup.illegal_reward(), True, False, info
        self.game.apply(int(action))
        play_agents(self.game, self.agents)
        if not self.game.done:
            return self._observe(), 0.0, False, False, self._info()
        truncated = self.setup.facts.truncated(self.game)
        info = {**self._info(), "scores": list(self.game.scores), "end_reason": str(self.game.end_reason.value)}
        return self._observe(), float(self.game.scores[self.seat]), not truncated, truncated, info

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``)."""
        if self.render_mode is None or self.game is None:
            return None
        return self.setup.facts.board(self.game)

    def _observe(self) -> dict[str, np.ndarray]:
        return self.setup.observe(self.game, self.seat)

    def _zeros(self) -> dict[str, np.ndarray]:
        return {name: np.zeros(space.shape, dtype=space.dtype) for name, space in self.observation_space.items()}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"match_seed": self.match_seed}
        if self._skipped:
            info["skipped"], self._skipped = self._skipped, []
        return info
