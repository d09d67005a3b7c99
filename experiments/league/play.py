"""A league on the runner: a pool of agents seated in a balanced design on duplicate deals, one run per seat count.

Each seat count is an ordinary run (``experiments.runner``) with one table whose ``assign`` is ``balanced``
(``experiments.runner.plan.balanced_seatings``): every ordering of the agents is dealt out one per seat (one per
team in a partnership game), wrapping round when there are more seats than agents, and every seating plays the
same deals. So every agent holds every seat equally often and is at the table equally often, on the same cards.
The runs are folders ``OUT/seats-N/`` (``knorri-sim report`` reads each); a league run again with the same options
resumes, playing only the missing chunks. What the runs say is ``experiments.league.results``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from experiments.league.results import SeatCountResult, results
from experiments.runner import storage
from experiments.runner.config import ConfigError, RunConfig, build_config
from experiments.runner.execute import execute, plan_run, workers_for
from experiments.runner.plan import balanced_seatings, check_lineups
from sim import games
from sim.contract import check_seats
from sim.errors import GameInputError


def seats_folder(out: Path, seats: int) -> Path:
    """Where the league keeps its run at ``seats`` seats: ``OUT/seats-N``."""
    return out / f"seats-{seats}"


def seatings(game: str, seats: int, agents: list[str]) -> tuple[tuple[str, ...], ...]:
    """The league's seatings of ``agents`` at ``seats`` seats of ``game`` (the runner's balanced design)."""
    return balanced_seatings(agents, games.adapter(game).seat_teams(seats))


def league_config(game: str, seats: int, agents: list[str], deals: int, seed: int = 0,
                  options: dict[str, Any] | None = None, workers: int | None = None,
                  out: Path | None = None) -> RunConfig:
    """The run of one seat count: one balanced table, ``deals`` deal groups each played by every seating."""
    try:
        check_seats(games.adapter(game), seats)
    except GameInputError as error:
        raise ConfigError(f"--seats: {error}") from None
    if deals < 1:
        raise ConfigError(f"--deals must be at least 1, not {deals}")
    raw: dict[str, Any] = {"game": game, "name": f"league-{seats}", "options": options or {}, "seed": seed,
                           "tables": [{"seats": seats, "agents": list(agents), "assign": "balanced"}],
                           "hands": deals * len(seatings(game, seats, agents))}
    if workers is not None:
        raw["workers"] = workers
    if out is not None:
        raw["out"] = str(out)
    config = build_config(raw, "league")
    check_lineups(config)
    return config


def play(config: RunConfig, folder: Path, progress: bool = True) -> dict[str, Any]:
    """Play the run of ``config`` into ``folder``, resuming it when the folder already holds this run.

    A folder holding another run (other agents, deals, seed or options) is one ``ConfigError`` line.
    """
    manifest = storage.read_manifest(folder) if folder.is_dir() else None
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{str(folder)!r} is a file: give --out a new folder, or the league's folder to resume it")
    if manifest is None and folder.is_dir() and any(not p.name.endswith(".tmp") for p in folder.iterdir()):
        raise ConfigError(f"{str(folder)!r} is not empty and holds no knorri-sim run: give --out a new folder")
    if manifest is not None and manifest.get("run_id") != config.run_id():
        raise ConfigError(f"{str(folder)!r} holds another run (run {manifest.get('run_id')}: other agents, deals, "
                          "seed or options): give --out a new folder, or the options it was played with")
    plan = plan_run(config, manifest["chunk_hands"] if manifest else None)
    if manifest is not None:
        plan.manifest = manifest
    with workers_for(config) as workers:
        return execute(plan, folder, workers, progress=progress, resumed=manifest is not None)


def run_league(game: str, seat_counts: list[int], agents: list[str], deals: int, out: Path, seed: int = 0,
               options: dict[str, Any] | None = None, workers: int | None = None,
               progress: bool = True) -> list[SeatCountResult]:
    """Play (or resume) every seat count's run into ``out/seats-N`` and return their results.

    Every config is built and checked before anything is played, so a bad option writes nothing.
    """
    configs = [league_config(game, seats, agents, deals, seed, options, workers, seats_folder(out, seats))
               for seats in seat_counts]
    done = []
    for seats, config in zip(seat_counts, configs, strict=True):
        started = time.perf_counter()
        play(config, seats_folder(out, seats), progress)
        result = results(seats_folder(out, seats), game)
        result.seconds = time.perf_counter() - started
        done.append(result)
    return done
