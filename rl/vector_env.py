"""A Gymnasium vector environment on the compiled batch engine: many deals stepped in lockstep, with autoreset.

``BatchVectorEnv(game="knorri", num_envs=1024, n_seats=4, seat=0, opponents="greedy")``: each slot holds one deal
with the learner at ``seat``, the other seats played inside compiled code by the batch's policies (other agents
are refused: use ``SingleSeatEnv``). ``step(actions)`` takes one legal action per slot and returns the learner's
score as the reward when a deal ends. Autoreset is Gymnasium's ``SAME_STEP``, episode ``k`` the runner's match
``derive_seed(S, k)`` after ``reset(seed=S)``. What ``info`` carries is in docs/internals.md, ``rl.vector_env``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from rl.common import EpisodeSeeds, Setup, lineup
from sim.errors import GameInputError
from sim.games import DEFAULT_GAME
from sim.rng import derive_seeds


class BatchVectorEnv(VectorEnv):
    """``num_envs`` deals of one game in one compiled batch, the learner at one seat (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: str = DEFAULT_GAME, num_envs: int = 64, n_seats: int | None = None, seat: int = 0,
                 opponents: str | Sequence[str] = "random", options: Mapping[str, Any] | None = None) -> None:
        """``num_envs`` slots of ``game`` at ``n_seats``; ``opponents`` one compiled policy name for all other
        seats or one per other seat (``"greedy;random;greedy"``)."""
        self.setup = Setup(game, n_seats, options)
        self.num_envs = int(num_envs)
        if self.num_envs < 1:
            raise GameInputError(f"num_envs must be at least 1, not {num_envs}")
        self.seat = int(seat)
        specs = lineup(opponents, self.setup.n_seats, self.seat)
        self._probe = self.setup.facts.new_batch(self.setup.n_seats, np.zeros(1, dtype=np.uint64), self.setup.options)
        known = self._probe.POLICIES
        for spec in specs:
            if spec not in known:
                raise GameInputError(f"the vector env's opponents are the compiled {', '.join(known)} of "
                                     f"{self.setup.facts.title}, not {spec!r} (SingleSeatEnv seats any agent)")
        self.policies = specs[:self.seat] + ["learner"] + specs[self.seat:]
        self.single_observation_space = self.setup.observation_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(self.setup.facts.num_actions)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.setup.facts.num_actions))
        self._seeds = EpisodeSeeds()
        self.batch = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a fresh episode in every slot (the first of ``seed``'s episodes if given)."""
        self._seeds.restart(seed)
        self.match_seeds = self._seeds.take(self.num_envs)
        self.batch = self.setup.facts.new_batch(self.setup.n_seats, derive_seeds(self.match_seeds, 0),
                                                self.setup.options)
        self._policy_ids = self.batch.policy_ids(self.policies, self.seat)
        self._every_slot = np.arange(self.num_envs, dtype=np.int64)
        self._mask = np.zeros((self.num_envs, self.setup.facts.num_actions), dtype=np.bool_)
        self._done = np.zeros(self.num_envs, dtype=np.bool_)
        observations = np.empty((self.num_envs, self.setup.facts.observation_size), dtype=np.float32)
        info = self._advance_new(self._every_slot, observations)
        return self._observe(observations), info

    def step(self, actions: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply one learner action per slot, play the others, reward finished deals, deal the next ones."""
        batch = self.batch
        ids = batch.action_ids(actions)
        legal = self._mask[self._every_slot, ids] & (ids >= 0)  # the mask of the positions the learner was shown
        if not legal.all():
            batch.raise_illegal(int(np.argmin(legal)), actions)
        observations = np.empty((self.num_envs, self.setup.facts.observation_size), dtype=np.float32)
        batch.advance_learner(self._every_slot, ids, self._policy_ids, self.seat, observations, self._mask,
                              self._done)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        info: dict[str, Any] = {}
        where = np.flatnonzero(self._done)
        if len(where):
            scores, reasons = batch.outcome(where)
            rewards[where] = scores[:, self.seat]
            cut = np.isin(reasons, self.setup.facts.cut_off_codes)
            truncated[where] = cut
            terminated[where] = ~cut
            final_scores = np.zeros((self.num_envs, self.setup.n_seats), dtype=np.int64)
            final_scores[where] = scores
            final_seeds = np.zeros(self.num_envs, dtype=np.uint64)
            final_seeds[where] = self.match_seeds[where]
            info["final_scores"] = final_scores
            info["_final_scores"] = self._done.copy()
            info["final_match_seed"] = final_seeds
            self._deal(where)
            info.update(self._advance_new(where, observations))
        return self._observe(observations), rewards, terminated, truncated, info

    def _deal(self, where: np.ndarray) -> None:
        seeds = self._seeds.take(len(where))
        self.match_seeds[where] = seeds
        self.batch.restart(where, derive_seeds(seeds, 0))

    def _advance_new(self, rows: np.ndarray, observations: np.ndarray) -> dict[str, Any]:
        """Play the others up to the learner's first turn in the fresh deals at ``rows`` (writing their rows of
        ``observations``), replacing those that end before it."""
        skipped_seeds, skipped_scores = [], []
        while True:
            self.batch.advance_learner(rows, None, self._policy_ids, self.seat, observations, self._mask, self._done)
            rows = rows[self._done[rows]]
            if len(rows) == 0:
                break
            skipped_seeds.append(self.match_seeds[rows].copy())
            skipped_scores.append(self.batch.outcome(rows)[0])
            self._deal(rows)
        info: dict[str, Any] = {"match_seed": self.match_seeds.copy()}
        if skipped_seeds:
            info["skipped_match_seeds"] = np.concatenate(skipped_seeds)
            info["skipped_scores"] = np.concatenate(skipped_scores)
        return info

    def _observe(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        """The learner's view: ``observations`` (a fresh array each step) and a copy of the legal mask as int8 (the
        env keeps its own to check the next actions against)."""
        return {"observation": observations, "action_mask": self._mask.view(np.int8).copy()}

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""
