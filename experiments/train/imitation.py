"""Expert iteration's first step: the decisions of a teacher (a search agent, ``mcts``), for the network to imitate.

One *shard* is a batch of deals played on the game's reference engine. Each seat of a deal is drawn on its own:
the teacher, or one of the ``opponents`` (by default ``tables.TEACHER_OPPONENTS``, names the game lacks left
out), with one seat of every deal kept for the teacher, so the network learns the teacher's choices
in the positions the tables it is judged at reach. Every choice a teacher seat made (two legal actions or more)
is kept: the seat's observation tensor (``LearningFacts.acting_tensor``), its legal actions and the teacher's
action, which the learner imitates (``Learner.imitate``: cross-entropy over the legal actions). Given the current
network and a ``student_share`` (DAgger), a teacher seat plays the network's moves with that chance while the
teacher still labels each of its positions, so the network also learns in the positions it reaches itself, where
its own mistakes lead (docs/train.md).

A shard depends only on its seeds and its stream seed, never on where it is played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import known_agents, make_agent
from agents.learned.network import QNetwork
from experiments.train.selfplay import Samples
from sim import games
from sim.rng import derive_seed

IMITATION_RATE = 1e-3
"""Adam's learning rate when imitating a teacher (its targets are choices, not noisy returns)."""
IMITATION_PASSES = 4
"""Passes over each generation's teacher decisions: each costs a search, so each is learned from more than once."""


def seat_roles(deals: int, n_seats: int, teacher: str, opponents: Mapping[str, float],
               rng: np.random.Generator) -> list[list[str]]:
    """Each deal's spec at every seat: an opponent with the chance ``opponents`` gives it, else the teacher; one
    seat of every deal is always the teacher's."""
    names = [teacher, *opponents]
    chances = np.array([max(0.0, 1.0 - sum(opponents.values())), *opponents.values()])
    draws = rng.choice(len(names), size=(deals, n_seats), p=chances / chances.sum())
    draws[np.arange(deals), rng.integers(0, n_seats, deals)] = 0
    return [[names[k] for k in row] for row in draws]


def student_seats(roles: list[list[str]], teacher: str, share: float, rng: np.random.Generator) -> np.ndarray:
    """``bool[deals, seats]``: the teacher seats whose moves the network makes, each with chance ``share``."""
    is_teacher = np.array([[spec == teacher for spec in row] for row in roles], dtype=bool).reshape(len(roles), -1)
    return is_teacher & (rng.random(is_teacher.shape) < share)


def play_teacher_shard(game: str, n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], teacher: str,
                       opponents: Mapping[str, float], stream_seed: int, network: QNetwork | None = None,
                       student_share: float = 0.0) -> Samples:
    """Play the deals of ``seeds`` with the teacher and the opponents ``seat_roles`` draws, and return the
    teacher seats' choices (``Samples.masks`` holds their legal actions; the returns are their final scores).
    With a ``network`` and a ``student_share``, the seats ``student_seats`` draws play the network's move while
    the teacher's choice is kept as their label."""
    adapter = games.adapter(game)
    facts = adapter.LEARNING
    present = set(known_agents(game))
    opponents = {name: chance for name, chance in opponents.items() if name in present and chance > 0}
    rng = np.random.default_rng(stream_seed)
    roles = seat_roles(len(seeds), n_seats, teacher, opponents, rng)
    students = (student_seats(roles, teacher, student_share, rng) if network is not None and student_share > 0
                else np.zeros((len(seeds), n_seats), dtype=bool))
    agents = {spec: [make_agent(spec, seed=0, game=game) for _ in range(n_seats)] for spec in {teacher, *opponents}}
    observations, masks, actions, returns = [], [], [], []
    for deal_seed, seating, played_by_network in zip(seeds, roles, students, strict=True):
        deal = adapter.deal(n_seats, int(deal_seed), dict(options))
        players = [agents[spec][seat] for seat, spec in enumerate(seating)]
        for seat, player in enumerate(players):
            player.reset(seat, n_seats, derive_seed(int(deal_seed), seat))
        taught: list[int] = []
        while not deal.done:
            seat = deal.to_move
            legal = deal.legal_actions()
            action = int(players[seat].act(deal.observation(seat), legal))
            if seating[seat] == teacher and len(legal) > 1:
                tensor = facts.acting_tensor(deal)
                observations.append(tensor.astype(np.float16))
                masks.append(_mask(legal, facts.num_actions))
                actions.append(action)
                taught.append(seat)
                if played_by_network[seat]:
                    action = network.best_of(tensor, np.asarray(legal, dtype=np.int64))
            deal.apply(action)
        returns.extend(float(deal.scores[seat]) for seat in taught)
    size = facts.observation_size
    return Samples(observations=np.array(observations, dtype=np.float16).reshape(-1, size),
                   actions=np.array(actions, dtype=np.int16), returns=np.array(returns, dtype=np.float32),
                   hands=len(seeds), decisions=len(actions),
                   masks=np.array(masks, dtype=bool).reshape(-1, facts.num_actions))


def _mask(legal: Sequence[int], num_actions: int) -> np.ndarray:
    mask = np.zeros(num_actions, dtype=bool)
    mask[list(legal)] = True
    return mask
