"""Running a planned experiment: schedule the missing chunks, write each as it finishes, keep the manifest.

Chunks run in this process, on local worker processes or on an existing Dask
cluster (``experiments.runner.workers``); either way a worker returns Arrow
tables and this process writes them, so a remote cluster needs no shared file
system. Each finished chunk adds one line to the run's journal; the manifest is
written when the run starts, stops and ends, with the journal folded in. One
process at a time writes a run folder (its lock).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Collection, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm
from tqdm.auto import tqdm as auto_tqdm

from experiments.runner import fingerprint, routes, storage
from experiments.runner.chunk import ChunkFailed, ChunkTask
from experiments.runner.compiling import code_to_compile, cold_routes
from experiments.runner.config import ConfigError, RunConfig
from experiments.runner.estimate import MIN_SAMPLED_ROWS
from experiments.runner.locking import unwritable
from experiments.runner.manifest import git_commit, mark, new_manifest, now, package_versions
from experiments.runner.plan import (
    COMPILED_CHUNK_HANDS,
    PYTHON_CHUNK_HANDS,
    TARGET_CHUNKS,
    Chunk,
    TablePlan,
    check_size,
    make_chunks,
    table_plans,
)
from experiments.runner.schema import SCHEMA_VERSION, run_categories
from experiments.runner.storage import RunFolder, is_url
from experiments.runner.verify import Record, finished_chunks, remove_unfinished
from experiments.runner.workers import DaskWorkers, LocalWorkers, Outcome, WorkersLost, exit_guard, workers_for
from sim.contract import extra_tables

__all__ = ["CodeChanged", "DaskWorkers", "LocalWorkers", "RunInterrupted", "RunPlan", "RunStopped", "check_code",
           "execute", "plan_run", "run_experiment", "workers_for"]


SCALED_TOTAL = 100_000  # a progress bar counts in k or M from this many rows


def scaled_counts(total: int) -> bool:
    """Whether a progress bar over ``total`` rows counts with k/M prefixes: only for large totals, since tqdm's
    prefixes turn small whole counts into ``8.00/24.0``."""
    return total >= SCALED_TOTAL


class RunStopped(RuntimeError):
    """An agent failed or workers were lost: the run stopped, finished chunks are kept, ``--resume`` ends it.
    ``trace`` is the failing agent's whole traceback, when an agent stopped it."""

    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.trace = trace


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped the run: its message says the finished chunks are kept and how to resume."""


class CodeChanged(ConfigError):
    """A resume would play the remaining chunks with other code than the finished ones; one line, exit code 2."""


@dataclass
class RunPlan:
    """A config cut into chunks, with the tasks a worker needs."""

    config: RunConfig
    chunk_hands: int
    chunks: list[Chunk]
    tasks: list[ChunkTask]
    hands_total: int
    tables: list[TablePlan] = field(default_factory=list)  # each table's seatings, size and route
    engine_speed: bool = False  # every table's route is the engine's own policies (routes.ENGINE)
    manifest: dict[str, Any] = field(default_factory=dict)
    code: dict[str, Any] = field(default_factory=dict)  # the code that plays it now (fingerprint.run_code)


def plan_run(config: RunConfig, chunk_hands: int | None = None) -> RunPlan:
    """Cut the config into chunks; ``chunk_hands`` overrides the config's or the default size."""
    plans = table_plans(config)
    hands_total = sum(p.hands for p in plans)
    engine_speed = all(plan.route == routes.ENGINE for plan in plans)
    size = chunk_hands or config.chunk_hands or default_chunk_hands(hands_total, engine_speed)
    check_size(plans, size)
    chunks = make_chunks(plans, size)
    plans = cold_routes(config, plans)  # after the chunks, which the routes the tables would take size
    run_id = config.run_id()
    categories = run_categories(run_id, [spec for t in config.tables for spec in t.agents], config.adapter,
                                config.continuation is not None)
    width = max(t.seats for t in config.tables)
    tasks = [ChunkTask(run_id, c, plans[c.table], config.seed, config.log_actions, width, categories,
                       config.game, config.options, config.decision_timeout,
                       config.out if config.out and _workers_write(config) else None,
                       config.continuation).with_adapter(config.adapter)
             for c in chunks]
    code = fingerprint.run_code([spec for t in config.tables for spec in t.agents], config.game)
    plan = RunPlan(config, size, chunks, tasks, hands_total, plans, engine_speed, code=code)
    plan.manifest = new_manifest(config, plans, chunks, size, code)
    return plan


def _workers_write(config: RunConfig) -> bool:
    """Whether the workers write their chunks' shards themselves, returning only row counts and digests: to a URL
    every worker can reach, and to a local folder from local worker processes (under temporary names this
    process puts in place as it journals them), so no worker waits on one writer; a Dask cluster's workers may
    not see a local folder, and one worker plays in this process."""
    return is_url(config.out) or (not config.scheduler and LocalWorkers(config.workers).workers > 1)


def default_chunk_hands(hands_total: int, engine_speed: bool) -> int:
    """About ``TARGET_CHUNKS`` chunks, capped by how fast the lineups play (``engine_speed``: on the engine's own
    policies)."""
    cap = COMPILED_CHUNK_HANDS if engine_speed else PYTHON_CHUNK_HANDS
    return min(cap, max(1, -(-hands_total // TARGET_CHUNKS)))


def execute(plan: RunPlan, out: RunFolder | str | Path, workers: LocalWorkers | DaskWorkers, progress: bool = True,
            resumed: bool = False, compile_first: bool = False, notebook: bool = False,
            stop: Callable[[Collection[int]], bool] | None = None, accept_changes: bool = False,
            announce: str | None = None, only: Collection[int] | None = None) -> dict[str, Any]:
    """Play every chunk not yet finished, writing shards and journal lines as they finish, under the folder's lock.

    ``compile_first``: the cache lacks compiled code the run needs (``compiling.code_to_compile``), so local
    workers wait for this process to compile it. ``progress`` shows a bar on a terminal; with ``notebook`` it is
    ``tqdm.auto``'s (a widget in Jupyter), shown whatever the output is. ``stop`` ends a run early (a sequential
    test that has decided, ``knorri-sim duel``): it is called with the ids of the finished chunks once they are
    checked and again after each chunk is written, and when it returns True no other chunk is started, chunks
    still playing are abandoned, and the manifest's status is ``stopped``. Returns the final manifest. Raises
    ``RunStopped`` when an agent fails or workers are lost (every chunk
    finished by then is written), ``RunInterrupted`` on Ctrl-C (likewise), ``RunFolderBusy`` when another
    process writes the folder, ``ConfigError`` when the manifest disagrees with the shards, and
    ``CodeChanged`` when a resume would mix chunks of other code (``check_code``) unless ``accept_changes``,
    which goes on and records the change in the manifest's ``code_changes``. ``announce`` is a line for stderr
    once the folder is taken and its manifest written, before any chunk plays (so bad input stays one line).
    ``only``: play none but these chunks (``knorri-sim verify --repair``: the damaged ones); the run is complete
    when every chunk is finished, and otherwise keeps the status it had.
    """
    folder = out if isinstance(out, RunFolder) else RunFolder(out)
    if resumed:
        check_schema_version(plan.manifest, folder)
    with folder.lock():
        return _execute(plan, folder, workers, progress, resumed, compile_first, notebook, stop, accept_changes,
                        announce, only)


def check_schema_version(manifest: dict[str, Any], folder: RunFolder) -> None:
    """Refuse, in one line, to add shards of this schema to a run written with another (its shards would not mix)."""
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ConfigError(f"{str(folder)!r} was written with schema version {version} and this knorri-sim writes "
                          f"version {SCHEMA_VERSION}, so it cannot be resumed: play it again in a new folder")


def check_code(plan: RunPlan, manifest: dict[str, Any], finished: set[int] | dict[int, Any], accept_changes: bool,
               out: RunFolder) -> list[str]:
    """What changed in the code (``fingerprint.changes``) since the ``finished`` chunks were made, when a resume
    would play others beside them; empty when nothing would be mixed. A change raises ``CodeChanged`` naming it,
    unless ``accept_changes``."""
    if not finished or all(chunk.id in finished for chunk in plan.chunks):
        return []
    changed = fingerprint.changes(manifest.get("code"), plan.code)
    if changed and not accept_changes:
        raise CodeChanged(f"--resume {str(out)!r}: the code that plays this run changed since its {len(finished)} "
                          f"finished chunks were made: {'; '.join(changed)}. Resuming would mix rows of both in one "
                          f"run: start a new run, or go on with knorri-sim run --resume {out} --accept-changes "
                          "(the change is recorded in the manifest)")
    return changed


def run_tables(config: RunConfig) -> list[str]:
    """The folders a run writes a shard in for every chunk: hands, the game's extra tables, actions if logged."""
    extras = list(extra_tables(config.adapter))
    return [storage.HANDS_DIR, *extras, *([storage.ACTIONS_DIR] if config.log_actions else [])]


def _execute(plan: RunPlan, out: RunFolder, workers: LocalWorkers | DaskWorkers, progress: bool,
             resumed: bool, compile_first: bool, notebook: bool,
             stop: Callable[[Collection[int]], bool] | None = None, accept_changes: bool = False,
             announce: str | None = None, only: Collection[int] | None = None) -> dict[str, Any]:
    cpu0 = time.process_time()
    manifest = plan.manifest
    status_before = manifest.get("status")
    try:  # a folder it cannot change (read-only, immutable) is one line, before any chunk plays
        out.remove_temporary_files()
        finished = finished_chunks(out, manifest, plan.chunks, run_tables(plan.config))
        wanted = [task for task in plan.tasks if only is None or task.chunk.id in only]
        todo = [task for task in wanted if task.chunk.id not in finished]
        if resumed:
            changed = check_code(plan, manifest, finished, accept_changes, out) if todo else []
            if changed:
                manifest.setdefault("code_changes", []).append(
                    {"time": now(), "changes": changed, "chunks_made_before": chunk_ranges(finished),
                     "code_before": manifest.get("code")})
            manifest.setdefault("resumes", []).append(
                {"time": now(), "versions": package_versions(), "git": git_commit()})
        remove_unfinished(out, plan.chunks, finished, run_tables(plan.config))  # once the code check let it go on
        if todo:
            manifest["code"] = plan.code  # what makes the chunks still to play
        manifest["chunks_complete"], manifest["chunk_rows"], manifest["chunk_seconds"] = [], {}, {}
        manifest["chunk_sha256"] = {}
        _fold(out, manifest, finished, status="running", error=None)
    except OSError as error:
        raise unwritable(out.location, error) from None
    if announce:
        print(announce, file=sys.stderr, flush=True)
    stopped = stop is not None and stop(sorted(finished))
    todo = [] if stopped else todo
    hands_done = sum(plan.chunks[c].hands for c in finished)
    unit = plan.config.adapter.ROW
    bar_type, show = (auto_tqdm, progress) if notebook else (tqdm, None if progress else False)
    bar = bar_type(total=plan.hands_total, initial=hands_done, unit=unit, unit_scale=scaled_counts(plan.hands_total),
                   smoothing=0.05, disable=not show if show is not None else None, dynamic_ncols=True)
    journal = out.journal()
    run_id = plan.config.run_id()
    new: dict[int, Record] = {}
    failure: ChunkFailed | None = None
    outcomes = _run(workers, todo, compile_first)
    try:
        with exit_guard(lambda: f"an agent ended the process itself while a chunk played in it; the "
                                f"{len(finished) + len(new)} finished chunks are kept (no data lost): run knorri-sim "
                                f"run --resume {out}"):  # one worker: agents play in this process
            for outcome in outcomes:
                if isinstance(outcome, ChunkFailed):
                    failure = failure or outcome
                    continue
                written = outcome.written or out.write_chunk(outcome.chunk_id, outcome.hands, outcome.actions,
                                                             outcome.extras, run_id)
                out.put_in_place(outcome.chunk_id, written)
                seconds = [round(t, 4) for t in (outcome.engine_seconds, outcome.seconds, outcome.engine_cpu,
                                                 outcome.cpu)]
                record = {"rows": written["rows"], "sha256": written["sha256"], "seconds": seconds}
                journal.append(outcome.chunk_id, {"run_id": run_id, **record})
                new[outcome.chunk_id] = record
                bar.update(written["rows"][storage.HANDS_DIR])
                if stop is not None and failure is None and stop(sorted(set(finished) | set(new))):
                    stopped = True
                    break
    except WorkersLost as error:
        _fold(out, manifest, new, status="failed", error=str(error))
        raise RunStopped(_stopped(str(error), manifest, out)) from None
    except OSError as error:  # the run folder cannot be written (disk full, a store gone)
        reason = f"cannot write the run folder {out}: {error.strerror or ' '.join(str(error).split())}"
        with contextlib.suppress(OSError):
            _fold(out, manifest, new, status="failed", error=reason)
        raise RunStopped(_stopped(reason, manifest, out)) from None
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):
            _fold(out, manifest, new, status="interrupted", error="interrupted (Ctrl-C)")
        raise RunInterrupted(_stopped("interrupted", manifest, out)) from None
    except BaseException:
        _fold(out, manifest, new, status="interrupted")
        raise
    finally:
        if isinstance(outcomes, Generator):
            outcomes.close()  # a stopped run abandons the chunks still playing (their workers end)
        bar.close()
        journal.close()
    if failure is not None:
        _fold(out, manifest, new, status="failed", error=failure.message)
        raise RunStopped(_stopped(failure.message, manifest, out), failure.trace)
    manifest["writer_cpu_seconds"] = round(manifest.get("writer_cpu_seconds", 0) + time.process_time() - cpu0, 3)
    every = len(set(finished) | set(new)) == len(plan.chunks)
    _fold(out, manifest, new, status="stopped" if stopped else "complete" if every else status_before)
    return manifest


def _fold(out: RunFolder, manifest: dict[str, Any], records: dict[int, Record], **changes: Any) -> None:
    """Add finished chunks' rows and times to the manifest, write it, and empty the journal it now holds."""
    for chunk_id, record in records.items():
        manifest["chunk_rows"][str(chunk_id)] = record["rows"]
        if record.get("sha256") is not None:
            manifest["chunk_sha256"][str(chunk_id)] = record["sha256"]
        if record.get("seconds") is not None:
            manifest["chunk_seconds"][str(chunk_id)] = record["seconds"]
    manifest["chunks_complete"] = sorted(set(manifest["chunks_complete"]) | set(records))
    out.write_manifest(mark(manifest, **changes))
    out.clear_journal()


def chunk_ranges(chunks: Iterable[int]) -> list[list[int]]:
    """Chunk ids as ``[first, last]`` runs of consecutive ids: a short record of which chunks came before."""
    ranges: list[list[int]] = []
    for chunk in sorted(chunks):
        if ranges and chunk == ranges[-1][1] + 1:
            ranges[-1][1] = chunk
        else:
            ranges.append([chunk, chunk])
    return ranges


def _stopped(reason: str, manifest: dict[str, Any], out: RunFolder) -> str:
    done = len(manifest["chunks_complete"])
    return (f"{reason}; the {done} finished chunks are kept (no data lost): run knorri-sim run --resume {out}")


def _run(workers: LocalWorkers | DaskWorkers, tasks: list[ChunkTask], compile_first: bool) -> Iterable[Outcome]:
    if not tasks:
        return []
    return workers.results(tasks, compile_first, plays_small(tasks))


def plays_small(tasks: list[ChunkTask]) -> bool:
    """Whether these chunks are a small run of built-in code, which plays in this process first: seconds of play,
    as long as starting workers takes (``LocalWorkers.results``)."""
    return (sum(task.chunk.hands for task in tasks) < MIN_SAMPLED_ROWS
            and all(routes.built_in_only(task.adapter, task.table.route, task.table.seatings) for task in tasks))


def run_experiment(config: RunConfig, out: str | Path, progress: bool = False) -> dict[str, Any]:
    """Plan and run ``config`` into ``out`` from Python (a notebook, a test); returns the final manifest.

    With ``progress`` a bar shows how far it is (a widget in Jupyter: ``tqdm.auto``).
    """
    config = config.replaced(out=str(out))
    plan = plan_run(config)
    with workers_for(config) as workers:
        return execute(plan, RunFolder(out), workers, progress=progress,
                       compile_first=bool(code_to_compile(config, plan.tables)), notebook=progress)
