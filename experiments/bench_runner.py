"""Benchmark ``knorri-sim run`` end to end against the engine alone, on the same chunks and workers.

    python experiments/bench_runner.py --hands 1000000 --agents random --workers 2 --repeat 3

Each repeat times two fresh processes from start to exit:

- ``run``: ``knorri-sim run`` writing the parquet dataset, manifest and summary;
- ``engine``: the same chunks played on their planned route (``routes.play_route``) on the same number of
  joblib workers, results thrown away (``--engine-only``).

The difference is what the runner adds (building Arrow tables, shipping them to
the writer, zstd parquet, the manifest, the summary). Medians are printed; the
machine's other load makes single timings noisy, so the runner's own CPU
accounting (from the manifest: the workers' CPU inside and outside the engine,
the writing process's CPU, and the summary) is printed too: it does not depend
on what else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
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
    from experiments.runner.routes import play_route

    seeds, seatings = chunk_matches(task)
    played = play_route(task.table.route, task.game, task.table.seats, seeds, seatings, task.table.match_hands,
                        task.log_actions, task.options)
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
    with tempfile.TemporaryDirectory() as folder:  # compile or load the kernels once, untimed
        warm = [c if c != str(args.hands) else "1000" for c in common]
        compile_s = _timed([sys.executable, "-m", "experiments.cli", "run", *warm, "--no-progress",
                            "--out", str(Path(folder) / "warm")])
    run_times, engine_times, accounts = [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "run"
            run_times.append(_timed([sys.executable, "-m", "experiments.cli", "run", *common, "--no-progress",
                                     "--out", str(out)]))
            accounts.append(_cpu_account(out))
        engine_times.append(_timed([sys.executable, str(Path(__file__).resolve()), "--engine-only", *common]))
    run_s, engine_s = statistics.median(run_times), statistics.median(engine_times)
    print(f"{args.hands:,} hands, {args.seats} seats, agents {args.agents}, {args.workers} workers, "
          f"{args.repeat} repeats (median)")
    print(f"  knorri-sim run, start to finished dataset: {run_s:7.2f} s  ({args.hands / run_s:,.0f} hands/s)"
          f"  all: {', '.join(f'{t:.2f}' for t in run_times)}")
    print(f"  engine alone, same chunks and workers:     {engine_s:7.2f} s  ({args.hands / engine_s:,.0f} hands/s)"
          f"  all: {', '.join(f'{t:.2f}' for t in engine_times)}")
    print(f"  runner overhead, wall: {run_s - engine_s:+.2f} s = {100 * (run_s - engine_s) / engine_s:+.1f}% "
          "of engine time")
    cpu = {key: statistics.median(a[key] for a in accounts) for key in accounts[0]}
    print(f"  CPU: engine {cpu['engine']:.2f} s in the workers; runner {cpu['runner']:.2f} s (worker tables "
          f"{cpu['tables']:.2f}, writer {cpu['writer']:.2f}, summary {cpu['summary']:.2f}) = "
          f"{100 * cpu['runner'] / cpu['engine']:.1f}% of engine CPU")
    print(f"  (untimed warm-up run of 1,000 hands first, compiling or loading the kernels: {compile_s:.1f} s)")
    return 0


def _cpu_account(out: Path) -> dict[str, float]:
    """CPU seconds of a finished run: the engine, the workers' table building, the writer, the summary."""
    from experiments.runner.summary import summarise

    manifest = json.loads((out / "manifest.json").read_text())
    timings = list(manifest["chunk_seconds"].values())
    engine = sum(t[2] for t in timings)
    tables = sum(t[3] - t[2] for t in timings)
    started = time.process_time()
    summarise(out)
    summary = time.process_time() - started
    writer = manifest["writer_cpu_seconds"]
    return {"engine": engine, "tables": tables, "writer": writer, "summary": summary,
            "runner": tables + writer + summary}


if __name__ == "__main__":
    sys.exit(main())
