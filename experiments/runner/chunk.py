"""One chunk, as a worker runs it: seeds and seatings in, Arrow tables out.

This is the only code that runs on workers (joblib processes or Dask workers),
so everything it needs travels in a small picklable ``ChunkTask``.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from agents.base import Agent, AgentMaker, AgentSpecError
from experiments.runner.config import HoldsAdapter
from experiments.runner.plan import Chunk, TablePlan, match_seeds
from experiments.runner.routes import play_route
from experiments.runner.schema import actions_schema, hand_fields, hands_schema
from experiments.runner.seating import agent_maker, agents_print_to_stderr, replay_command
from experiments.runner.summary import with_summary
from sim import games
from sim.decision_limit import limit_decisions
from sim.errors import AgentFailure

STUCK_EXIT_CODE = 75  # a Dask worker ended because an agent's decision could not be interrupted


@dataclass(frozen=True)
class ChunkTask(HoldsAdapter):
    """Everything a worker needs to play one chunk and shape its rows. Its ``adapter`` is the run config's in the
    process that planned it; a worker process that receives a pickled copy looks it up once (``HoldsAdapter``)."""

    run_id: str
    chunk: Chunk
    table: TablePlan
    master_seed: int
    log_actions: bool
    width: int
    categories: dict[str, list[str]]
    game: str = games.DEFAULT_GAME
    options: dict[str, Any] = field(default_factory=dict)
    decision_timeout: float | None = None  # seconds a Python agent may take over one decision; None: no limit
    out: str | None = None  # a run folder the worker writes the chunk's shards into itself (an fsspec URL)
    continuation: dict[str, Any] | None = None  # the rules a row the game's cut-offs stop plays on under


@dataclass(frozen=True)
class ChunkFailed:
    """A chunk an agent stopped: the one-line message naming agent, seat and seed."""

    chunk_id: int
    message: str
    trace: str = ""  # the agent's whole traceback, for --debug


@dataclass
class ChunkResult:
    """A played chunk: its hands (actions, extra tables) as Arrow tables, and the worker's wall times."""

    chunk_id: int
    hands: pa.Table | None  # None when the worker wrote the shards itself
    actions: pa.Table | None
    engine_seconds: float  # wall time playing the matches (``play_route``)
    seconds: float  # wall time of the whole task, tables included
    engine_cpu: float  # CPU time of this worker process playing the matches
    cpu: float  # CPU time of this worker process for the whole task
    extras: dict[str, pa.Table] = field(default_factory=dict)  # the game's extra tables (Kort's rounds), by name
    written: dict[str, Any] | None = None  # when the worker wrote the shards (its tables dropped): each table's
    # rows and SHA-256 (``RunFolder.write_chunk``)


def chunk_matches(task: ChunkTask) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """The chunk's matches in row order: deal group by deal group, every arrangement of each."""
    chunk, table = task.chunk, task.table
    groups = np.arange(chunk.first_group, chunk.first_group + chunk.groups, dtype=np.uint64)
    seeds = np.repeat(match_seeds(task.master_seed, table.index, groups), len(table.seatings))
    return seeds, list(table.seatings) * chunk.groups


def play_chunk(task: ChunkTask) -> ChunkResult | ChunkFailed:
    """``run_chunk``, with an agent's failure returned rather than raised: a pool then still hands back the
    chunks other workers finished, and the run writes them before it stops. With ``task.out`` the worker
    writes the shards itself (on a file system under temporary names, which the run puts in place as it journals
    them) and returns only their row counts, digests and its times."""
    try:
        result = run_chunk(task)
    except AgentFailure as error:
        return ChunkFailed(task.chunk.id, str(error), error.trace)
    if task.out is None:
        return result
    from experiments.runner.storage import RunFolder

    started = time.perf_counter() - result.seconds
    started_cpu = time.process_time() - result.cpu
    written = RunFolder(task.out).write_chunk(result.chunk_id, result.hands, result.actions, result.extras,
                                              task.run_id, staged=True)
    return ChunkResult(result.chunk_id, None, None, result.engine_seconds, time.perf_counter() - started,
                       result.engine_cpu, time.process_time() - started_cpu, {}, written)


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Play a chunk's matches on the route its table's plan chose (``routes.play_route``) and build its tables."""
    started, started_cpu = time.perf_counter(), time.process_time()
    chunk, table, adapter = task.chunk, task.table, task.adapter
    seeds, seatings = chunk_matches(task)
    try:
        with limit_decisions(task.decision_timeout, _end_stuck_dask_worker()), agents_print_to_stderr():
            played = play_route(table.route, adapter, task.game, table.seats, seeds, seatings, table.match_hands,
                                task.log_actions, task.options, _worker_maker(task.game), task.continuation)
    except AgentFailure as failure:
        if failure.row is not None:  # the adapter's row in this chunk, as the run's hand_index
            failure.hand_index = chunk.first_hand + failure.row
        if failure.deal is not None:
            failure.replay = replay_command(adapter, task.game, failure.deal)
        raise
    except AgentSpecError as error:
        raise _cannot_make(error) from None
    engine_seconds, engine_cpu = time.perf_counter() - started, time.process_time() - started_cpu

    arrangements = len(table.seatings)
    groups = np.repeat(np.arange(chunk.first_group, chunk.first_group + chunk.groups), arrangements)
    arrangement = np.tile(np.arange(arrangements), chunk.groups)
    k = table.match_hands
    ids = {
        "chunk": np.full(chunk.hands, chunk.id, dtype=np.int32),
        "table": np.full(chunk.hands, table.index, dtype=np.int32),
        "deal_group": np.repeat(groups, k).astype(np.int64),
        "arrangement": np.repeat(arrangement, k).astype(np.int32),
        "match": np.repeat(table.first_match + groups * arrangements + arrangement, k).astype(np.int64),
        "hand_in_match": np.tile(np.arange(k), len(seatings)).astype(np.int32),
        "hand_index": chunk.first_hand + np.arange(chunk.hands, dtype=np.int64),
        "match_seed": np.repeat(seeds, k),
        "n_seats": np.full(chunk.hands, table.seats, dtype=np.int32),
    }
    agent_codes = {spec: code for code, spec in enumerate(task.categories["agent"])}
    seat_codes = np.array([[agent_codes[s] for s in seating] for seating in table.seatings], dtype=np.int16)
    ids["agent"] = np.repeat(seat_codes[arrangement], k, axis=0)
    ids["run_id"] = np.zeros(chunk.hands, dtype=np.int16)
    columns = {**ids, **played.hands}
    continued = task.continuation is not None
    hands = _build_table(columns, hands_schema(task.width, task.categories, adapter, task.game, continued=continued),
                         task, chunk.hands)
    hands = with_summary(hands, adapter)  # the summary's statistics travel in the shard's footer
    extras = {}
    for name, table_columns in played.tables.items():
        rows = table_columns.pop("hand_row")
        columns = {**{key: values[rows] for key, values in ids.items()}, **table_columns}
        extras[name] = _build_table(columns, hands_schema(task.width, task.categories, adapter, task.game, name),
                                    task, len(rows), name)
    actions = None
    if played.actions is not None:
        logged = dict(played.actions)
        logged["hand_index"] = ids["hand_index"][logged.pop("hand_row")]
        schema = actions_schema(adapter, task.game, continued)
        actions = pa.table({name: pa.array(logged[name], type=schema.field(name).type) for name in schema.names},
                           schema=schema)
    return ChunkResult(chunk.id, hands, actions, engine_seconds, time.perf_counter() - started, engine_cpu,
                       time.process_time() - started_cpu, extras)


def _worker_maker(game: str) -> AgentMaker:
    """The runner's ``agent_maker``, a spec it cannot make being the worker's fault (``_cannot_make``)."""
    make = agent_maker(game)

    def made(spec: str) -> Agent:
        try:
            return make(spec)
        except AgentSpecError as error:
            raise _cannot_make(error) from None

    return made


def _cannot_make(error: AgentSpecError) -> AgentFailure:
    """The client made every agent of the run before it started (``plan.check_lineups``): a spec a worker cannot
    make is that worker's difference from the client."""
    return AgentFailure(f"worker {socket.gethostname()} (pid {os.getpid()}) cannot make an agent the client "
                              f"could: {error}; install the same agent modules on every worker")


def _end_stuck_dask_worker() -> Callable[[], None] | None:
    """On a Dask worker's task thread, what ends a decision that no interrupt can end (a call blocked in C code):
    ending the worker process, which its nanny restarts, so a hung agent never holds a cluster's thread for ever
    (even once its run's client has gone). None elsewhere: a signal interrupts the main thread."""
    if threading.current_thread() is threading.main_thread() or "distributed" not in sys.modules:
        return None
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return None
    return lambda: os._exit(STUCK_EXIT_CODE)


def _build_table(columns: dict[str, np.ndarray], schema: pa.Schema, task: ChunkTask, rows: int,
                 table: str | None = None) -> pa.Table:
    arrays = []
    continued = table is None and task.continuation is not None
    for spec, name, seat in hand_fields(task.width, task.adapter, table, continued):
        values = columns[spec.name]
        arrow_type = schema.field(name).type
        if seat is not None:
            if seat >= values.shape[1]:
                arrays.append(pa.nulls(rows, type=arrow_type))
                continue
            values = values[:, seat]
        if spec.categories is not None:
            dictionary = pa.array(task.categories[spec.name], type=pa.string())
            mask = np.ma.getmaskarray(values) if isinstance(values, np.ma.MaskedArray) else None
            indices = pa.array(np.ma.getdata(values).astype(arrow_type.index_type.to_pandas_dtype()), mask=mask)
            arrays.append(pa.DictionaryArray.from_arrays(indices, dictionary))
        elif isinstance(values, np.ma.MaskedArray):
            arrays.append(pa.array(values.data, type=arrow_type, mask=np.ma.getmaskarray(values)))
        else:
            arrays.append(pa.array(values, type=arrow_type))
    return pa.Table.from_arrays(arrays, schema=schema)
