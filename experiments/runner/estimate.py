"""How long a run will take and how large its action log will be, said before it starts when either is large.

Every table of the run (a seat count and the route its lineup takes) is timed on a sample of its first chunk played
here as the run will play it (after one untimed row that loads the compiled code, a row at a time, doubling, for
about ``SAMPLE_SECONDS``; the engine's own lineups up to the whole chunk, so the kernel is timed rather than the
calls around it; the rows are played again by the run, identically): the engine's rate at that seat count, measured
on this machine now. Only a run of the engine's own lineups so small that the adapter's slowest-seat-count rate
(``BENCH.compiled_rows_per_s``) finishes it well inside ``LONG_RUN_SECONDS`` is not timed, and starts at once.
With an action log the sample also counts decisions per row, which times ``ACTION_ROW_BYTES`` gives the log's size.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from types import ModuleType

from experiments.runner import routes
from experiments.runner.chunk import ChunkTask, chunk_matches
from experiments.runner.routes import play_route
from sim.contract import ChunkColumns, plural

LONG_RUN_SECONDS = 180.0  # say how long a run will take when it is longer than this
LARGE_LOG_BYTES = 1e9  # say how large the action log will be when it is larger than this
SAMPLE_SECONDS = 0.5  # time the sample for about this long (one row at least)
# A run of fewer rows is not sampled: the default experiment (100 hands, seconds once compiled) starts at once, with no
# compiling in this process before its workers start. (A few hundred rows of mcts at 1,000 iterations can still
# take minutes unannounced; the progress bar's rate shows it.)
MIN_SAMPLED_ROWS = 200
MAX_SAMPLE_ROWS = 64
# A run of the engine's own lineups that its slowest measured rate plays in under LONG_RUN_SECONDS / ENGINE_MARGIN
# is not timed: it cannot be long.
ENGINE_MARGIN = 4
# Parquet bytes per decision in actions/, as measured (docs/experiments.md, "The actions table"), rounded up for
# the games whose rows carry one more column.
ACTION_ROW_BYTES = 1.3


@dataclass(frozen=True)
class Estimate:
    """A run's expected wall time on its workers, its action log's size (None without one), and the basis."""

    seconds: float
    action_bytes: float | None
    basis: str


def estimate_run(tasks: list[ChunkTask], adapter: ModuleType, engine_speed: bool, log_actions: bool,
                 workers: int | None) -> Estimate:
    """Estimate the wall time of ``tasks`` (the chunks still to play of a run of the game ``adapter`` adapts) on
    ``workers`` local processes (None: Dask, one chunk per worker at a time, taken as the chunk count) and the size
    of their action log.

    ``engine_speed``: every lineup plays on the engine's own kernels (``plan.plays_at_engine_speed``). Every
    table (its seat count and route) is timed on its own first chunk's rows, played here as the run plays them:
    the engine's rate is that seat count's, measured now, never a figure kept from another count or machine. A
    run the adapter's slowest-seat-count rate (``BENCH.compiled_rows_per_s``) finishes well inside
    ``LONG_RUN_SECONDS`` is not timed, so that it starts at once."""
    rows = sum(task.chunk.hands for task in tasks)
    parallel = max(1, min(len(tasks), workers if workers else len(tasks)))
    rate = adapter.BENCH.compiled_rows_per_s
    quick = rows < MIN_SAMPLED_ROWS or rows / rate / parallel < LONG_RUN_SECONDS / ENGINE_MARGIN if rate else False
    if engine_speed and rate and not log_actions and quick:
        return Estimate(rows / rate / parallel, None, f"the compiled engine's measured {rate:,} rows/s a core")
    if rows < MIN_SAMPLED_ROWS:
        return Estimate(0.0, None, "its size")
    first_task: dict[int, ChunkTask] = {}
    table_rows: dict[int, int] = {}
    for task in tasks:
        first_task.setdefault(task.table.index, task)
        table_rows[task.table.index] = table_rows.get(task.table.index, 0) + task.chunk.hands
    seconds, size, bases = 0.0, 0.0, []
    row = adapter.ROW
    for index, task in first_task.items():
        engine = task.table.route == routes.ENGINE
        seconds_per_row, decisions_per_row, sampled = _sample(task, adapter, log_actions, engine)
        seconds += table_rows[index] * seconds_per_row
        size += table_rows[index] * decisions_per_row * ACTION_ROW_BYTES
        what = f"{sampled:,} {plural(row) if sampled != 1 else row} at {task.table.seats} seats"
        bases.append(f"{what} ({1 / seconds_per_row:,.0f} a CPU second)" if engine else what)
    basis = "the CPU time of a sample of " + ", ".join(bases) + (" on the compiled engine" if engine_speed else "")
    return Estimate(seconds / parallel, size if log_actions else None, basis)


def warning(estimate: Estimate, workers: int | None) -> str | None:
    """The line to print before a run that is long or writes a large action log; None for any other run."""
    parts = []
    if estimate.seconds > LONG_RUN_SECONDS:
        on = f"{workers} worker{'s' if workers != 1 else ''}" if workers else "the cluster"
        parts.append(f"this run will take about {_duration(estimate.seconds)} on {on} (more on a busy machine)")
    if estimate.action_bytes is not None and estimate.action_bytes > LARGE_LOG_BYTES:
        parts.append(f"its action log (--log-actions) will take about {estimate.action_bytes / 1e9:.1f} GB")
    if not parts:
        return None
    return "knorri-sim: " + "; ".join(parts) + f" (estimated from {estimate.basis}); Ctrl-C stops it, --resume goes on"


def local_workers(workers: int | None) -> int:
    """The local worker count a run uses: the config's, else every core."""
    return workers or os.cpu_count() or 1


def _sample(task: ChunkTask, adapter: ModuleType, log_actions: bool, engine: bool = False) -> tuple[float, float, int]:
    """CPU seconds per row of a chunk's first rows, played here as the run plays them, and, with
    ``log_actions``, their decisions per row (else 0). ``engine``: the engine's own kernels, timed on up to the
    whole chunk (a few rows would time the calls around the kernel, not the kernel)."""
    seeds, seatings = chunk_matches(task)
    table = task.table

    def play(count: int) -> ChunkColumns:
        return play_route(table.route, adapter, task.game, table.seats, seeds[:count], seatings[:count],
                          table.match_hands, log_actions, task.options)

    play(1)  # an untimed first row: loading or compiling the engine and agents is no part of the rate
    largest = len(seeds) if engine else min(len(seeds), MAX_SAMPLE_ROWS)
    rows, count, spent, decisions = 0, 1, 0.0, 0
    while True:
        count = min(count, largest)
        started = time.process_time()  # CPU, not wall: on a busy machine the wall time says little
        played = play(count)
        elapsed = time.process_time() - started
        rows = count * task.table.match_hands
        decisions = len(played.actions["hand_row"]) if played.actions is not None else 0
        spent += elapsed
        if spent >= SAMPLE_SECONDS or count >= largest:
            return max(elapsed, 1e-9) / rows, decisions / rows, rows
        count *= 2


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
