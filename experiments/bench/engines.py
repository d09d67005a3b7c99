"""How fast each engine of a game plays uniform random deals, per core and on all cores (``knorri-sim bench``).

A timing counts the game's rows (Knorri hands, Knockout Whist games, Kort matches) at
the seat counts its ``BENCH`` lists, and a per-step rate (Knorri's phase-2 actions, the
other games' decisions); the compiled engine's rate is also shown as a multiple of the
reference engine's. Both engines play the same deals with the same choices (each seat
draws from its own splitmix64 stream, as ``RandomAgent``), so their numbers compare like
with like. The compiled engine is warmed up before timing: its compile time (or the time
to load it from the on-disk cache) is reported apart and never counted in a rate. Each
case is timed ``repeat`` times and the median is reported. Rates are per wall-clock
second; the CPU seconds the process used are shown beside them, since on a shared machine
the two differ. Nothing here knows a game's rules: everything goes through the adapter.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from types import ModuleType

import numpy as np

from sim import games
from sim.contract import Bench, plural
from sim.rng import SplitMix64, agent_seed


def _reference_deals(game: str, options: dict, n_seats: int, seeds: list[int]) -> int:
    """Play the seeds' deals on the reference engine under ``options`` with the RANDOM policy's choices; return
    their steps."""
    adapter = games.adapter(game)
    total = 0
    for seed in seeds:
        deal = adapter.deal(n_seats, seed, options)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not deal.done:
            deal.apply(streams[deal.to_move].choice(deal.legal_actions()))
        total += adapter.BENCH.steps_of(deal)
    return total


def measure(game: str, adapter: ModuleType, engines: tuple[str, ...], seats: tuple[int, ...],
            worker_counts: tuple[int, ...], count: int | None, repeat: int, as_json: bool, options: dict) -> None:
    """Time every case under the game's ``options`` and print it as it finishes (the medians of ``repeat``
    timings)."""
    bench: Bench = adapter.BENCH
    unit, steps_unit = plural(adapter.ROW), bench.steps
    tag = None if game == games.DEFAULT_GAME else game  # the JSON rows name any game but the default one
    compile_s = _warm_up(bench, options, worker_counts) if "compiled" in engines else None
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
        play = (partial(_compiled_deals, bench.play_compiled, options) if engine == "compiled"
                else partial(_reference_deals, game, options))
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


def _compiled_deals(play_compiled: Callable[..., int], options: dict, n_seats: int, seeds: np.ndarray,
                    workers: int) -> int:
    """The seeds' deals on the compiled engine under ``options``; their steps."""
    return play_compiled(n_seats, seeds, workers, options)


def _warm_up(bench: Bench, options: dict, worker_counts: tuple[int, ...]) -> float:
    """Compile (or load) the compiled engine's kernels and play a few deals at every worker count timed; return the
    seconds it took."""
    start = time.perf_counter()
    for workers in worker_counts:
        bench.play_compiled(bench.seats[0], np.arange(8, dtype=np.uint64), workers, options)
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
