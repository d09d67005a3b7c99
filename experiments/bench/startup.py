"""How long people wait for the main commands: each run cold (an empty compile cache) and warm (compiled).

    python -m experiments.bench.startup [--repeat 3] [--only NAME ...] [--out experiments/results/startup.md]

Every command is a whole ``knorri-sim`` process, as a user starts it, timed by its wall
seconds and its CPU seconds (its own and its children's: pool workers included). A cold
timing points ``KNORRI_SIM_CACHE_DIR`` at a fresh empty folder, so it compiles all it
needs; the warm timing straight after reuses that folder. Each command is timed
``--repeat`` times, cold then warm, and the medians are printed as a Markdown table
with the machine's load average, and written to ``--out`` when given. A timing of this
machine, never an assertion in a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

COMMANDS: dict[str, list[str]] = {
    "run (default)": ["run"],
    "run --game knockout-whist": ["run", "--game", "knockout-whist"],
    "run --game kort": ["run", "--game", "kort"],
    "run --agents random": ["run", "--agents", "random"],
    "run --agents random --engine compiled": ["run", "--agents", "random", "--engine", "compiled"],
    "play": ["play", "--seats", "4", "--seed", "5", "--agents", "random;greedy;loginf;mcts"],
    "duel": ["duel", "greedy", "random", "--seats", "4", "--max-deals", "40"],
    "bench": ["bench", "--engine", "compiled", "--hands", "20000", "--repeat", "1"],
}
"""The commands timed, by name; ``run`` writes into a fresh folder (``--out``) at each timing."""

WRITES_A_FOLDER = ("run", "duel")


def time_command(argv: list[str], cache: Path, out: Path) -> dict[str, float]:
    """Wall and CPU seconds (children included) of one ``knorri-sim`` process; it must succeed."""
    if argv[0] in WRITES_A_FOLDER:
        argv = [*argv, "--out", str(out), "--no-progress"]
    env = {**os.environ, "KNORRI_SIM_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "experiments.cli", *argv], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"knorri-sim {' '.join(argv)} failed: {done.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "compiled": "compiling" in done.stderr}


def measure(names: Sequence[str], repeat: int, work: Path) -> dict[str, dict[str, list[Any]]]:
    """Each named command ``repeat`` times, cold (a fresh cache) then warm (the same cache again)."""
    timings: dict[str, dict[str, list[Any]]] = {}
    for name in names:
        timings[name] = {"cold": [], "warm": []}
        for index in range(repeat):
            cache = work / f"cache-{index}"
            shutil.rmtree(cache, ignore_errors=True)
            for kind in ("cold", "warm"):
                out = work / f"out-{len(timings)}-{index}-{kind}"
                timings[name][kind].append(time_command(COMMANDS[name], cache, out))
            shutil.rmtree(cache, ignore_errors=True)
            print(f"{name}: cold {timings[name]['cold'][-1]['wall']:.1f} s, warm "
                  f"{timings[name]['warm'][-1]['wall']:.1f} s wall", file=sys.stderr, flush=True)
    return timings


def table(timings: dict[str, dict[str, list[Any]]], repeat: int, loads: tuple[float, float]) -> str:
    """The medians as a Markdown table, with the command lines and the load average around the timing."""
    lines = [f"Medians of {repeat} timings of each whole process, cold (an empty compile cache) then warm; load "
             f"average {loads[0]:.1f} before and {loads[1]:.1f} after; {os.cpu_count()} cores.", "",
             "| command | cold wall | cold CPU | warm wall | warm CPU | compiled when cold |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for name, kinds in timings.items():
        med = {(kind, key): statistics.median(t[key] for t in kinds[kind]) for kind in kinds for key in ("wall", "cpu")}
        said = "yes, and said so" if all(t["compiled"] for t in kinds["cold"]) else "said nothing"
        lines.append(f"| `knorri-sim {' '.join(COMMANDS[name])}` | {med['cold', 'wall']:.1f} s | "
                     f"{med['cold', 'cpu']:.1f} s | {med['warm', 'wall']:.1f} s | {med['warm', 'cpu']:.1f} s | "
                     f"{said} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, time the commands and print (and write) the table."""
    parser = argparse.ArgumentParser(prog="python -m experiments.bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="cold and warm timings of each command (default 3)")
    parser.add_argument("--only", nargs="+", choices=sorted(COMMANDS), metavar="NAME",
                        help=f"time only these commands, of: {', '.join(COMMANDS)}")
    parser.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    args = parser.parse_args(argv)
    names = args.only or list(COMMANDS)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="knorri-startup-") as work:
        timings = measure(names, args.repeat, Path(work))
    text = table(timings, args.repeat, (load_before, os.getloadavg()[0]))
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
