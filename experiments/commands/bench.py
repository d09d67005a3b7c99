"""``knorri-sim bench``: how fast each engine plays uniform random hands, games or matches, per core and on all cores.

Knorri is timed in hands at 3 to 6 seats; ``--game knockout-whist`` times whole
Knockout Whist games at 4 and 7 seats (default options) and ``--game kort`` whole
Kort matches to 7 wins; both also show the compiled engine's rate as a multiple
of the reference engine's.

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
from dataclasses import dataclass

import numpy as np

from experiments.errors import UsageError
from sim.knockout_whist.encoding import MAX_SEATS, MIN_SEATS, Options
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knorri.reference import KnorriHand, check_seats
from sim.kort.encoding import NUM_SEATS as KORT_SEATS
from sim.kort.reference import KortMatch
from sim.rng import SplitMix64, agent_seed

ENGINES = ("reference", "fast")
MAX_COUNT = 10_000_000  # hands, games or matches per timing


@dataclass(frozen=True)
class BenchGame:
    """What the bench times for one game: its unit, its default cases, and how each engine plays."""

    unit: str  # what a timing counts: "hands", "games" or "matches" (also the name of its count option)
    steps: str  # what the per-second step rate counts: "actions" or "decisions"
    title: str  # the table's first words
    name: str  # the game in messages
    count_for: str  # how a message says its count option belongs to it: "--hands is for Knorri"
    seats: tuple[int, ...]  # the seat counts timed by default
    default_counts: dict[str, int]  # units per timing, by engine
    tag: str | None  # the JSON rows' "game" field (none for Knorri, the default game)
    warm_up: Callable[[], object]  # compiles (or loads) every kernel the fast timings use
    play_fast: Callable[[int, np.ndarray, int], int]  # (seats, seeds, workers) -> steps
    play_reference: Callable[[int, list[int]], int]  # (seats, seeds) -> steps, on one core


def _fast_hands(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.knorri.batch import play_batch

    return int(play_batch(n_seats, seeds, 0, "random", workers=workers).phase2_actions.sum())


def _reference_hands(n_seats: int, seeds: list[int]) -> int:
    """Play Knorri hands on the reference engine with the RANDOM policy's choices; return their phase-2 actions."""
    total = 0
    for seed in seeds:
        hand = KnorriHand.from_seed(n_seats, seed, 0)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not hand.done:
            hand.apply(streams[hand.to_move].choice(hand.legal_actions()))
        total += hand.phase2_actions
    return total


def _fast_games(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.knockout_whist.batch import play_batch

    return int(play_batch(Options(players=n_seats), seeds, "random", workers=workers).decisions.sum())


def _reference_games(n_seats: int, seeds: list[int]) -> int:
    """Play Knockout Whist games on the reference engine with the RANDOM policy's choices; return their decisions."""
    options = Options(players=n_seats)
    total = 0
    for seed in seeds:
        game = KnockoutWhistGame(options, seed=seed)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not game.done:
            game.apply(streams[game.to_move].choice(game.legal_actions()))
        total += len(game.decisions)
    return total


def _fast_matches(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.kort.batch import play_batch

    return int(play_batch(None, seeds, "random", workers=workers).decisions.sum())


def _reference_matches(n_seats: int, seeds: list[int]) -> int:
    """Play Kort matches on the reference engine with the RANDOM policy's choices; return their decisions."""
    total = 0
    for seed in seeds:
        match = KortMatch(seed=seed)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(n_seats)]
        while not match.done:
            match.apply(streams[match.to_move].choice(match.legal_actions()))
        total += len(match.decisions)
    return total


KNORRI = BenchGame(
    unit="hands", steps="actions", title="Uniform random hands", name="Knorri", count_for="Knorri",
    seats=(3, 4, 5, 6),
    default_counts={"reference": 200, "fast": 50_000},  # the reference engine plays a few hundred hands a second
    tag=None, warm_up=lambda: _fast_hands(4, np.arange(8, dtype=np.uint64), 1),
    play_fast=_fast_hands, play_reference=_reference_hands,
)
KNOCKOUT_WHIST = BenchGame(
    unit="games", steps="decisions", title="Knockout Whist, uniform random games (default options)",
    name="Knockout Whist", count_for="--game knockout-whist", seats=(4, 7),
    default_counts={"reference": 300, "fast": 100_000},  # the reference engine plays about a thousand games a second
    tag="knockout-whist", warm_up=lambda: _fast_games(4, np.arange(8, dtype=np.uint64), 1),
    play_fast=_fast_games, play_reference=_reference_games,
)
KORT = BenchGame(
    unit="matches", steps="decisions", title="Kort, uniform random matches (default options: to 7 wins)",
    name="Kort", count_for="--game kort", seats=(KORT_SEATS,),
    default_counts={"reference": 200, "fast": 50_000},  # the reference engine plays about a hundred matches a second
    tag="kort", warm_up=lambda: _fast_matches(KORT_SEATS, np.arange(8, dtype=np.uint64), 1),
    play_fast=_fast_matches, play_reference=_reference_matches,
)
BENCHED = {"knorri": KNORRI, "knockout-whist": KNOCKOUT_WHIST, "kort": KORT}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``bench``."""
    parser.add_argument("--game", choices=tuple(BENCHED), default="knorri",
                        help="which game (default knorri); knockout-whist times whole games at 4 and 7 seats, "
                             "kort whole matches")
    parser.add_argument("--engine", choices=ENGINES, help="measure one engine (default: both)")
    parser.add_argument("--seats", type=int,
                        help="measure one seat count, 3 to 6 for Knorri (default: all), 2 to 7 for Knockout Whist "
                             "(Kort: always 4)")
    parser.add_argument("--games", type=int, help="knockout-whist only: games per timing (default 100,000 fast, "
                                                  "300 reference)")
    parser.add_argument("--matches", type=int, help="kort only: matches per timing (default 50,000 fast, "
                                                    "200 reference)")
    parser.add_argument("--hands", type=int,
                        help=f"hands per timing (default {KNORRI.default_counts['fast']:,} fast, "
                             f"{KNORRI.default_counts['reference']} reference)")
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

    game = BENCHED[args.game]
    counts = {"hands": args.hands, "games": args.games, "matches": args.matches}
    if args.agents is not None:
        return _run_lineup(args, counts)
    for unit, value in counts.items():
        owner = next(other for other in BENCHED.values() if other.unit == unit)
        if value is not None and owner is not game:
            raise UsageError(f"--{unit} is for {owner.count_for}; a {game.name} timing counts {game.unit}: "
                             f"use --{game.unit}")
    count, seats = counts[game.unit], args.seats
    if game is KNOCKOUT_WHIST and seats is not None and not MIN_SEATS <= seats <= MAX_SEATS:
        raise UsageError(f"Knockout Whist is for {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    if game is KORT and seats is not None and seats != KORT_SEATS:
        raise UsageError(f"Kort is always played by {KORT_SEATS} seats, not {seats}")
    if game is KNORRI and seats is not None:
        seats = check_seats(seats)
    cores = os.cpu_count() or 1
    if args.workers is not None and not 1 <= args.workers <= cores:
        raise UsageError(f"--workers must be 1 to {cores} (this machine's cores), not {args.workers}")
    if count is not None and count < 1:
        raise UsageError(f"--{game.unit} must be at least 1, not {count}")
    if count is not None and count > MAX_COUNT:
        raise UsageError(f"--{game.unit} is at most {MAX_COUNT:,} per timing (a timing holds every seed in memory, "
                         f"and a longer one measures no better), not {count:,}")
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, not {args.repeat}")
    engines = ENGINES if args.engine is None else (args.engine,)
    worker_counts = (args.workers,) if args.workers else tuple(sorted({1, cores}))
    _measure(game, engines, game.seats if seats is None else (seats,), worker_counts, count, args.repeat, args.json)
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


def _measure(game: BenchGame, engines: tuple[str, ...], seats: tuple[int, ...], worker_counts: tuple[int, ...],
             count: int | None, repeat: int, as_json: bool) -> None:
    """Time every case and print it as it finishes (the medians of ``repeat`` timings)."""
    compare = game.tag is not None  # the later games' tables also show the fast engine as a multiple of the reference
    compile_s = _warm_up(game) if "fast" in engines else None
    if not as_json:
        print(f"{game.title}; median of {repeat} timings; rates exclude compile time.")
        if compile_s is not None:
            print(f"Fast engine: compiling (or loading the cached machine code) took {compile_s:.1f} s before timing.")
        print(f"{'engine':<10} {'seats':>5} {'workers':>7} {game.unit:>9} {game.unit + '/s':>12} "
              f"{game.steps + '/s':>14} {'wall s':>8} {'CPU s':>8}" + (f" {'x reference':>12}" if compare else ""))
    reference_rates: dict[tuple[int, int], float] = {}
    for engine in engines:
        units = count or game.default_counts[engine]
        for n_seats in seats:
            for workers in worker_counts:
                timings = [_time_case(game, engine, n_seats, units, workers, r) for r in range(repeat)]
                seconds = statistics.median(t for t, _, _ in timings)
                steps = statistics.median(s for _, s, _ in timings)
                cpu = statistics.median(c for _, _, c in timings)
                rate = units / seconds
                if engine == "reference":
                    reference_rates[n_seats, workers] = rate
                ratio = rate / reference_rates[n_seats, workers] if (n_seats, workers) in reference_rates else None
                case = {"game": game.tag} if game.tag else {}
                case |= {"engine": engine, "seats": n_seats, "workers": workers, game.unit: units,
                         f"{game.unit}_per_s": round(rate, 1), f"{game.steps}_per_s": round(steps / seconds, 1),
                         "repeats": repeat, "wall_s": round(seconds, 3), "cpu_s": round(cpu, 3)}
                if engine == "fast":
                    case["compile_s"] = round(compile_s, 2)
                    if compare and ratio is not None:
                        case["times_reference"] = round(ratio, 1)
                if as_json:
                    print(json.dumps(case), flush=True)
                    continue
                shown = ""
                if compare:
                    shown = f" {ratio:>11,.0f}x" if engine == "fast" and ratio is not None else f" {'':>12}"
                print(f"{engine:<10} {n_seats:>5} {workers:>7} {units:>9,} {rate:>12,.0f} "
                      f"{case[game.steps + '_per_s']:>14,.0f} {seconds:>8.2f} {cpu:>8.2f}{shown}", flush=True)


def _warm_up(game: BenchGame) -> float:
    """Compile (or load) the fast engine's kernels; return the seconds it took."""
    start = time.perf_counter()
    game.warm_up()
    return time.perf_counter() - start


def _time_case(game: BenchGame, engine: str, n_seats: int, units: int, workers: int,
               repeat: int) -> tuple[float, int, float]:
    """Wall seconds to play ``units`` random hands or games, the steps they took, and the CPU seconds used."""
    seeds = np.arange(repeat * units, (repeat + 1) * units, dtype=np.uint64)
    if engine == "fast" or workers == 1:
        start, cpu = time.perf_counter(), time.process_time()
        if engine == "fast":
            steps = game.play_fast(n_seats, seeds, workers)
        else:
            steps = game.play_reference(n_seats, seeds.tolist())
        return time.perf_counter() - start, steps, time.process_time() - cpu
    from joblib import Parallel, delayed

    pool = Parallel(n_jobs=workers)
    pool(delayed(game.play_reference)(n_seats, []) for _ in range(workers))  # start the worker processes untimed
    parts = np.array_split(seeds, workers)
    start = time.perf_counter()
    timed = pool(delayed(_timed_reference)(game.play_reference, n_seats, p) for p in parts)
    return time.perf_counter() - start, sum(s for s, _ in timed), sum(c for _, c in timed)


def _timed_reference(play: Callable[[int, list[int]], int], n_seats: int, seeds: np.ndarray) -> tuple[int, float]:
    """Steps and CPU seconds of one worker's share of the reference hands or games."""
    cpu = time.process_time()
    steps = play(n_seats, seeds.tolist())
    return steps, time.process_time() - cpu
