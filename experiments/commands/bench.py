"""``knorri-sim bench``: how fast each engine plays uniform random hands, per core and on all cores.

``--game knockout-whist`` times whole Knockout Whist games instead (``experiments/bench_knockout_whist.py``).

Both engines play the same hands with the same choices (each seat draws from its
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

import numpy as np

from sim.knorri.reference import KnorriHand, check_seats
from sim.rng import SplitMix64, agent_seed

ENGINES = ("reference", "fast")
ALL_SEATS = (3, 4, 5, 6)
DEFAULT_HANDS = {"reference": 200, "fast": 50_000}  # the reference engine plays a few hundred hands a second


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``bench``."""
    parser.add_argument("--game", choices=("knorri", "knockout-whist"), default="knorri",
                        help="which game (default knorri); knockout-whist times whole games at 4 and 7 seats")
    parser.add_argument("--engine", choices=ENGINES, help="measure one engine (default: both)")
    parser.add_argument("--seats", type=int,
                        help="measure one seat count, 3 to 6 for Knorri (default: all), 2 to 7 for Knockout Whist")
    parser.add_argument("--games", type=int, help="knockout-whist only: games per timing (default 100,000 fast, "
                                                  "300 reference)")
    parser.add_argument("--hands", type=int,
                        help=f"hands per timing (default {DEFAULT_HANDS['fast']:,} fast, "
                             f"{DEFAULT_HANDS['reference']} reference)")
    parser.add_argument("--workers", type=int,
                        help="measure with this many cores only (default: one core, then every core)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per case; the median is reported (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per case instead of a table")


def run(args: argparse.Namespace) -> int:
    """Measure every case asked for and print it."""
    from experiments.cli import UsageError

    if args.game == "knockout-whist":
        from experiments.bench_knockout_whist import run as run_knockout_whist

        return run_knockout_whist(args)
    if args.games is not None:
        raise UsageError("--games is for --game knockout-whist; a Knorri timing counts hands: use --hands")
    seats = ALL_SEATS if args.seats is None else (check_seats(args.seats),)
    engines = ENGINES if args.engine is None else (args.engine,)
    cores = os.cpu_count() or 1
    if args.workers is not None and not 1 <= args.workers <= cores:
        raise UsageError(f"--workers must be 1 to {cores} (this machine's cores), not {args.workers}")
    if args.hands is not None and args.hands < 1:
        raise UsageError(f"--hands must be at least 1, not {args.hands}")
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, not {args.repeat}")
    worker_counts = (args.workers,) if args.workers else tuple(sorted({1, cores}))
    compile_s = _warm_up_fast() if "fast" in engines else None
    if not args.json:
        print(f"Uniform random hands; median of {args.repeat} timings; rates exclude compile time.")
        if compile_s is not None:
            print(f"Fast engine: compiling (or loading the cached machine code) took {compile_s:.1f} s before timing.")
        print(f"{'engine':<10} {'seats':>5} {'workers':>7} {'hands':>9} {'hands/s':>12} {'actions/s':>14} "
              f"{'wall s':>8} {'CPU s':>8}")
    for engine in engines:
        hands = args.hands or DEFAULT_HANDS[engine]
        for n_seats in seats:
            for workers in worker_counts:
                timings = [_time_case(engine, n_seats, hands, workers, repeat) for repeat in range(args.repeat)]
                seconds = statistics.median(t for t, _, _ in timings)
                actions = statistics.median(a for _, a, _ in timings)
                cpu = statistics.median(c for _, _, c in timings)
                case = {"engine": engine, "seats": n_seats, "workers": workers, "hands": hands,
                        "hands_per_s": round(hands / seconds, 1), "actions_per_s": round(actions / seconds, 1),
                        "repeats": args.repeat, "wall_s": round(seconds, 3), "cpu_s": round(cpu, 3)}
                if engine == "fast":
                    case["compile_s"] = round(compile_s, 2)
                if args.json:
                    print(json.dumps(case), flush=True)
                else:
                    print(f"{engine:<10} {n_seats:>5} {workers:>7} {hands:>9,} {case['hands_per_s']:>12,.0f} "
                          f"{case['actions_per_s']:>14,.0f} {seconds:>8.2f} {cpu:>8.2f}", flush=True)
    return 0


def _warm_up_fast() -> float:
    """Compile (or load) every kernel the timings use; return the seconds it took."""
    start = time.perf_counter()
    from sim.knorri.batch import play_batch

    play_batch(4, np.arange(8), 0, "random", workers=1)
    return time.perf_counter() - start


def _time_case(engine: str, n_seats: int, hands: int, workers: int, repeat: int) -> tuple[float, int, float]:
    """Wall seconds to play ``hands`` random hands, the phase-2 actions they took, and the CPU seconds used."""
    seeds = np.arange(repeat * hands, (repeat + 1) * hands, dtype=np.uint64)
    if engine == "fast":
        from sim.knorri.batch import play_batch

        start, cpu = time.perf_counter(), time.process_time()
        results = play_batch(n_seats, seeds, 0, "random", workers=workers)
        return time.perf_counter() - start, int(results.phase2_actions.sum()), time.process_time() - cpu
    if workers == 1:
        start, cpu = time.perf_counter(), time.process_time()
        actions = _reference_hands(n_seats, seeds.tolist())
        return time.perf_counter() - start, actions, time.process_time() - cpu
    from joblib import Parallel, delayed

    pool = Parallel(n_jobs=workers)
    pool(delayed(_reference_hands)(n_seats, []) for _ in range(workers))  # start the worker processes untimed
    parts = np.array_split(seeds, workers)
    start = time.perf_counter()
    timed = pool(delayed(_timed_reference)(n_seats, p) for p in parts)
    return time.perf_counter() - start, sum(a for a, _ in timed), sum(c for _, c in timed)


def _timed_reference(n_seats: int, seeds: np.ndarray) -> tuple[int, float]:
    """Phase-2 actions and CPU seconds of one worker's share of the reference hands."""
    cpu = time.process_time()
    actions = _reference_hands(n_seats, seeds.tolist())
    return actions, time.process_time() - cpu


def _reference_hands(n_seats: int, seeds: list[int]) -> int:
    """Play hands on the reference engine with the RANDOM policy's choices; return their phase-2 actions."""
    total = 0
    for seed in seeds:
        hand = KnorriHand.from_seed(n_seats, seed, 0)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not hand.done:
            hand.apply(streams[hand.to_move].choice(hand.legal_actions()))
        total += hand.phase2_actions
    return total
