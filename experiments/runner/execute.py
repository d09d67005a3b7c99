"""Running a planned experiment: schedule the missing chunks, write each as it finishes, keep the manifest.

Chunks run on local processes (joblib) or on an existing Dask cluster; either
way a worker returns Arrow tables and this process writes them, so a remote
cluster needs no shared file system. The manifest is rewritten after every
chunk; the shards on disk are the truth when a run is resumed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm
from tqdm.auto import tqdm as auto_tqdm

from experiments.runner import storage
from experiments.runner.chunk import ChunkResult, ChunkTask, run_chunk
from experiments.runner.compiling import code_to_compile
from experiments.runner.config import ConfigError, RunConfig
from experiments.runner.manifest import git_commit, mark, new_manifest, package_versions
from experiments.runner.plan import (
    COMPILED_CHUNK_HANDS,
    PYTHON_CHUNK_HANDS,
    TARGET_CHUNKS,
    Chunk,
    make_chunks,
    table_plans,
)
from experiments.runner.schema import run_categories
from sim import games
from sim.games import AgentFailure

SCALED_TOTAL = 100_000  # a progress bar counts in k or M from this many rows


def scaled_counts(total: int) -> bool:
    """Whether a progress bar over ``total`` rows counts with k/M prefixes: only for large totals, since tqdm's
    prefixes turn small whole counts into ``8.00/24.0``."""
    return total >= SCALED_TOTAL


class RunStopped(RuntimeError):
    """An agent failed: the run stopped, completed shards are kept and ``--resume`` finishes it."""


@dataclass
class RunPlan:
    """A config cut into chunks, with the tasks a worker needs."""

    config: RunConfig
    chunk_hands: int
    chunks: list[Chunk]
    tasks: list[ChunkTask]
    hands_total: int
    manifest: dict[str, Any] = field(default_factory=dict)


def plan_run(config: RunConfig, chunk_hands: int | None = None) -> RunPlan:
    """Cut the config into chunks; ``chunk_hands`` overrides the config's or the default size."""
    plans = table_plans(config)
    hands_total = sum(p.hands for p in plans)
    is_compiled = games.adapter(config.game).is_compiled
    compiled = all(is_compiled(seating) for plan in plans for seating in plan.seatings)
    size = chunk_hands or config.chunk_hands or default_chunk_hands(hands_total, compiled)
    chunks = make_chunks(plans, size)
    run_id = config.run_id()
    categories = run_categories(run_id, [spec for t in config.tables for spec in t.agents], config.game)
    width = max(t.seats for t in config.tables)
    tasks = [ChunkTask(run_id, c, plans[c.table], config.seed, config.log_actions, width, categories,
                       config.game, config.options) for c in chunks]
    plan = RunPlan(config, size, chunks, tasks, hands_total)
    plan.manifest = new_manifest(config, plans, chunks, size)
    return plan


def default_chunk_hands(hands_total: int, compiled: bool) -> int:
    """About ``TARGET_CHUNKS`` chunks, capped by how fast the lineups play."""
    cap = COMPILED_CHUNK_HANDS if compiled else PYTHON_CHUNK_HANDS
    return min(cap, max(1, -(-hands_total // TARGET_CHUNKS)))


class LocalWorkers:
    """Chunks on this machine: in this process for one worker, else joblib's process pool."""

    def __init__(self, workers: int | None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def __enter__(self) -> LocalWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def results(self, tasks: list[ChunkTask], compile_first: bool = False) -> Iterator[ChunkResult]:
        """Each chunk's result, in the order they finish.

        With ``compile_first`` (the cache lacks code the chunks run) the first chunk is played here, compiling
        that code once into the cache, before the workers start and load it.
        """
        if self.workers == 1 or len(tasks) <= 1:
            yield from (run_chunk(task) for task in tasks)
            return
        if compile_first:
            yield run_chunk(tasks[0])
            tasks = tasks[1:]
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=self.workers, return_as="generator_unordered", backend="loky")
        yield from parallel(delayed(run_chunk)(task) for task in tasks)


class DaskWorkers:
    """Chunks on an existing Dask distributed cluster."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.client: Any = None

    def __enter__(self) -> DaskWorkers:
        from distributed import Client

        try:
            self.client = Client(self.address, timeout="5s")
        except (OSError, TimeoutError, ValueError) as error:
            reason = " ".join(str(error).split()) or type(error).__name__
            raise ConfigError(f"cannot reach the Dask scheduler at {self.address!r}: {reason}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()

    def results(self, tasks: list[ChunkTask], compile_first: bool = False) -> Iterator[ChunkResult]:
        """Each chunk's result, in the order they finish; pending chunks are cancelled on failure.

        ``compile_first`` is ignored: the cluster's workers compile into their own machines' caches.
        """
        from distributed import as_completed

        futures = [self.client.submit(run_chunk, task, pure=False, key=f"knorri-chunk-{task.run_id}-"
                                      f"{task.chunk.id}-{time.time_ns()}") for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            self.client.cancel([f for f in futures if not f.done()])


def workers_for(config: RunConfig) -> LocalWorkers | DaskWorkers:
    """Dask when the config names a scheduler, local processes otherwise."""
    return DaskWorkers(config.scheduler) if config.scheduler else LocalWorkers(config.workers)


def execute(plan: RunPlan, out: Path, workers: LocalWorkers | DaskWorkers, progress: bool = True,
            resumed: bool = False, compile_first: bool = False, notebook: bool = False) -> dict[str, Any]:
    """Play every chunk not yet on disk, writing shards and the manifest as they finish.

    ``compile_first``: the cache lacks compiled code the run needs (``compiling.code_to_compile``), so local
    workers wait for this process to compile it. ``progress`` shows a bar on a terminal; with ``notebook`` it is
    ``tqdm.auto``'s (a widget in Jupyter), shown whatever the output is. Returns the final manifest. Raises
    ``RunStopped`` when an agent fails.
    """
    cpu0 = time.process_time()
    manifest = plan.manifest
    expected = {c.id: c.hands for c in plan.chunks}
    storage.remove_temporary_files(out)
    done = storage.complete_chunks(out, expected)
    if resumed:
        manifest.setdefault("resumes", []).append(
            {"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": package_versions(), "git": git_commit()})
    storage.write_manifest(out, mark(manifest, chunks_complete=sorted(done), status="running", error=None))
    todo = [task for task in plan.tasks if task.chunk.id not in done]
    hands_done = sum(expected[c] for c in done)
    unit = games.adapter(plan.config.game).ROW
    bar_type, show = (auto_tqdm, progress) if notebook else (tqdm, None if progress else False)
    bar = bar_type(total=plan.hands_total, initial=hands_done, unit=unit, unit_scale=scaled_counts(plan.hands_total),
                   smoothing=0.05, disable=not show if show is not None else None, dynamic_ncols=True)
    try:
        for result in _run(workers, todo, compile_first):
            storage.write_chunk(out, result.chunk_id, result.hands, result.actions, result.extras)
            done.add(result.chunk_id)
            manifest["chunk_seconds"][str(result.chunk_id)] = [
                round(t, 4) for t in (result.engine_seconds, result.seconds, result.engine_cpu, result.cpu)]
            storage.write_manifest(out, mark(manifest, chunks_complete=sorted(done)))
            bar.update(result.hands.num_rows)
    except AgentFailure as error:
        message = f"{error}; the {len(done)} completed chunks are kept: run knorri-sim run --resume {out}"
        storage.write_manifest(out, mark(manifest, status="failed", error=str(error)))
        raise RunStopped(message) from None
    except BaseException:
        storage.write_manifest(out, mark(manifest, status="interrupted"))
        raise
    finally:
        bar.close()
    manifest["writer_cpu_seconds"] = round(manifest.get("writer_cpu_seconds", 0) + time.process_time() - cpu0, 3)
    storage.write_manifest(out, mark(manifest, status="complete"))
    return manifest


def _run(workers: LocalWorkers | DaskWorkers, tasks: list[ChunkTask], compile_first: bool) -> Iterable[ChunkResult]:
    if not tasks:
        return []
    return workers.results(tasks, compile_first)


def run_experiment(config: RunConfig, out: str | Path, progress: bool = False) -> dict[str, Any]:
    """Plan and run ``config`` into ``out`` from Python (a notebook, a test); returns the final manifest.

    With ``progress`` a bar shows how far it is (a widget in Jupyter: ``tqdm.auto``).
    """
    plan = plan_run(config)
    with workers_for(config) as workers:
        return execute(plan, Path(out), workers, progress=progress, compile_first=bool(code_to_compile(config)),
                       notebook=progress)
