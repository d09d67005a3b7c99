"""What a run will compile before it plays: the compiled code its lineups run that the cache does not hold yet.

Numba compiles a kernel on its first call, so a run compiles only what its lineups
call: the engine's batch kernels for a lineup the compiled engine plays, and the
kernels of each agent that declares compiled code (``COMPILED_CODE``, see
``agents.base.compiled_code``). Their modules are imported here only when a lineup
names them. When some of that code is not in the cache yet (a first run, or the
first after a source edit), the run says so on stderr, and plays its first chunk in
its own process before starting the workers, so the code is compiled once and the
workers load it, rather than every worker compiling the same kernels at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from experiments.runner import routes
from experiments.runner.config import RunConfig
from experiments.runner.plan import TablePlan, table_plans
from sim import compile_cache


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
    return {module: seconds for module, seconds in lineup_code(config, plans).items()
            if not compile_cache.kernels_cached([module])}


def compile_notice(to_compile: dict[str, float]) -> str | None:
    """The line a run prints when it compiles first (``None`` when nothing is to be compiled)."""
    if not to_compile:
        return None
    seconds = max(1, round(sum(to_compile.values())))
    return (f"compiling the engine (first use): it took {seconds} s of CPU when measured on a quiet machine, "
            "and takes longer on a loaded one")
