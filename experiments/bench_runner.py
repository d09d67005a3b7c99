"""Benchmark ``knorri-sim run`` end to end against the engine alone, on the same chunks and workers.

    python experiments/bench_runner.py --hands 1000000 --agents random --workers 2 --repeat 3

Each repeat times two fresh processes from start to exit:

- ``run``: ``knorri-sim run`` writing the parquet dataset, manifest and summary;
- ``engine``: the same chunks played by the game adapter on the same number of
  joblib workers, results thrown away (``--engine-only``).

The difference is what the runner adds (building Arrow tables, shipping them to
the writer, zstd parquet, the manifest, the summary). Medians are printed; the
machine's other load makes single timings noisy.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def engine_only(args: argparse.Namespace) -> int:
    """Play the run's chunks through the adapter only, on ``--workers`` processes; print the row count."""
    from joblib import Parallel, delayed

    from experiments.runner.config import build_config
    from experiments.runner.execute import plan_run

    config = build_config(_raw_config(args))
    plan = plan_run(config)
    jobs = [delayed(_play_only)(task) for task in plan.tasks]
    if config.workers == 1:
        rows = sum(_play_only(task) for task in plan.tasks)
    else:
        rows = sum(Parallel(n_jobs=config.workers, return_as="generator_unordered", backend="loky")(jobs))
    print(rows)
    return 0


def _play_only(task) -> int:
    from experiments.runner.chunk import chunk_matches
    from sim.knorri.simulate import play_matches

    seeds, seatings = chunk_matches(task)
    played = play_matches(task.table.seats, seeds, seatings, task.table.match_hands, task.log_actions)
    return len(played.hands["seed"])


def _raw_config(args: argparse.Namespace) -> dict:
    return {"seats": args.seats, "agents": args.agents.split(";"), "assign": args.assign, "hands": args.hands,
            "seed": args.seed, "workers": args.workers}


def _timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Time the runner and the engine alone; print medians, rates and the runner's overhead."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--agents", default="random", help="one spec for all seats, or one per seat with ';'")
    parser.add_argument("--assign", default="fixed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.engine_only:
        return engine_only(args)
    common = ["--seats", str(args.seats), "--agents", args.agents, "--assign", args.assign,
              "--hands", str(args.hands), "--seed", str(args.seed), "--workers", str(args.workers)]
    run_times, engine_times = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            run_times.append(_timed([sys.executable, "-m", "experiments.cli", "run", *common, "--no-progress",
                                     "--out", str(Path(folder) / "run")]))
        engine_times.append(_timed([sys.executable, str(Path(__file__).resolve()), "--engine-only", *common]))
    run_s, engine_s = statistics.median(run_times), statistics.median(engine_times)
    print(f"{args.hands:,} hands, {args.seats} seats, agents {args.agents}, {args.workers} workers, "
          f"{args.repeat} repeats (median)")
    print(f"  knorri-sim run, start to finished dataset: {run_s:7.2f} s  ({args.hands / run_s:,.0f} hands/s)"
          f"  all: {', '.join(f'{t:.2f}' for t in run_times)}")
    print(f"  engine alone, same chunks and workers:     {engine_s:7.2f} s  ({args.hands / engine_s:,.0f} hands/s)"
          f"  all: {', '.join(f'{t:.2f}' for t in engine_times)}")
    print(f"  runner overhead: {run_s - engine_s:+.2f} s = {100 * (run_s - engine_s) / engine_s:+.1f}% of engine time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
