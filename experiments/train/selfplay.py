"""Self-play hands for Deep Monte-Carlo training, played by the game's compiled lockstep batch.

One *shard* is a batch of deals (``LearningFacts.new_batch``) stepped together to their end. At every step the
seats to move choose by the current network (``agents.learned.network``), each row exploring with chance
``epsilon`` (a uniform legal action instead of the greedy one). Seats may instead be held by the engine's own
policies (``greedy``, ``random``), drawn seat by seat, so the network also learns against the baselines it is
judged by and meets more than itself. Every decision a network seat made with a choice (two legal actions or more)
is kept: its observation row, the action, and its *return*, the seat's final score in that deal (a team's in a team
game), which Deep Monte-Carlo regresses Q(s, a) on.

A shard depends only on its seeds and its own random stream, never on which process plays it, so a generation's
shards can be played on any number of workers (or a Dask cluster) and give the same samples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.learned.network import QNetwork
from sim import games


@dataclass
class Samples:
    """Decisions of network seats: observation rows (float16: the tensors hold small whole numbers and flags),
    the action taken, and the return (the seat's final score); a teacher's decisions (``imitation``) also keep
    their legal actions (``masks``)."""

    observations: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    hands: int
    decisions: int
    masks: np.ndarray | None = None

    @staticmethod
    def joined(parts: list[Samples]) -> Samples:
        """The samples of several shards, in order."""
        masks = None if any(p.masks is None for p in parts) else np.concatenate([p.masks for p in parts])
        return Samples(np.concatenate([p.observations for p in parts]), np.concatenate([p.actions for p in parts]),
                       np.concatenate([p.returns for p in parts]), sum(p.hands for p in parts),
                       sum(p.decisions for p in parts), masks)


def play_shard(game: str, n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], network: QNetwork,
               epsilon: float, opponents: Mapping[str, float], stream_seed: int) -> Samples:
    """Play the deals of ``seeds`` to their end by ``network`` (exploring with chance ``epsilon``), each seat but
    one of every deal held by an engine policy with the chance ``opponents`` gives it (``{"greedy": 0.3,
    "random": 0.2}``; policies the game's batch lacks are left out), and return the decisions of the network's
    seats that had a choice, with their returns."""
    adapter = games.adapter(game)
    facts = adapter.LEARNING
    rng = np.random.default_rng(stream_seed)
    batch = facts.new_batch(n_seats, np.asarray(seeds, dtype=np.uint64), options)
    deals = len(seeds)
    policies = opponent_policies(deals, n_seats, opponents, adapter.BATCH_POLICIES or {}, rng)
    with_policies = bool((policies >= 0).any())
    observations, actions, deal_of, seat_of = [], [], [], []
    while True:
        to_move = batch.to_move
        live = np.flatnonzero(to_move >= 0)
        if not live.size:
            break
        chosen = batch.policy_actions(policies) if with_policies else np.full(deals, -1, dtype=np.int64)
        mine = live[policies[live, to_move[live]] < 0]
        if mine.size:
            rows = batch.observation_tensor(mine)
            mask = batch.legal_mask(mine)
            picks = network.best_actions(rows, mask)
            explore = rng.random(mine.size) < epsilon
            if explore.any():
                picks[explore] = uniform_legal(mask[explore], rng)
            chosen[mine] = picks
            choice = mask.sum(axis=1) > 1  # a forced move teaches nothing about choosing
            observations.append(rows[choice].astype(np.float16))
            actions.append(picks[choice].astype(np.int16))
            deal_of.append(mine[choice])
            seat_of.append(to_move[mine[choice]])
        batch.step(chosen)
    scores = batch.scores.astype(np.float32)
    deal_of_all = np.concatenate(deal_of) if deal_of else np.zeros(0, dtype=np.int64)
    seat_of_all = np.concatenate(seat_of) if seat_of else np.zeros(0, dtype=np.int64)
    return Samples(
        observations=np.concatenate(observations) if observations else np.zeros((0, facts.observation_size),
                                                                                 dtype=np.float16),
        actions=np.concatenate(actions) if actions else np.zeros(0, dtype=np.int16),
        returns=seat_returns(scores, deal_of_all, seat_of_all),
        hands=deals, decisions=int(deal_of_all.size))


def opponent_policies(deals: int, n_seats: int, opponents: Mapping[str, float], policy_ids: Mapping[str, int],
                      rng: np.random.Generator) -> np.ndarray:
    """``int8[deals, n_seats]``: the engine policy at each seat (-1: the network), each seat drawn on its own with
    the chances ``opponents`` gives, one seat of every deal kept for the network."""
    policies = np.full((deals, n_seats), -1, dtype=np.int8)
    named = [(policy_ids[name], chance) for name, chance in opponents.items() if name in policy_ids and chance > 0]
    if not named:
        return policies
    draw = rng.random((deals, n_seats))
    low = 0.0
    for policy, chance in named:
        policies[(draw >= low) & (draw < low + chance)] = policy
        low += chance
    policies[np.arange(deals), rng.integers(0, n_seats, deals)] = -1
    return policies


def seat_returns(scores: np.ndarray, deal_of: np.ndarray, seat_of: np.ndarray) -> np.ndarray:
    """The Monte-Carlo return of each decision: the final score (``scores[deal, seat]``) of the seat that made it,
    in the deal it was made in. Every decision of a seat in a deal gets the same return: no discount, no bootstrap,
    only the result the seat finished with."""
    return scores[deal_of, seat_of].astype(np.float32)


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action id per row of ``mask``."""
    counts = mask.sum(axis=1)
    k = (rng.random(len(mask)) * counts).astype(np.int64)
    return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)
