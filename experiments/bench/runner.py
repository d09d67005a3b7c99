"""What ``knorri-sim run`` costs beyond the engine, and where its output goes: end-to-end timings of fresh runs.

    python -m experiments.bench.runner overhead --hands 1000000 --agents random --workers 2 --repeat 3
    python -m experiments.bench.runner store --hands 400000 --chunk-hands 20000 --workers 2
    python -m experiments.bench.runner reference --game knorri --hands 2000
    python -m experiments.bench.runner against-c --hands 10000000 --workers 2 --repeat 3

``overhead`` times ``knorri-sim run`` against the same chunks played on their planned route with the results
thrown away, each a fresh process: the difference is what the runner adds. The runner's own CPU accounting from
the manifest is printed too, since it does not depend on the machine's other load. ``store`` times a run into a
moto S3 server on loopback against one into a local folder; the server runs in this process, in Python, so its
figure is a floor for a real store. ``reference`` measures the reference route's speed, which a cold run
weighs against compiling. ``against-c`` alternates the C simulator's bench on ``--workers`` cores at once with the
same random run: the run's share of C's rate. More in docs/internals.md, ``experiments.bench.runner``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUN = [sys.executable, "-m", "experiments.cli", "run"]


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds of ``command`` from start to exit, and the CPU seconds of it and its workers."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def warm_up(args: argparse.Namespace, folder: str, env: dict[str, str] | None = None) -> float:
    """Compile or load the kernels the timed runs use, in an untimed run of 1,000 hands; return its wall seconds.

    The run asks for the compiled engine: under ``auto`` so small a run of the engine's own policies plays on the
    reference engine, and the first timed run would compile. A lineup the compiled code cannot play runs as the
    timed runs do.
    """
    started = time.perf_counter()
    options = [*RUN, *run_options(args, 1000), "--out", str(Path(folder) / "warm")]
    compiled = subprocess.run([*options, "--engine", "compiled"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False)
    if compiled.returncode != 0:
        shutil.rmtree(Path(folder) / "warm", ignore_errors=True)
        subprocess.run(options, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def run_options(args: argparse.Namespace, hands: int | None = None) -> list[str]:
    """The ``knorri-sim run`` options both timings of a comparison share."""
    return ["--seats", str(args.seats), "--agents", args.agents, "--assign", args.assign,
            "--hands", str(hands or args.hands), "--seed", str(args.seed), "--workers", str(args.workers),
            *(["--chunk-hands", str(args.chunk_hands)] if args.chunk_hands else []), "--no-progress"]


# ----- overhead: the runner against the engine alone ---------------------------------------------------------


def engine_only(args: argparse.Namespace) -> int:
    """Play the run's chunks through their routes only, on ``--workers`` processes; print the row count."""
    from joblib import Parallel, delayed

    from agents.lineup import split_agent_specs
    from experiments.runner.config import build_config
    from experiments.runner.execute import plan_run

    config = build_config({"seats": args.seats, "agents": split_agent_specs(args.agents), "assign": args.assign,
                           "hands": args.hands, "seed": args.seed, "workers": args.workers,
                           **({"chunk_hands": args.chunk_hands} if args.chunk_hands else {})})
    plan = plan_run(config)
    if config.workers == 1:
        rows = sum(_play_only(task) for task in plan.tasks)
    else:
        jobs = [delayed(_play_only)(task) for task in plan.tasks]
        rows = sum(Parallel(n_jobs=config.workers, return_as="generator_unordered", backend="loky")(jobs))
    print(rows)
    return 0


def _play_only(task: Any) -> int:
    from experiments.runner.chunk import chunk_matches
    from experiments.runner.routes import play_route

    seeds, seatings = chunk_matches(task)
    played = play_route(task.table.route, task.adapter, task.game, task.table.seats, seeds, seatings,
                        task.table.match_hands, task.log_actions, task.options)
    return len(played.hands["seed"])


def cpu_account(out: Path) -> dict[str, float]:
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


def overhead(args: argparse.Namespace) -> int:
    """Time the runner and the engine alone; print medians, rates and the runner's overhead."""
    common = run_options(args)
    with tempfile.TemporaryDirectory() as folder:
        compile_s = warm_up(args, folder)
    run_times, engine_times, accounts = [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "run"
            run_times.append(timed([*RUN, *common, "--out", str(out)])[0])
            accounts.append(cpu_account(out))
        engine_times.append(timed([sys.executable, "-m", "experiments.bench.runner", "engine-only",
                                   *common[:-1]])[0])
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


# ----- against-c: the run against the C simulator on as many cores ------------------------------------------------

C_BENCH = Path(os.environ.get("TMPDIR", "/tmp")) / "knorri-c-bench"  # where the C simulator's build.sh puts it
C_HANDS = 1_000_000  # hands a C timing plays on each core


def against_c(args: argparse.Namespace) -> int:
    """Alternate the C bench on ``--workers`` cores at once with the run; print each round and the median share."""
    c_bench = Path(args.c_bench)
    cores = len(os.sched_getaffinity(0))
    problem = (f"no C bench at {c_bench}: build it with the C simulator's build.sh, or name it with --c-bench"
               if not c_bench.is_file() else
               f"--workers {args.workers} is more than this machine's {cores} cores" if args.workers > cores else
               f"--agents {args.agents!r}: C plays uniform random hands, so the run plays --agents random"
               if args.agents != "random" else None)
    if problem:
        print(f"against-c: {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        warm_up(args, folder)
    shares = []
    print(f"{args.hands:,} random hands, {args.seats} seats, {args.workers} workers, against C on as many cores")
    for round_number in range(1, args.repeat + 1):
        c_rate = _c_rate(c_bench, args.seats, args.workers)
        with tempfile.TemporaryDirectory() as folder:
            wall, cpu = timed([*RUN, *run_options(args), "--out", str(Path(folder) / "run")])
        shares.append(args.hands / wall / c_rate)
        print(f"  round {round_number}: C {c_rate:,.0f} hands/s on {args.workers} cores; the run {wall:.2f} s wall, "
              f"{cpu:.1f} s CPU: {shares[-1]:.3f} of C")
    print(f"  median: {statistics.median(shares):.3f} of C on {args.workers} cores")
    return 0


def _c_rate(c_bench: Path, seats: int, cores: int) -> float:
    """The C bench's hands per second on cores 0 to ``cores - 1`` at once (one process pinned to each), added."""
    timings = [subprocess.Popen(["taskset", "-c", str(core), str(c_bench), "bench", str(seats), str(C_HANDS), "2"],
                                stdout=subprocess.PIPE, text=True) for core in range(cores)]
    rates = [float(re.search(r"hands/s ([0-9.]+)", timing.communicate()[0]).group(1)) for timing in timings]
    return sum(rates)


# ----- reference: the reference route's speed, which a cold run weighs against compiling --------------------------


def reference_rate(args: argparse.Namespace) -> int:
    """Print the hands per CPU second the reference route plays with every seat ``random`` at each of the game's
    bench seat counts, one process, median of ``--repeat``: the slowest is the adapter's
    ``Bench.reference_hands_per_s`` (``experiments.runner.compiling.cold_routes``)."""
    from experiments.runner.config import build_config
    from experiments.runner.execute import plan_run
    from sim import games

    adapter = games.adapter(args.game)
    size = {"matches" if adapter.ROW == "match" else "hands": args.hands}
    print(f"{args.game}: reference route, every seat random, hands per CPU second, median of {args.repeat}")
    for seats in adapter.BENCH.seats:
        config = build_config({"game": args.game, "seats": seats, "agents": ["random"] * seats, "assign": "fixed",
                               "seed": args.seed, "engine": "reference", "workers": 1, **size})
        plan = plan_run(config)
        rates = []
        for _ in range(args.repeat):
            started = time.process_time()
            for task in plan.tasks:
                _play_only(task)
            rates.append(plan.hands_total / (time.process_time() - started))
        print(f"  {seats} seats: {statistics.median(rates):,.0f} hands/s ({plan.hands_total:,} hands a timing)")
    return 0


# ----- store: an S3-compatible store against a local folder ----------------------------------------------------


def store(args: argparse.Namespace) -> int:
    """Start the S3 server, time a run into it and one into a local folder, and print both."""
    from moto.server import ThreadedMotoServer
    from s3fs import S3FileSystem

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint, "FSSPEC_S3_ENDPOINT_URL": endpoint}
        S3FileSystem(key="bench", secret="bench", endpoint_url=endpoint).mkdir("bench")
        with tempfile.TemporaryDirectory() as folder:
            warm_up(args, folder, env)
            for name, out in (("local folder", str(Path(folder) / "run")), ("S3 (moto)", "s3://bench/run")):
                wall, cpu = timed([*RUN, *run_options(args), "--out", out], env)
                print(f"{name:>12}: {args.hands:,} rows with {args.workers} workers in {wall:.1f} s wall "
                      f"({args.hands / wall:,.0f} rows/s), {cpu:.1f} s CPU in the command and its workers")
    finally:
        server.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the comparison asked for and run it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    comparisons = parser.add_subparsers(dest="comparison", required=True)
    for name, summary, hands in (("overhead", "the runner against the engine alone", 1_000_000),
                                 ("store", "an S3-compatible store against a local folder", 400_000),
                                 ("engine-only", "(used by overhead) play the chunks only, print the rows", None),
                                 ("reference", "the reference route's hands per CPU second, random seats", 2_000),
                                 ("against-c", "the run's rate as a share of the C simulator's on as many cores",
                                  10_000_000)):
        sub = comparisons.add_parser(name, help=summary, description=summary)
        sub.add_argument("--hands", type=int, default=hands or 1_000_000)
        sub.add_argument("--seats", type=int, default=4)
        sub.add_argument("--agents", default="random", help="the lineup, written as run's --agents (default random)")
        sub.add_argument("--assign", default="fixed")
        sub.add_argument("--seed", type=int, default=1)
        sub.add_argument("--workers", type=int, default=2)
        sub.add_argument("--chunk-hands", type=int, default=20_000 if name == "store" else None)
        sub.add_argument("--repeat", type=int, default=3, help="timings per side (overhead, reference)")
        sub.add_argument("--game", default="knorri", help="the game (reference)")
        sub.add_argument("--c-bench", default=str(C_BENCH), help="the C simulator's bench program (against-c)")
    args = parser.parse_args(argv)
    return {"overhead": overhead, "store": store, "engine-only": engine_only,
            "reference": reference_rate, "against-c": against_c}[args.comparison](args)


if __name__ == "__main__":
    sys.exit(main())
