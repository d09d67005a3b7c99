"""``knorri-sim bench``: how fast each engine plays uniform random deals of a game, per core and on all cores.

A timing counts the game's rows (Knorri hands, Knockout Whist games, Kort matches:
``--hands``, ``--games`` or ``--matches``, whichever names the game's row) at the seat
counts its ``BENCH`` lists, and a per-step rate (Knorri's phase-2 actions, the other
games' decisions); the compiled engine's rate is also shown as a multiple of the
reference engine's.

``--agents SPECS`` times a lineup instead, through the game's runner adapter on each
path it can take (``bench_lineup``).

Both engines play the same deals with the same choices (each seat draws from its
own splitmix64 stream, as ``RandomAgent``), so their numbers compare like with
like. The compiled engine is warmed up before timing: its compile time (or the
time to load it from the on-disk cache) is reported apart and never counted in
a rate. Each case is timed ``--repeat`` times and the median is reported. Rates
are per wall-clock second; the CPU seconds the process used are shown beside
them, since on a shared machine the two differ.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from types import ModuleType

import numpy as np

from experiments.commands.common import ENGINE_CHOICES, add_game_argument, engine_name, game_settings
from experiments.errors import UsageError
from sim import games
from sim.contract import Bench, has_compiled_engine, plural
from sim.rng import SplitMix64, agent_seed

ENGINES = ("reference", "compiled")
MAX_COUNT = 10_000_000  # rows per timing
COUNT_UNITS = ("hands", "games", "matches")  # one count option per row unit; a game takes its own


def _reference_deals(game: str, n_seats: int, seeds: list[int]) -> int:
    """Play the seeds' deals on the reference engine with the RANDOM policy's choices; return their steps."""
    adapter = games.adapter(game)
    total = 0
    for seed in seeds:
        deal = adapter.deal(n_seats, seed, {})
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not deal.done:
            deal.apply(streams[deal.to_move].choice(deal.legal_actions()))
        total += adapter.BENCH.steps_of(deal)
    return total


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
    parser.add_argument("--workers", type=int,
                        help="measure with this many cores only (default: one core, then every core)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per case; the median is reported (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per case instead of a table")
    parser.add_argument("--agents", metavar="SPECS",
                        help="time this lineup instead (specs separated by ';', or one for every seat) on each path "
                             "the runner can play it (compiled, reference), on one core: --hands (or --games, "
                             "--matches) deals on the compiled path (default 2,000), a fiftieth on the reference")


def run(args: argparse.Namespace) -> int:
    """Measure every case asked for and print a table (or JSON lines)."""
    counts = {unit: getattr(args, unit) for unit in COUNT_UNITS}
    if args.agents is not None:
        return _run_lineup(args, counts)
    adapter, _, _ = game_settings(args.game, None, [])
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
        engines = ENGINES if has_compiled_engine(adapter) else ("reference",)
    worker_counts = (args.workers,) if args.workers else tuple(sorted({1, cores}))
    _measure(args.game, adapter, engines, adapter.BENCH.seats if seats is None else (seats,), worker_counts, count,
             args.repeat, args.json)
    return 0


def _run_lineup(args: argparse.Namespace, counts: dict[str, int | None]) -> int:
    """``--agents``: the lineup's rate on each path; any one of the count options gives its deals."""
    from experiments.commands.bench_lineup import run_lineup

    given = {unit: value for unit, value in counts.items() if value is not None}
    if len(given) > 1:
        raise UsageError(f"give one count with --agents, not {' and '.join('--' + unit for unit in given)}")
    count = next(iter(given.values()), None)
    if count is not None and count < 1 or args.repeat < 1:
        raise UsageError(f"counts and --repeat must be at least 1, not {count} and {args.repeat}")
    return run_lineup(args, count)


def _measure(game: str, adapter: ModuleType, engines: tuple[str, ...], seats: tuple[int, ...],
             worker_counts: tuple[int, ...], count: int | None, repeat: int, as_json: bool) -> None:
    """Time every case and print it as it finishes (the medians of ``repeat`` timings)."""
    bench: Bench = adapter.BENCH
    unit, steps_unit = plural(adapter.ROW), bench.steps
    tag = None if game == games.DEFAULT_GAME else game  # the JSON rows name any game but the default one
    compile_s = _warm_up(bench) if "compiled" in engines else None
    if not as_json:
        print(f"{adapter.TITLE}, uniform random {unit}; median of {repeat} timings; rates exclude compile time.")
        if compile_s is not None:
            print(f"Compiled engine: compiling (or loading the cached machine code) took {compile_s:.1f} s "
                  "before timing.")
        print(f"{'engine':<10} {'seats':>5} {'workers':>7} {unit:>9} {unit + '/s':>12} "
              f"{steps_unit + '/s':>14} {'wall s':>8} {'CPU s':>8} {'x reference':>12}")
    reference_rates: dict[tuple[int, int], float] = {}
    for engine in engines:
        units = count or bench.default_counts[engine]
        play = bench.play_compiled if engine == "compiled" else partial(_reference_deals, game)
        for n_seats in seats:
            for workers in worker_counts:
                timings = [_time_case(play, engine, n_seats, units, workers, r) for r in range(repeat)]
                seconds = statistics.median(t for t, _, _ in timings)
                steps = statistics.median(s for _, s, _ in timings)
                cpu = statistics.median(c for _, _, c in timings)
                rate = units / seconds
                if engine == "reference":
                    reference_rates[n_seats, workers] = rate
                ratio = rate / reference_rates[n_seats, workers] if (n_seats, workers) in reference_rates else None
                case = {"game": tag} if tag else {}
                case |= {"engine": engine, "seats": n_seats, "workers": workers, unit: units,
                         f"{unit}_per_s": round(rate, 1), f"{steps_unit}_per_s": round(steps / seconds, 1),
                         "repeats": repeat, "wall_s": round(seconds, 3), "cpu_s": round(cpu, 3)}
                if engine == "compiled":
                    case["compile_s"] = round(compile_s, 2)
                    if ratio is not None:
                        case["times_reference"] = round(ratio, 1)
                if as_json:
                    print(json.dumps(case), flush=True)
                    continue
                shown = f" {ratio:>11,.0f}x" if engine == "compiled" and ratio is not None else f" {'':>12}"
                print(f"{engine:<10} {n_seats:>5} {workers:>7} {units:>9,} {rate:>12,.0f} "
                      f"{case[steps_unit + '_per_s']:>14,.0f} {seconds:>8.2f} {cpu:>8.2f}{shown}", flush=True)


def _warm_up(bench: Bench) -> float:
    """Compile (or load) the compiled engine's kernels; return the seconds it took."""
    start = time.perf_counter()
    bench.play_compiled(bench.seats[0], np.arange(8, dtype=np.uint64), 1)
    return time.perf_counter() - start


def _time_case(play: Callable[..., int], engine: str, n_seats: int, units: int, workers: int,
               repeat: int) -> tuple[float, int, float]:
    """Wall seconds to play ``units`` random deals, the steps they took, and the CPU seconds used."""
    seeds = np.arange(repeat * units, (repeat + 1) * units, dtype=np.uint64)
    if engine == "compiled" or workers == 1:
        start, cpu = time.perf_counter(), time.process_time()
        steps = play(n_seats, seeds, workers) if engine == "compiled" else play(n_seats, seeds.tolist())
        return time.perf_counter() - start, steps, time.process_time() - cpu
    from joblib import Parallel, delayed

    pool = Parallel(n_jobs=workers)
    pool(delayed(play)(n_seats, []) for _ in range(workers))  # start the worker processes untimed
    parts = np.array_split(seeds, workers)
    start = time.perf_counter()
    timed = pool(delayed(_timed_reference)(play, n_seats, p) for p in parts)
    return time.perf_counter() - start, sum(s for s, _ in timed), sum(c for _, c in timed)


def _timed_reference(play: Callable[[int, list[int]], int], n_seats: int, seeds: np.ndarray) -> tuple[int, float]:
    """Steps and CPU seconds of one worker's share of the reference deals."""
    cpu = time.process_time()
    steps = play(n_seats, seeds.tolist())
    return steps, time.process_time() - cpu
