"""``knorri-sim bench --agents SPEC``: how many hands (games, matches) a second one core plays for a lineup.

The lineup's deals are played as ``knorri-sim run`` plays a chunk (``routes.play_matches``:
the route chosen, then played, columns included, parquet writing not), once per path it
can take: ``engine="compiled"`` (the compiled engine, the agents' compiled lineup player,
or the batch engine with vectorised agents) and ``engine="reference"``. A path the lineup cannot take is said so.
The rate is per CPU second of this process (``time.process_time``: the machine may be
shared, and the adapters play a chunk on one core), the median of ``--repeat`` timings
on fresh seeds, after one untimed warm-up (compiling or loading the kernels). The
reference path plays fewer deals (a fiftieth, at least one), since it is slow. Nothing
here knows a game's rules: everything goes through ``sim.games``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence

from experiments.errors import UsageError
from experiments.runner import routes
from experiments.runner.seating import check_specs
from sim import games
from sim.contract import check_seats, plural

PATHS = ("compiled", "reference")
DEFAULT_COUNT = 2_000
REFERENCE_SHARE = 50
"""The reference path plays ``count // REFERENCE_SHARE`` deals (at least one)."""


def lineup(spec: str, seats: int | None, game: str) -> list[str]:
    """The seat specs of ``--agents`` (``;``-separated; one spec fills every seat), each checked to make an agent."""
    specs = [part.strip() for part in spec.split(";")]
    adapter = games.adapter(game)
    n_seats = check_seats(adapter, seats or (len(specs) if len(specs) > 1 else adapter.DEFAULT_SEATS))
    if len(specs) == 1:
        specs = specs * n_seats
    if len(specs) != n_seats:
        raise UsageError(f"--agents gives {len(specs)} specs for {n_seats} seats: give one spec, or one per seat")
    check_specs(specs, game)
    return specs


def run_lineup(args: argparse.Namespace, count: int | None) -> int:
    """Time the lineup ``args.agents`` of ``args.game`` on each path it can take and print one line per path."""

    if args.workers is not None:
        raise UsageError("--workers is not for --agents: a lineup is timed on one core, as the runner plays a chunk")
    specs = lineup(args.agents, args.seats, args.game)
    count = count or DEFAULT_COUNT
    paths = PATHS if args.engine is None else (_path_of(args.engine),)
    unit = plural(games.adapter(args.game).ROW)
    if not args.json:
        print(f"{games.game(args.game).title}, lineup {';'.join(specs)}: {unit} per CPU second (one core), "
              f"median of {args.repeat} timings after a warm-up.")
        print(f"{'path':<10} {unit:>9} {unit + '/s':>12} {'CPU s':>8} {'wall s':>8} {'warm-up s':>10}")
    rates: dict[str, float] = {}
    for path in paths:
        units = count if path == "compiled" else max(1, count // REFERENCE_SHARE)
        case = time_path(args.game, specs, path, units, args.repeat)
        if "rate" in case:
            rates[path] = case["rate"]
        if args.json:
            shown = {unit if k == "units" else f"{unit}_per_s" if k == "rate" else k: v for k, v in case.items()}
            print(json.dumps({"game": args.game, "agents": ";".join(specs), "seats": len(specs), "path": path,
                              **shown}), flush=True)
        elif "rate" not in case:
            print(f"{path:<10} not available: {case['unavailable']}", flush=True)
        else:
            print(f"{path:<10} {units:>9,} {case['rate']:>12,.1f} {case['cpu_s']:>8.2f} {case['wall_s']:>8.2f} "
                  f"{case['warm_up_s']:>10.1f}", flush=True)
    if not args.json and len(rates) == 2:
        print(f"compiled / reference: {rates['compiled'] / rates['reference']:,.1f}x")
    return 0


def time_path(game: str, specs: Sequence[str], path: str, units: int, repeat: int) -> dict:
    """The median rate (deals per CPU second) of ``units`` deals on ``path``, or why the path is not available."""
    n_seats = len(specs)

    def played(first: int, count: int) -> float:
        seeds = list(range(first, first + count))
        start = time.process_time()
        routes.play_matches(game, n_seats, seeds, [list(specs)] * count, 1, engine=path)
        return time.process_time() - start

    start = time.perf_counter()
    try:
        played(10**9, min(units, 4))  # the warm-up: compiles or loads the kernels, untimed
    except ValueError as refused:  # the route refuses a path the lineup cannot take
        return {"unavailable": str(refused)}
    warm_up = time.perf_counter() - start
    timings = []
    for r in range(repeat):
        wall = time.perf_counter()
        timings.append((played(r * units, units), time.perf_counter() - wall))
    cpu = statistics.median(t for t, _ in timings)
    return {"units": units, "rate": round(units / cpu, 1) if cpu > 0 else float("inf"), "cpu_s": round(cpu, 3),
            "wall_s": round(statistics.median(w for _, w in timings), 3), "warm_up_s": round(warm_up, 2),
            "repeats": repeat}


def _path_of(engine: str) -> str:
    """``--engine fast`` (the old name) is the compiled path."""
    return routes.engine_choice(engine)
