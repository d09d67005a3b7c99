"""``knorri-sim bench``: the options of the benchmarks a command line reaches, checked, then handed on.

Without ``--agents`` it times each engine on uniform random deals of a game, per core and
on all cores (``experiments.bench.engines``); a timing counts the game's rows
(``--hands``, ``--games`` or ``--matches``, whichever names the game's row). With
``--agents SPECS`` it times a lineup instead, through the game's runner adapter on each
path it can take (``experiments.bench.lineups``). The other benchmarks are modules of
``experiments.bench`` run with ``python -m`` (listed in that package's docstring).
"""

from __future__ import annotations

import argparse
import os
from types import ModuleType

from agents import lineup
from experiments import compile_notice as notices
from experiments.bench.engines import measure
from experiments.commands.common import ENGINE_CHOICES, add_game_argument, engine_name, game_settings
from experiments.errors import UsageError
from experiments.runner import compiling, routes
from sim.contract import has_compiled_engine, plural
from sim.engine_words import COMPILED, ENGINES, REFERENCE

MAX_COUNT = 10_000_000  # rows per timing
COUNT_UNITS = ("hands", "games", "matches")  # one count option per row unit; a game takes its own


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``bench``."""
    add_game_argument(parser)
    parser.add_argument("--engine", choices=ENGINE_CHOICES,
                        help="measure one engine (default: both; fast is the compiled engine's older name)")
    parser.add_argument("--seats", type=int,
                        help="measure one seat count (default: the game's bench seats: Knorri 3 to 6, Knockout "
                             "Whist 4 and 7, Kort 4)")
    for unit in COUNT_UNITS:
        parser.add_argument(f"--{unit}", type=int,
                            help=f"{unit} per timing, for a game that counts {unit} (defaults: Knorri 50,000 "
                                 "compiled and 200 reference, Knockout Whist 100,000 and 300, Kort 50,000 and 200)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option the deals are played under, e.g. cap=20000 or repeat=3 (Knorri's "
                             "cut-offs); repeatable")
    parser.add_argument("--workers", type=int,
                        help="measure with this many cores only (default: one core, then every core)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per case; the median is reported (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per case instead of a table")
    parser.add_argument("--agents", metavar="SPECS",
                        help="time this lineup instead on each path the runner can play it (compiled, reference), "
                             "on one core: --hands (or --games, --matches) deals on the compiled path (default "
                             "2,000), a fiftieth on the reference; each path's line says how many it timed. The "
                             f"lineup: {lineup.SYNTAX}")


def run(args: argparse.Namespace) -> int:
    """Measure every case asked for and print a table (or JSON lines)."""
    counts = {unit: getattr(args, unit) for unit in COUNT_UNITS}
    if args.agents is not None:
        return _run_lineup(args, counts)
    adapter, _, options = game_settings(args.game, None, args.option)
    unit = plural(adapter.ROW)
    for other, value in counts.items():
        if value is not None and other != unit:
            raise UsageError(f"--{other} counts another game's rows; a {adapter.TITLE} timing counts {unit}: "
                             f"use --{unit}")
    count = counts[unit]
    seats = None if args.seats is None else game_settings(args.game, args.seats, [])[1]
    cores = os.cpu_count() or 1
    if args.workers is not None and not 1 <= args.workers <= cores:
        raise UsageError(f"--workers must be 1 to {cores} (this machine's cores), not {args.workers}")
    if count is not None and count < 1:
        raise UsageError(f"--{unit} must be at least 1, not {count}")
    if count is not None and count > MAX_COUNT:
        raise UsageError(f"--{unit} is at most {MAX_COUNT:,} per timing (a timing holds every seed in memory, "
                         f"and a longer one measures no better), not {count:,}")
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, not {args.repeat}")
    if args.engine is not None:
        engines: tuple[str, ...] = (engine_name(adapter, args.engine),)
    else:
        engines = ENGINES if has_compiled_engine(adapter) else (REFERENCE,)
    worker_counts = (args.workers,) if args.workers else tuple(sorted({1, cores}))
    notices.say(compiling.compile_notice(_to_compile(args.game, adapter, engines)))
    measure(args.game, adapter, engines, adapter.BENCH.seats if seats is None else (seats,), worker_counts, count,
            args.repeat, args.json, options)
    return 0


def _to_compile(game: str, adapter: ModuleType, engines: tuple[str, ...]) -> dict[str, float]:
    """What timing the compiled engine compiles first (module: measured seconds): its kernels when the cache lacks
    them, whatever the worker counts, as threads share the one serial kernel."""
    if COMPILED not in engines:
        return {}
    return compiling.uncached(routes.compiled_code(adapter, game, routes.ENGINE, ()))


def _run_lineup(args: argparse.Namespace, counts: dict[str, int | None]) -> int:
    """``--agents``: the lineup's rate on each path; any one of the count options gives its deals."""
    from experiments.bench.lineups import run_lineup

    given = {unit: value for unit, value in counts.items() if value is not None}
    if len(given) > 1:
        raise UsageError(f"give one count with --agents, not {' and '.join('--' + unit for unit in given)}")
    count = next(iter(given.values()), None)
    if count is not None and count < 1 or args.repeat < 1:
        raise UsageError(f"counts and --repeat must be at least 1, not {count} and {args.repeat}")
    return run_lineup(args, count)


