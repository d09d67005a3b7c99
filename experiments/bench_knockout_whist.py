"""``knorri-sim bench --game knockout-whist``: whole games of uniform random play per second, on each engine.

Both engines play the same games with the same choices (the permutations from
the game's seed, each seat's decisions from its own splitmix64 stream, as
``RandomAgent``), so their rates compare like with like; the compiled engine's
rate is also shown as a multiple of the reference engine's at the same seats
and workers. The compiled engine is warmed up before timing: its compile time
(or the time to load it from the on-disk cache) is reported apart. Each case is
timed ``--repeat`` times and the median is reported, with the CPU seconds the
process used beside the wall-clock rate (they differ on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from sim.knockout_whist.encoding import MAX_SEATS, MIN_SEATS, Options
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import SplitMix64, agent_seed

ENGINES = ("reference", "fast")
DEFAULT_SEATS = (4, 7)
DEFAULT_GAMES = {"reference": 300, "fast": 100_000}  # the reference engine plays about a thousand games a second


def run(args: argparse.Namespace) -> int:
    """Measure every case asked for and print a table (or JSON lines)."""
    from experiments.cli import UsageError

    if args.hands is not None:
        raise UsageError("--hands is for Knorri; a Knockout Whist timing counts whole games: use --games")
    if args.seats is not None and not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"Knockout Whist is for {MIN_SEATS} to {MAX_SEATS} seats, not {args.seats}")
    if args.games is not None and args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    cores = os.cpu_count() or 1
    if args.workers is not None and not 1 <= args.workers <= cores:
        raise UsageError(f"--workers must be 1 to {cores} (this machine's cores), not {args.workers}")
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, not {args.repeat}")
    seats = DEFAULT_SEATS if args.seats is None else (args.seats,)
    engines = ENGINES if args.engine is None else (args.engine,)
    worker_counts = (args.workers,) if args.workers else tuple(sorted({1, cores}))
    compile_s = _warm_up_fast() if "fast" in engines else None
    if not args.json:
        print(f"Knockout Whist, uniform random games (default options); median of {args.repeat} timings; "
              "rates exclude compile time.")
        if compile_s is not None:
            print(f"Fast engine: compiling (or loading the cached machine code) took {compile_s:.1f} s before timing.")
        print(f"{'engine':<10} {'seats':>5} {'workers':>7} {'games':>9} {'games/s':>12} {'decisions/s':>14} "
              f"{'wall s':>8} {'CPU s':>8} {'x reference':>12}")
    reference_rates: dict[tuple[int, int], float] = {}
    for engine in engines:
        games = args.games or DEFAULT_GAMES[engine]
        for n_seats in seats:
            for workers in worker_counts:
                timings = [_time_case(engine, n_seats, games, workers, repeat) for repeat in range(args.repeat)]
                seconds = statistics.median(t for t, _, _ in timings)
                decisions = statistics.median(d for _, d, _ in timings)
                cpu = statistics.median(c for _, _, c in timings)
                rate = games / seconds
                if engine == "reference":
                    reference_rates[n_seats, workers] = rate
                ratio = rate / reference_rates[n_seats, workers] if (n_seats, workers) in reference_rates else None
                case = {"game": "knockout-whist", "engine": engine, "seats": n_seats, "workers": workers,
                        "games": games, "games_per_s": round(rate, 1),
                        "decisions_per_s": round(decisions / seconds, 1), "repeats": args.repeat,
                        "wall_s": round(seconds, 3), "cpu_s": round(cpu, 3)}
                if engine == "fast":
                    case["compile_s"] = round(compile_s, 2)
                    if ratio is not None:
                        case["times_reference"] = round(ratio, 1)
                if args.json:
                    print(json.dumps(case), flush=True)
                else:
                    shown = f"{ratio:>11,.0f}x" if engine == "fast" and ratio is not None else f"{'':>12}"
                    print(f"{engine:<10} {n_seats:>5} {workers:>7} {games:>9,} {rate:>12,.0f} "
                          f"{case['decisions_per_s']:>14,.0f} {seconds:>8.2f} {cpu:>8.2f} {shown}", flush=True)
    return 0


def _warm_up_fast() -> float:
    """Compile (or load) the playout kernel; return the seconds it took."""
    start = time.perf_counter()
    from sim.knockout_whist.batch import play_batch

    play_batch(Options(), np.arange(8), "random", workers=1)
    return time.perf_counter() - start


def _time_case(engine: str, n_seats: int, games: int, workers: int, repeat: int) -> tuple[float, int, float]:
    """Wall seconds to play ``games`` random games, the decisions they took, and the CPU seconds used."""
    seeds = np.arange(repeat * games, (repeat + 1) * games, dtype=np.uint64)
    if engine == "fast":
        from sim.knockout_whist.batch import play_batch

        start, cpu = time.perf_counter(), time.process_time()
        results = play_batch(Options(players=n_seats), seeds, "random", workers=workers)
        return time.perf_counter() - start, int(results.decisions.sum()), time.process_time() - cpu
    if workers == 1:
        start, cpu = time.perf_counter(), time.process_time()
        decisions = _reference_games(n_seats, seeds.tolist())
        return time.perf_counter() - start, decisions, time.process_time() - cpu
    from joblib import Parallel, delayed

    pool = Parallel(n_jobs=workers)
    pool(delayed(_reference_games)(n_seats, []) for _ in range(workers))  # start the worker processes untimed
    start = time.perf_counter()
    timed = pool(delayed(_timed_reference)(n_seats, part) for part in np.array_split(seeds, workers))
    return time.perf_counter() - start, sum(d for d, _ in timed), sum(c for _, c in timed)


def _timed_reference(n_seats: int, seeds: np.ndarray) -> tuple[int, float]:
    """Decisions and CPU seconds of one worker's share of the reference games."""
    cpu = time.process_time()
    decisions = _reference_games(n_seats, seeds.tolist())
    return decisions, time.process_time() - cpu


def _reference_games(n_seats: int, seeds: list[int]) -> int:
    """Play games on the reference engine with the RANDOM policy's choices; return their decisions."""
    options = Options(players=n_seats)
    total = 0
    for seed in seeds:
        game = KnockoutWhistGame(options, seed=seed)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not game.done:
            game.apply(streams[game.to_move].choice(game.legal_actions()))
        total += len(game.decisions)
    return total
