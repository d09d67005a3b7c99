"""A small run to analyse when none is given: what the notebooks use by default, and the tests.

Four tables, 3 to 6 seats, of the two compiled agents (``random`` and
``greedy``), each lineup seated in every rotation on the same deals, so that
every figure has something to show: cut-offs at every seat count, a first-turn
comparison, and a ladder of two agents. It plays in a few seconds once the
compiled engine is cached (the first run on a machine compiles it first).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

SMALL_RUN_TABLES = (
    {"seats": 3, "agents": ["random"]},
    {"seats": 4, "agents": ["greedy", "random", "random", "random"]},
    {"seats": 5, "agents": ["greedy", "random", "greedy", "random", "random"]},
    {"seats": 6, "agents": ["greedy", "random", "greedy", "random", "greedy", "random"]},
)


def make_small_run(folder: str | Path, hands: int = 600, seed: int = 2025, workers: int = 1,
                   progress: bool = False, options: dict[str, Any] | None = None, engine: str = "auto",
                   continuation: dict[str, Any] | None = None, log_actions: bool = False) -> Path:
    """Play the small sample run (``hands`` per table) into ``folder`` and return the folder (``progress``: a bar).

    ``options`` are the rules' options (``{"repeat": 0, "cap": 20000}``: the same deals under other cut-offs) and
    ``engine`` the engine that plays them (``reference`` plays any options); ``continuation`` plays the hands they cut
    off on past the cut (``{"repeat": 0, "cap": 20000}``, as ``--continue-past-cutoff``) and ``log_actions`` keeps
    every decision.
    """
    folder = Path(folder)
    raw = {"name": "small-sample", "seed": seed, "hands": hands, "assign": "rotate",
           "tables": [dict(table) for table in SMALL_RUN_TABLES], "workers": workers, "out": str(folder),
           "options": dict(options or {}), "engine": engine, "log_actions": log_actions}
    if continuation is not None:
        raw["continue_past_cutoff"] = dict(continuation)
    run_experiment(build_config(raw, "the small sample run"), folder, progress=progress)
    return folder
