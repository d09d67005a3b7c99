"""How each seat of a compiled Knorri lineup plays, read from its spec: the numbers ``agents.knorri.lineup``'s
kernel takes for it.

``compiled_seat`` reads a built-in spec through the Python agent itself (``make_agent``), so a parameter means the
same on both paths: an ``mcts`` seat carries the agent's own search record (``decision.SearchParams``).
``seat_plan`` lays a list of hands' seats out as the kernel's arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.base import AgentSpec, make_agent, resolve_spec
from agents.knorri.decision import NO_SEARCH, POSTERIOR, SearchParams, params_at, stack_params
from agents.knorri.mcts import GAME
from agents.knorri.search import POLICY_IDS
from sim import config
from sim.knorri.compiled import GREEDY, RANDOM
from sim.rng import AGENT_STREAM, derive_seeds

LOGINF, MCTS = 3, 4
"""Agent kinds beside the engine's own policies ``RANDOM`` and ``GREEDY`` (whose ids they keep)."""
BUILT_IN = ("random", "greedy", "loginf", "mcts")
"""The registered names the lineup kernel plays; any other spec (an import path) stays with the Python agent."""
MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class CompiledSeat:
    """How one seat plays in the kernel: its kind, its rollout policy (``loginf``'s look-ahead, ``mcts``'s
    playouts), its spec seed, and an ``mcts`` seat's search record: the Python agent's ``search``, as it is."""

    kind: int
    rollout: int = GREEDY
    spec_seed: int = 0
    search: SearchParams = NO_SEARCH


def compiled_seat(spec: str) -> CompiledSeat | None:
    """The kernel's plan for a built-in spec, or None if only the Python agent can play it.

    The spec's agent is made by ``make_agent`` itself, so its parameters mean exactly what they mean to the
    Python agent (a bad spec raises ``AgentSpecError`` as there); worked out once per resolved spec.
    """
    resolved = resolve_spec(spec, GAME)
    return resolved.derived(compiled_seat, lambda: _compiled_seat(resolved))


def _compiled_seat(spec: AgentSpec) -> CompiledSeat | None:
    name = spec.name
    if name not in BUILT_IN:
        return None
    agent = make_agent(spec, game=GAME)
    if name in ("random", "greedy"):
        return CompiledSeat(RANDOM if name == "random" else GREEDY)
    if name == "loginf":
        return CompiledSeat(LOGINF, POLICY_IDS[agent.rollout])
    if agent.time_budget > 0:
        return None  # a wall-clock budget is not reproducible
    return CompiledSeat(MCTS, POLICY_IDS[agent.rollout], agent._spec_seed, agent.search)


def seat_streams(seeds: np.ndarray, seats: Sequence[Sequence[CompiledSeat]], n_seats: int) -> np.ndarray:
    """Each seat's agent stream seed per hand: ``agent_seed(hand seed, seat)``, mixed with an mcts spec's seed."""
    streams = np.zeros((len(seeds), n_seats), dtype=np.uint64)
    for s in range(n_seats):
        streams[:, s] = derive_seeds(derive_seeds(seeds, AGENT_STREAM), s)
        spec_seeds = np.array([row[s].spec_seed & MASK64 for row in seats], dtype=np.uint64)
        is_mcts = np.array([row[s].kind == MCTS for row in seats], dtype=bool)
        if is_mcts.any():
            streams[is_mcts, s] = derive_seeds(streams[is_mcts, s], spec_seeds[is_mcts])
    return streams


class SeatPlan(NamedTuple):
    """Every seat's agent in every hand of a lineup call, as the kernel reads it: entry ``[h, s]`` of each array is
    seat s's in hand h (its kind, rollout and agent stream seed, and which of ``searches``, the lineup's distinct
    search records stacked by ``decision.stack_params``, is its own)."""

    kinds: np.ndarray
    rollouts: np.ndarray
    streams: np.ndarray
    search_of: np.ndarray
    searches: SearchParams


def seat_plan(seeds: np.ndarray, seats: Sequence[Sequence[CompiledSeat]], n_seats: int) -> SeatPlan:
    """The ``SeatPlan`` of hands dealt from ``seeds`` with ``seats[h][s]`` at seat s."""
    total = len(seeds)
    kinds = np.array([[seat.kind for seat in row] for row in seats], dtype=np.int64).reshape(total, n_seats)
    rollouts = np.array([[seat.rollout for seat in row] for row in seats], dtype=np.int64).reshape(total, n_seats)
    records: list[SearchParams] = [NO_SEARCH]
    index: dict[int, int] = {id(NO_SEARCH): 0}
    search_of = np.zeros((total, n_seats), dtype=np.int64)
    for h, row in enumerate(seats):
        for s, seat in enumerate(row):
            if id(seat.search) not in index:
                index[id(seat.search)] = len(records)
                records.append(seat.search)
            search_of[h, s] = index[id(seat.search)]
    return SeatPlan(kinds, rollouts, seat_streams(seeds, seats, n_seats), search_of, stack_params(records))


class SeatAgent(NamedTuple):
    """One seat's agent at one decision: its kind, rollout policy and search record."""

    kind: np.int64
    rollout: np.int64
    search: SearchParams


@njit(**config.PASTED_KERNEL)
def seat_agent(plan, h, seat):
    """Seat ``seat``'s agent in hand ``h`` of a ``SeatPlan``."""
    return SeatAgent(plan.kinds[h, seat], plan.rollouts[h, seat], params_at(plan.searches, plan.search_of[h, seat]))


@njit(**config.PASTED_KERNEL)
def learns_models(plan, h, seat):
    """Whether seat ``seat`` of hand ``h`` is an ``mcts`` that learns the other seats' models from their play."""
    return plan.kinds[h, seat] == MCTS and plan.searches.others[plan.search_of[h, seat]] == POSTERIOR


@njit(**config.PASTED_KERNEL)
def smoothing(plan, h, seat):
    """The ``eps`` with which seat ``seat`` of hand ``h`` scores the others' choices (``learns_models``)."""
    return plan.searches.eps[plan.search_of[h, seat]]
