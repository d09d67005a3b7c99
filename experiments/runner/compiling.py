"""What a run will compile before it plays: the compiled code its lineups run that the cache does not hold yet.

Numba compiles a kernel on its first call, so a run compiles only what its lineups
call: the engine's batch kernels for a lineup the compiled engine plays, and the
kernels of each agent that declares compiled code (``COMPILED_CODE``, see
``agents.base.compiled_code``). Their modules are imported here only when a lineup
names them. When some of that code is not in the cache yet (a first run, or the
first after a source edit), the run says so on stderr, and plays its first chunk in
its own process before starting the workers, so the code is compiled once and the
workers load it, rather than every worker compiling the same kernels at once. A table
of the engine's own policies that the reference engine plays sooner than the engine
compiles is played there instead (``cold_routes``): its rows are the same.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from experiments import compile_notice as notices
from experiments.runner import routes
from experiments.runner.config import RunConfig
from experiments.runner.plan import TablePlan, table_plans
from sim import compile_cache
from sim.engine_words import AUTO


def lineup_code(config: RunConfig, plans: Sequence[TablePlan] | None = None) -> dict[str, float]:
    """Every module of compiled code the config's lineups run, with its measured compile seconds.

    Each table runs the code of the route its plan takes (``plans``, the run's; planned here if not given;
    ``routes.compiled_code``): the engine's kernels, the lineup player's, or each of its agents' own.
    """
    code: dict[str, float] = {}
    for table, plan in zip(config.tables, plans or table_plans(config), strict=True):
        code.update(routes.compiled_code(config.adapter, config.game, plan.route, table.agents))
    return code


def code_to_compile(config: RunConfig, plans: Sequence[TablePlan] | None = None) -> dict[str, float]:
    """The part of ``lineup_code`` this machine's cache does not hold: what the run compiles before it plays.

    ``{}`` for a run on a Dask cluster, whose workers compile into their own machines' caches.
    """
    if config.scheduler:
        return {}
    return uncached(lineup_code(config, plans))


def uncached(code: dict[str, float]) -> dict[str, float]:
    """The modules of ``code`` (module: compile seconds) whose kernels this machine's cache does not hold."""
    return {module: seconds for module, seconds in code.items() if not compile_cache.kernels_cached([module])}


def compile_notice(to_compile: dict[str, float]) -> str | None:
    """The line a run prints when it compiles first (``None`` when nothing is to be compiled)."""
    if not to_compile:
        return None
    seconds = max(1, round(sum(to_compile.values())))
    return (f"compiling the engine (first use): it took {seconds} s of CPU when measured on a quiet machine, "
            "and takes longer on a loaded or slower one")


def announce(code: dict[str, float]) -> None:
    """Say on stderr, once, how long compiling the part of ``code`` (module: compile seconds) that is not cached
    took when measured (``compile_notice``); nothing when all of it is cached. Code that no module declares still
    gets the listener's general line (``experiments.compile_notice``) if it compiles."""
    notices.say(compile_notice(uncached(code)))


def cold_routes(config: RunConfig, plans: Sequence[TablePlan]) -> list[TablePlan]:
    """The plans, with each table that would spend longer compiling the engine than playing on the reference engine
    moved there: a first ``knorri-sim run --agents random`` of a few hundred hands then takes seconds, not a compile.

    Only a table of the engine's own policies (``routes.ENGINE``: their reference twins are plain Python) moves,
    under the game's default options, with no action log or continuation, when ``engine`` is ``auto``, on local
    workers, and when the engine's code is not cached. Its reference time is taken at the adapter's slowest
    measured rate (``Bench.reference_hands_per_s``) and must be under the compile seconds the code declares;
    every route gives the same rows, so only the time changes.
    """
    rate = config.adapter.BENCH.reference_hands_per_s
    if (config.engine != AUTO or config.scheduler or config.log_actions or rate is None
            or config.continuation is not None or config.options != config.adapter.check_options({})):
        return list(plans)
    workers = config.workers or os.cpu_count() or 1
    moved = []
    for plan in plans:
        if plan.route == routes.ENGINE:
            compile_seconds = sum(uncached(routes.compiled_code(config.adapter, config.game, plan.route, ())).values())
            if plan.hands / (rate * workers) < compile_seconds:
                plan = dataclasses.replace(plan, route=routes.REFERENCE)
        moved.append(plan)
    return moved
