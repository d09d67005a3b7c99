"""How fast a lineup of agents plays through the game's runner adapter, per core, on each path it can use.

    python -m experiments.bench_lineups --agents 'loginf;loginf;loginf;loginf' --hands 400
    python -m experiments.bench_lineups --agents 'random;greedy;loginf;mcts:iters=100' --hands 60 --floor

``lineup_rate`` plays the same matches the runner's workers would (``routes.play_matches``:
the route a run takes, one match per seed, the lineup at every match) on one core, and
reports rows (hands, games or matches) per CPU second: the median of ``repeat`` timings,
each after a warm-up that loads or compiles the kernels. CPU time is what a chunk costs a
worker whatever else the machine is doing; wall time is shown beside it.

``search_floor`` (Knorri) times what the ``mcts`` seats' searches alone cost per hand:
it plays the reference path and adds up the time inside the compiled search kernels the
Python agent calls (the compiled lineup runs the same searches on the same inputs), so
``1 / floor`` is the most hands per second any path could reach with that lineup.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from experiments.runner import routes
from experiments.runner.seating import check_specs
from sim import games
from sim.contract import check_seats
from sim.seating import check_lineup_length


@dataclass(frozen=True)
class LineupRate:
    """One path's speed for a lineup: rows per CPU second (median) and the timings behind it."""

    game: str
    path: str  # "compiled" or "reference"
    n_seats: int
    specs: tuple[str, ...]
    rows: int  # rows per timing
    cpu_seconds: tuple[float, ...]
    wall_seconds: tuple[float, ...]

    @property
    def per_cpu_second(self) -> float:
        """Rows per CPU second, from the median timing."""
        return self.rows / statistics.median(self.cpu_seconds)

    @property
    def per_wall_second(self) -> float:
        """Rows per wall-clock second, from the median timing (depends on the machine's other load)."""
        return self.rows / statistics.median(self.wall_seconds)


def lineup_rate(game: str, n_seats: int, specs: Sequence[str], hands: int, engine: str = "auto", repeat: int = 3,
                seed: int = 1, match_hands: int = 1) -> LineupRate:
    """Time ``hands`` matches of ``specs`` through ``game``'s adapter on ``engine`` (``auto``, ``compiled``,
    ``reference``), ``repeat`` times after a warm-up; each timing plays other seeds."""
    adapter = games.adapter(game)
    check_seats(adapter, n_seats)
    check_lineup_length(n_seats, specs)
    check_specs(specs, game)
    compiled = routes.choose_route(game, [specs], False) != routes.REFERENCE
    path = engine if engine != "auto" else ("compiled" if compiled else "reference")
    seating = [list(specs)]
    routes.play_matches(game, n_seats, [seed], seating, match_hands, engine=path)  # warm-up: load or compile kernels
    cpu, wall = [], []
    for r in range(repeat):
        seeds = [seed + 1 + r * hands + i for i in range(hands)]
        started, started_cpu = time.perf_counter(), time.process_time()
        played = routes.play_matches(game, n_seats, seeds, seating * hands, match_hands, engine=path)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    rows = len(next(iter(played.hands.values())))
    return LineupRate(game, path, n_seats, tuple(specs), rows, tuple(cpu), tuple(wall))


def search_floor(n_seats: int, specs: Sequence[str], hands: int, seed: int = 1) -> float:
    """CPU seconds per Knorri hand spent inside the ``mcts`` seats' compiled searches (reference path, timed)."""
    from agents.knorri import mcts
    from agents.knorri import search as compiled_search

    spent = [0.0]

    def timed(function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - started
        return run

    saved = compiled_search.TreeSearch.iterate, mcts.sampled_stock_search
    compiled_search.TreeSearch.iterate = timed(saved[0])
    mcts.sampled_stock_search = timed(saved[1])
    try:
        routes.play_matches("knorri", n_seats, [seed], [list(specs)], 1, engine="reference")  # warm-up
        spent[0] = 0.0
        routes.play_matches("knorri", n_seats, [seed + 1 + i for i in range(hands)], [list(specs)] * hands, 1,
                            engine="reference")
    finally:
        compiled_search.TreeSearch.iterate, mcts.sampled_stock_search = saved
    return spent[0] / hands


def main(argv: Sequence[str] | None = None) -> int:
    """Print each path's rate for one lineup (and the search floor with ``--floor``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="knorri")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--agents", required=True, help="one spec per seat, separated by ';'")
    parser.add_argument("--hands", type=int, default=200, help="matches per timing (one hand each)")
    parser.add_argument("--reference-hands", type=int, default=None, help="matches per reference timing")
    parser.add_argument("--engines", default="compiled,reference")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--floor", action="store_true", help="also time the mcts searches alone (Knorri)")
    args = parser.parse_args(argv)
    specs = [spec.strip() for spec in args.agents.split(";")]
    for engine in args.engines.split(","):
        count = args.reference_hands if engine == "reference" and args.reference_hands else args.hands
        rate = lineup_rate(args.game, args.seats, specs, count, engine, args.repeat)
        cpu = ", ".join(f"{s:.2f}" for s in rate.cpu_seconds)
        print(f"{rate.path:9s} {rate.per_cpu_second:10.1f} rows per CPU second  ({rate.rows} rows; CPU s {cpu}; "
              f"{rate.per_wall_second:.1f} per wall second)")
    if args.floor:
        floor = search_floor(args.seats, specs, args.reference_hands or args.hands)
        print(f"search floor: {floor * 1000:.1f} ms of mcts search per hand, so at most {1 / floor:.1f} hands/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
