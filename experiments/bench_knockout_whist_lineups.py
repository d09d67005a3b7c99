"""Games per second per core of Knockout Whist lineups through the runner adapter, on the compiled and reference paths.

    python -m experiments.bench_knockout_whist_lineups --repeat 3

Each lineup's games are played by ``sim.knockout_whist.adapter.play_matches`` (what ``knorri-sim run`` calls
for a chunk, columns included, parquet writing not) with ``engine="compiled"`` and ``engine="reference"``,
from the same seeds. The time is the process's CPU time (``time.process_time``: the machine is shared), the
figure the median over ``--repeat`` runs after one warm-up run (compiling or loading the kernels); the script
also checks that both paths wrote the same rows for the games they both played.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from experiments.runner import routes

LINEUPS: dict[str, tuple[int, int]] = {  # lineup: (compiled games, reference games) per run
    "greedy;greedy;greedy;greedy": (50_000, 300),
    "tracker;tracker;tracker;tracker": (50_000, 300),
    "random;greedy;tracker;mcts:iters=100": (400, 40),
}


def play_matches(n_seats: int, seeds: Sequence[int], seatings: Sequence[Sequence[str]], engine: str) -> Any:
    """Knockout Whist games played as a run's chunk plays them (``routes.play_matches``)."""
    return routes.play_matches("knockout-whist", n_seats, seeds, seatings, engine=engine)


def games_per_second(specs: Sequence[str], games: int, engine: str, repeat: int) -> tuple[float, dict]:
    """The median games per CPU second over ``repeat`` runs of ``games`` games (after a warm-up), and the rows."""
    seeds = list(range(games))
    seatings = [list(specs)] * games
    rows = play_matches(len(specs), seeds[:min(games, 50)], seatings[:min(games, 50)], engine=engine).hands
    rates = []
    for _ in range(repeat):
        start = time.process_time()
        rows = play_matches(len(specs), seeds, seatings, engine=engine).hands
        rates.append(games / (time.process_time() - start))
    return statistics.median(rates), rows


def main(argv: Sequence[str] | None = None) -> None:
    """Print each lineup's games/s per core on both paths and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count by this")
    args = parser.parse_args(argv)
    print(f"{'lineup':40} {'compiled g/s':>14} {'reference g/s':>14} {'ratio':>8}")
    for lineup, (compiled_games, reference_games) in LINEUPS.items():
        specs = lineup.split(";")
        fast, fast_rows = games_per_second(specs, max(1, int(compiled_games * args.scale)), "compiled", args.repeat)
        slow, slow_rows = games_per_second(specs, max(1, int(reference_games * args.scale)), "reference",
                                           args.repeat)
        common = len(slow_rows["seed"])
        assert all(np.array_equal(np.asarray(fast_rows[k])[:common], np.asarray(slow_rows[k])) for k in slow_rows)
        print(f"{lineup:40} {fast:14,.0f} {slow:14,.1f} {fast / slow:8,.0f}", flush=True)


if __name__ == "__main__":
    main()
