"""What checking a run's bytes costs: its writing and its reading, each timed with and without the checks.

    python -m experiments.bench.integrity --hands 200000 --repeat 5 [--no-log-actions] [--json]

``write``: ``knorri-sim run`` of a compiled random lineup with its action log (the most bytes a hand can write)
into a fresh folder, with the shards checksummed as the runner writes them (SHA-256 of the bytes, page CRCs, the
run and chunk in the footer), and with the shards written plainly as before (``pq.write_table`` to a temporary
name, then a rename). ``read``: ``knorri-sim report`` of that run, with every shard checked against its record
(SHA-256 of every hands shard, each action log the report's replays read, page CRCs verified on read), and with
the checks off. The two arms alternate, in this one process, ``--repeat`` times (checked first, then unchecked
first); the medians of their CPU seconds (this process's, every thread) are printed, with the CPU spent where the
checks are (writing the shards; checking them before a read), which a shared machine's noise does not swamp. A
timing of this machine, never an assertion in a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from experiments.cli import main as cli
from experiments.runner import integrity
from experiments.runner.storage import RunFolder, shard_name


def run_args(hands: int, out: Path, log_actions: bool = True) -> list[str]:
    """The run both arms of ``write`` play (and ``read`` reads): four random seats, one worker, logged unless a
    run too large for an action log (ten million hands) is timed."""
    return ["run", "--seats", "4", "--agents", "random", "--hands", str(hands), "--chunk-hands",
            str(max(1, min(hands // 20, 500_000))), "--seed", "1", *(["--log-actions"] if log_actions else []),
            "--workers", "1", "--no-progress", "--out", str(out)]


def plain_write_shard(folder: RunFolder, table_name: str, chunk_id: int, table: pa.Table,
                      run_id: str | None = None) -> str:
    """A shard written as before checksums: no digest, no page CRCs, no stamp in the footer."""
    categorical = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    final = Path(folder.path(table_name)) / shard_name(chunk_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    pq.write_table(table, temporary, compression="zstd", use_dictionary=categorical)
    os.replace(temporary, final)
    return "0" * 64


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Shards written plainly and read without any check, for the block."""
    saved = (RunFolder.write_shard, integrity.shard_problem, pq.read_table, pq.ParquetFile)
    read_table, parquet_file = pq.read_table, pq.ParquetFile

    def no_page_checks(function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            kwargs.pop("page_checksum_verification", None)
            return function(*args, **kwargs)
        return call

    RunFolder.write_shard = plain_write_shard  # type: ignore[method-assign]
    integrity.shard_problem = lambda *args, **kwargs: None  # type: ignore[assignment]
    pq.read_table, pq.ParquetFile = no_page_checks(read_table), no_page_checks(parquet_file)  # type: ignore[misc]
    try:
        yield
    finally:
        RunFolder.write_shard, integrity.shard_problem, pq.read_table, pq.ParquetFile = saved  # type: ignore


def cpu_seconds(argv: list[str]) -> float:
    """CPU seconds of one ``knorri-sim`` command in this process (its output swallowed); it must succeed."""
    started = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = cli(argv)
    if code != 0:
        raise SystemExit(f"knorri-sim {argv[0]} failed: {err.getvalue().strip()}")
    return time.process_time() - started


@contextlib.contextmanager
def timing(owner: Any, name: str, spent: list[float]) -> Iterator[None]:
    """``owner.name`` with the CPU seconds of every call to it added to ``spent[0]``, for the block (the name is
    looked up at each call, so an arm that swaps it out is timed too)."""
    original = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return getattr(owner, "_timed_" + name)(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    setattr(owner, "_timed_" + name, original)
    setattr(owner, name, timed)
    try:
        yield
    finally:
        setattr(owner, name, original)
        delattr(owner, "_timed_" + name)


def measure(hands: int, repeat: int, work: Path, log_actions: bool = True) -> dict[str, Any]:
    """Both arms of both paths, ``repeat`` times, in alternating order (checked first, then unchecked first); each
    arm's CPU seconds, whole and in the part the checks touch (writing the shards; checking them)."""
    # compile, import and draw once, outside the timings
    cpu_seconds(run_args(min(hands, 1000), work / "warm", log_actions))
    cpu_seconds(["report", str(work / "warm"), "--out", str(work / "warm-report")])
    names = ("write checked", "write plain", "read checked", "read unchecked")
    times: dict[str, list[float]] = {name: [] for name in names}
    parts: dict[str, list[float]] = {name: [] for name in names}

    def arm(name: str, argv: list[str]) -> None:
        spent = [0.0]
        plain = name.endswith(("plain", "unchecked"))
        with contextlib.ExitStack() as stack:
            if name.startswith("write"):
                stack.enter_context(timing(RunFolder, "write_chunk", spent))
            if plain:
                stack.enter_context(unchecked())
            elif name.startswith("read"):
                for check in ("verified_chunks", "check_table"):
                    stack.enter_context(timing(integrity, check, spent))
            times[name].append(cpu_seconds(argv))
        parts[name].append(spent[0])

    for index in range(repeat):
        checked, plain = work / f"checked-{index}", work / f"plain-{index}"
        writes = [("write checked", run_args(hands, checked, log_actions)),
                  ("write plain", run_args(hands, plain, log_actions))]
        reads = [(name, ["report", str(checked), "--out", str(work / f"report-{name[5:]}-{index}")])
                 for name in ("read checked", "read unchecked")]
        for pair in (writes, reads):
            for name, argv in pair if index % 2 == 0 else pair[::-1]:
                arm(name, argv)
    size = sum(path.stat().st_size for path in (work / "checked-0").rglob("part-*.parquet"))
    return {"hands": hands, "repeat": repeat, "log_actions": log_actions, "shard_mb": round(size / 1e6, 1),
            "cpu_seconds": times, "in_part": parts}


def summary(result: dict[str, Any]) -> list[str]:
    """The medians and the checks' shares, a line each."""
    median = {name: statistics.median(values) for name, values in result["cpu_seconds"].items()}
    part = {name: statistics.median(values) for name, values in result["in_part"].items()}
    lines = [f"{result['hands']:,} hands, {result['shard_mb']} MB of shards, medians of {result['repeat']} "
             "(CPU seconds of this process, every thread):"]
    on, off = "write checked", "write plain"
    lines.append(f"  write (knorri-sim run): {median[on]:.2f} s checked, {median[off]:.2f} s plain "
                 f"({(median[on] - median[off]) / median[off]:+.1%}); writing the shards {part[on]:.3f} s against "
                 f"{part[off]:.3f} s, so the checks cost {(part[on] - part[off]) / median[off]:+.2%} of the run")
    on, off = "read checked", "read unchecked"
    lines.append(f"  read (knorri-sim report): {median[on]:.2f} s checked, {median[off]:.2f} s unchecked "
                 f"({(median[on] - median[off]) / median[off]:+.1%}); checking the shards took {part[on]:.3f} s, "
                 f"{part[on] / median[off]:.2%} of the report (page CRCs not counted there)")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, time both paths and print the medians (or JSON)."""
    parser = argparse.ArgumentParser(prog="python -m experiments.bench.integrity", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands in the timed run (default 200,000)")
    parser.add_argument("--repeat", type=int, default=5, help="timings of each arm (default 5)")
    parser.add_argument("--log-actions", action=argparse.BooleanOptionalAction, default=True,
                        help="write the action log too (default); --no-log-actions for runs of millions of hands")
    parser.add_argument("--json", action="store_true", help="print every timing as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="knorri-integrity-") as work:
        result = measure(args.hands, args.repeat, Path(work), args.log_actions)
    print(json.dumps(result) if args.json else "\n".join(summary(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
