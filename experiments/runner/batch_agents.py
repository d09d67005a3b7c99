"""Vectorised agents (``act_batch``) on a game's compiled batch engine: many deals in lockstep, one call a step.

An agent that defines ``act_batch(observations, legal_mask) -> actions`` plays on the compiled batch engine
through ``knorri-sim run`` (the runner's batch route, ``routes.BATCH``): at every step it is called once with the
rows of every deal where its seat is to move (``float32[k, OBSERVATION_SIZE]`` observations, ``bool[k,
NUM_ACTIONS]`` masks) and returns ``k`` legal ids. Seats of the same lineup that are built-in ``random`` or
``greedy`` are played by the engine's compiled policies; a lineup holding any other agent keeps the reference
path, as does every chunk whose decisions are logged. A batch agent gets its randomness from ``reset`` once per
batch, or per row from a ``streams`` parameter; how each is seeded is in docs/internals.md,
``experiments.runner.batch_agents``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from agents.base import Agent, make_agent, resolve_spec
from sim.batch_base import CompiledBatch
from sim.contract import ChunkColumns, plural
from sim.errors import AgentFailure, agent_location, full_trace, method_location
from sim.rng import AGENT_STREAM, derive_seeds


def has_act_batch(spec: str, game: str) -> bool:
    """Whether the class of the agent ``spec`` makes for ``game`` defines ``act_batch``."""
    return callable(getattr(resolve_spec(spec, game).factory, "act_batch", None))


def takes_batch_path(log_actions: bool, seatings: Sequence[Sequence[str]], game: str,
                     policies: Mapping[str, int]) -> bool:
    """Whether a lineup plays on the batch engine with vectorised agents: no action log, at least one seat not a
    compiled policy, and every such seat's agent defining ``act_batch``."""
    if log_actions:
        return False
    agents = {spec for seating in seatings for spec in seating if spec not in policies}
    return bool(agents) and all(has_act_batch(spec, game) for spec in agents)


def play_batched(adapter: ModuleType, game: str, n_seats: int, match_seeds: Sequence[int],
                 seatings: Sequence[Sequence[str]], match_hands: int,
                 options: Mapping[str, Any] | None = None, **continuation: Any) -> ChunkColumns:
    """Play a chunk's matches on ``adapter``'s batch engine: deal k of every match in one batch, stepped to the end.

    Deal k of match i is dealt from ``derive_seed(match_seeds[i], k)`` (every game's seed derivation);
    ``adapter.start_batch`` makes the batch and ``adapter.batch_columns`` turns the finished batches into
    the reference path's columns; ``continuation=`` (a run continued past its cut-offs) goes to both. Raises
    ``AgentFailure`` when an agent raises or chooses an illegal id.
    """
    match_seeds = np.asarray(match_seeds, dtype=np.uint64)
    table = _SeatTable(n_seats, seatings, adapter.BATCH_POLICIES, game)
    seeds_per_deal: list[np.ndarray] = []
    batches: list[CompiledBatch] = []
    previous: CompiledBatch | None = None
    for k in range(match_hands):
        seeds = derive_seeds(match_seeds, k)
        previous = adapter.start_batch(n_seats, seeds, previous, options, **continuation)
        table.play(previous, seeds, adapter.ROW)
        seeds_per_deal.append(seeds)
        batches.append(previous)
    return adapter.batch_columns(n_seats, seeds_per_deal, batches, options, **continuation)


def agent_seeds(seeds: np.ndarray, n_seats: int) -> np.ndarray:
    """``uint64[B, n_seats]``: ``sim.rng.agent_seed(seeds[b], seat)`` for every deal and seat."""
    streams = derive_seeds(seeds, AGENT_STREAM)
    return np.stack([derive_seeds(streams, seat) for seat in range(n_seats)], axis=1).reshape(len(seeds), n_seats)


class _SeatTable:
    """Who plays each seat of each match of a chunk: a compiled policy id, or one of the chunk's batch agents."""

    def __init__(self, n_seats: int, seatings: Sequence[Sequence[str]], policies: Mapping[str, int],
                 game: str) -> None:
        self.n_seats = n_seats
        self.policies = np.full((len(seatings), n_seats), -1, dtype=np.int8)
        self.owners = np.full((len(seatings), n_seats), -1, dtype=np.int64)
        self.agents: list[tuple[int, str, Agent]] = []  # (seat, spec, agent)
        index: dict[tuple[int, str], int] = {}
        for i, seating in enumerate(seatings):
            for seat, spec in enumerate(seating):
                if spec in policies:
                    self.policies[i, seat] = policies[spec]
                    continue
                if (seat, spec) not in index:
                    index[seat, spec] = len(self.agents)
                    self.agents.append((seat, spec, make_agent(spec, seed=0, game=game)))
                self.owners[i, seat] = index[seat, spec]
        self.with_streams = [_takes_streams(agent) for _, _, agent in self.agents]

    def play(self, batch: CompiledBatch, seeds: np.ndarray, deal: str) -> None:
        """Step ``batch`` (one deal per match, in match order) to its end, asking the agents for their seats' moves;
        ``deal`` is what one entry is called in messages (the adapter's ``ROW``)."""
        streams = agent_seeds(seeds, self.n_seats)
        for a, (seat, spec, agent) in enumerate(self.agents):
            mine = np.flatnonzero(self.owners[:, seat] == a)
            if mine.size:
                _guard(spec, seat, f"the {deal} with seed {seeds[mine[0]]}", "reset", agent.reset, seat, self.n_seats,
                       int(streams[mine[0], seat]))
        while True:
            to_move = batch.to_move
            live = np.flatnonzero(to_move >= 0)
            if not live.size:
                return
            actions = batch.policy_actions(self.policies)
            who = self.owners[live, to_move[live]]
            rows = live[who >= 0]
            if rows.size:
                who = who[who >= 0]
                observations, masks = batch.observation_tensor(rows), batch.legal_mask(rows)
                for a in np.unique(who).tolist():
                    pick = who == a
                    actions[rows[pick]] = self._ask(a, rows[pick], observations[pick], masks[pick], streams, seeds,
                                                    deal)
            batch.step(actions)

    def _ask(self, a: int, rows: np.ndarray, observations: np.ndarray, masks: np.ndarray, streams: np.ndarray,
             seeds: np.ndarray, deal: str) -> np.ndarray:
        """Agent ``a``'s legal choices for ``rows`` (checked), its streams for them advanced in ``streams``."""
        seat, spec, agent = self.agents[a]
        where = f"the {plural(deal)} with seeds {seeds[rows[0]]}…" if len(rows) > 1 else \
            f"the {deal} with seed {seeds[rows[0]]}"
        if self.with_streams[a]:
            own = streams[rows, seat].copy()
            chosen = _guard(spec, seat, where, "act_batch", agent.act_batch, observations, masks, own)
            streams[rows, seat] = own
        else:
            chosen = _guard(spec, seat, where, "act_batch", agent.act_batch, observations, masks)
        chosen = np.asarray(chosen)
        if chosen.shape != (len(rows),) or (chosen.size and chosen.dtype.kind not in "iu"):
            raise AgentFailure(f"agent {spec!r} at seat {seat}: act_batch must return {len(rows)} integer action ids "
                               f"(one per row), not an array of shape {chosen.shape} and dtype {chosen.dtype} "
                               f"(act_batch() at {method_location(agent, 'act_batch')})")
        inside = (chosen >= 0) & (chosen < masks.shape[1])
        legal = inside & masks[np.arange(len(rows)), np.where(inside, chosen, 0)]
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise AgentFailure(f"agent {spec!r} at seat {seat} chose illegal action {int(chosen[bad])} in the {deal} "
                               f"with seed {seeds[rows[bad]]}; legal ids were "
                               f"{', '.join(map(str, np.flatnonzero(masks[bad]).tolist()))} "
                               f"(act_batch() at {method_location(agent, 'act_batch')})")
        return chosen.astype(np.int64)


def _takes_streams(agent: Agent) -> bool:
    """Whether the agent's ``act_batch`` takes the per-row ``streams`` argument (a parameter so named, third)."""
    parameters = list(inspect.signature(agent.act_batch).parameters.values())
    return len(parameters) >= 3 and parameters[2].name == "streams"


def _guard(spec: str, seat: int, where: str, verb: str, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``; an exception inside the agent stops the chunk as one ``AgentFailure`` line."""
    try:
        return call(*args)
    except AgentFailure:
        raise
    except Exception as error:  # any failure inside a user's agent stops the run, named
        at = agent_location(getattr(call, "__self__", None), error)
        raise AgentFailure(f"agent {spec!r} at seat {seat} failed in {verb}() in {where}: "
                           f"{type(error).__name__}: {error}" + (f" at {at}" if at else ""),
                           trace=full_trace(error)) from None
