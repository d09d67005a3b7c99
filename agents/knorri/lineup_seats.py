"""How each seat of a compiled Knorri lineup plays, read from its spec: the numbers ``agents.knorri.lineup``'s
kernel takes for it.

``compiled_seat`` reads a built-in spec through the Python agent itself (``make_agent``), so a parameter means the
same on both paths; ``seat_streams`` and ``model_plan`` lay a list of hands' seats out as the kernel's arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.base import AgentSpec, make_agent, resolve_spec
from agents.knorri import search_rules
from agents.knorri.mcts import GAME
from agents.knorri.opponent_models import MODEL_COUNT
from agents.knorri.search import POLICY_IDS
from sim import config
from sim.knorri.compiled import GREEDY, RANDOM
from sim.rng import AGENT_STREAM, derive_seeds

LOGINF, MCTS = 3, 4
"""Agent kinds beside the engine's own policies ``RANDOM`` and ``GREEDY`` (whose ids they keep)."""
BUILT_IN = ("random", "greedy", "loginf", "mcts")
"""The registered names the lineup kernel plays; any other spec (an import path) stays with the Python agent."""
MASK64 = (1 << 64) - 1
ITERS, LINE_ITERS, CHANCE_ITERS, HORIZON = 0, 1, 2, 3
"""Slots of an ``mcts`` seat's ``budgets`` row (``CompiledSeat.budgets``): three playout budgets, then how deep a
chance search's playouts go."""
POSTERIOR = -1
"""``CompiledSeat.others`` for an ``mcts`` that learns each other seat's model during the hand."""


@dataclass(frozen=True)
class CompiledSeat:
    """How one seat plays in the kernel: its kind, rollout policy, ``mcts`` budget and exploration, spec seed,
    how ``mcts`` models the other seats (a fixed model id, or ``POSTERIOR`` over ``candidates`` with their log
    prior and smoothing ``eps``), whether its root pick may be the best line found (``pick=auto``), and its
    ``version`` (whether a phase-2 search stops once its pick has settled: ``search_rules.settle_rule``), with the
    budgets of a phase-2 search whose pick is the best line, ``line_iters``, and of one with chance nodes,
    ``chance_iters`` (``search_rules.phase2_budget``), whose playouts stop after ``horizon`` phase-2 actions
    (``search_rules.chance_playout_cap``)."""

    kind: int
    rollout: int = GREEDY
    iters: int = 0
    c: float = 0.0
    spec_seed: int = 0
    others: int = POSTERIOR
    candidates: tuple[int, ...] = ()
    log_prior: tuple[float, ...] = ()
    eps: float = 0.0
    auto_pick: bool = True
    version: int = 4
    line_iters: int = 0
    chance_iters: int = 0
    horizon: int = 0

    def budgets(self) -> tuple[int, int, int, int]:
        """``iters``, ``line_iters``, ``chance_iters`` and ``horizon``, as the kernels take them (indexed
        ``ITERS`` …)."""
        return self.iters, self.line_iters, self.chance_iters, self.horizon


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
    return CompiledSeat(MCTS, POLICY_IDS[agent.rollout], agent.iters, agent.c, agent._spec_seed,
                        search_rules.OPPONENT_MODELS.get(agent.others, POSTERIOR),
                        tuple(search_rules.OPPONENT_MODELS[name] for name in agent.candidates),
                        tuple(float(x) for x in agent.log_prior), agent.eps, agent.pick == "auto", agent.version,
                        agent.line_iters, agent.chance_iters, agent.horizon)


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
    seat s's in hand h (``CompiledSeat``'s fields, ``budgets`` its ``budgets()`` row, ``streams`` its agent stream
    seed, and ``model_plan``'s entries)."""

    kinds: np.ndarray
    rollouts: np.ndarray
    budgets: np.ndarray
    cs: np.ndarray
    streams: np.ndarray
    others: np.ndarray
    counts: np.ndarray
    candidates: np.ndarray
    log_prior: np.ndarray
    eps: np.ndarray
    auto_pick: np.ndarray
    versions: np.ndarray


def seat_plan(seeds: np.ndarray, seats: Sequence[Sequence[CompiledSeat]], n_seats: int) -> SeatPlan:
    """The ``SeatPlan`` of hands dealt from ``seeds`` with ``seats[h][s]`` at seat s."""
    total = len(seeds)
    kinds = np.array([[seat.kind for seat in row] for row in seats], dtype=np.int64).reshape(total, n_seats)
    rollouts = np.array([[seat.rollout for seat in row] for row in seats], dtype=np.int64).reshape(total, n_seats)
    budgets = np.array([[seat.budgets() for seat in row] for row in seats], dtype=np.int64).reshape(total, n_seats, 4)
    cs = np.array([[seat.c for seat in row] for row in seats], dtype=np.float64).reshape(total, n_seats)
    return SeatPlan(kinds, rollouts, budgets, cs, seat_streams(seeds, seats, n_seats),
                    *model_plan(seats, total, n_seats))


class SeatAgent(NamedTuple):
    """One seat's agent at one decision: its kind, rollout policy, ``mcts`` budgets (``CompiledSeat.budgets``) and
    exploration, how it models the others (``others``, or ``POSTERIOR`` over the first ``n_candidates`` of
    ``candidates`` with their ``log_prior``), whether its pick may be the best line, and its ``mcts`` version."""

    kind: np.int64
    rollout: np.int64
    budgets: np.ndarray
    c: np.float64
    others: np.int64
    n_candidates: np.int64
    candidates: np.ndarray
    log_prior: np.ndarray
    auto_pick: np.int64
    version: np.int64


@njit(**config.PASTED_KERNEL)
def seat_agent(plan, h, seat):
    """Seat ``seat``'s agent in hand ``h`` of a ``SeatPlan``."""
    return SeatAgent(plan.kinds[h, seat], plan.rollouts[h, seat], plan.budgets[h, seat], plan.cs[h, seat],
                     plan.others[h, seat], plan.counts[h, seat], plan.candidates[h, seat], plan.log_prior[h, seat],
                     plan.auto_pick[h, seat], plan.versions[h, seat])


def model_plan(seats: Sequence[Sequence[CompiledSeat]], total: int, n_seats: int) -> tuple[np.ndarray, ...]:
    """Per hand and seat: the fixed model or ``POSTERIOR``, the candidates (count, ids, log prior), eps,
    whether the root's pick may be the best line (``pick=auto``) and the ``mcts`` version."""
    others = np.full((total, n_seats), POSTERIOR, dtype=np.int64)
    counts = np.zeros((total, n_seats), dtype=np.int64)
    candidates = np.zeros((total, n_seats, MODEL_COUNT), dtype=np.int64)
    log_prior = np.zeros((total, n_seats, MODEL_COUNT), dtype=np.float64)
    eps = np.zeros((total, n_seats), dtype=np.float64)
    auto_pick = np.zeros((total, n_seats), dtype=np.int64)
    versions = np.zeros((total, n_seats), dtype=np.int64)
    for h, row in enumerate(seats):
        for s, seat in enumerate(row):
            others[h, s], counts[h, s], eps[h, s], auto_pick[h, s], versions[h, s] = (
                seat.others, len(seat.candidates), seat.eps, seat.auto_pick, seat.version)
            candidates[h, s, :len(seat.candidates)] = seat.candidates
            log_prior[h, s, :len(seat.log_prior)] = seat.log_prior
    return others, counts, candidates, log_prior, eps, auto_pick, versions
