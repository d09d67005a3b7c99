"""Where chunks are played: this process, a pool of local processes (loky), or an existing Dask cluster.

Each backend hands back chunk outcomes as they finish (a ``ChunkResult``, or a
``ChunkFailed`` when an agent stopped a chunk). Only a window of a few chunks per
worker is submitted at a time, so that after a failure the chunks already in
flight are still collected (and written) while no new one starts, and a client
that goes away leaves little queued on a cluster. A worker process that dies, or
a cluster that loses a worker or its scheduler, raises ``WorkersLost``: the run
stops with the finished chunks kept.

Local worker processes end when the process that started them dies (a killed
``knorri-sim run`` leaves none behind): the kernel sends them SIGKILL
(``PR_SET_PDEATHSIG`` on Linux) and a thread in each checks its parent too. They
leave Ctrl-C to the run, which stops them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from experiments.allocator import keep_freed_memory
from experiments.runner import routes
from experiments.runner.chunk import ChunkFailed, ChunkResult, ChunkTask, play_chunk
from experiments.runner.config import ConfigError

Outcome = ChunkResult | ChunkFailed
WINDOW_PER_WORKER = 2  # chunks in flight per worker: one running, one queued behind it
POOL_DELAY_SECONDS = 0.5  # a small run's own playing before it starts workers
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


class WorkersLost(RuntimeError):
    """A worker process died, or the cluster lost a worker or its scheduler; finished chunks are kept."""


def start_worker(parent_pid: int) -> None:
    """Run in each local worker as it starts: the allocator kept as ``knorri-sim``'s own (``experiments.allocator``),
    and the worker bound to end with ``parent_pid``."""
    keep_freed_memory()
    end_with_parent(parent_pid)


def end_with_parent(parent_pid: int) -> None:
    """End this process as soon as ``parent_pid`` is gone.

    A worker ignores SIGINT: Ctrl-C reaches the terminal's whole process group, and the run, which
    stops its workers, is the one to answer it (with one line, not a traceback from every worker).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="knorri-parent-watch", daemon=True).start()


@contextlib.contextmanager
def exit_guard(message: Callable[[], str]) -> Iterator[None]:
    """While the block runs, an ``os._exit`` (an agent playing in this process, with one worker, ending it) first
    prints ``message()`` as the one error line and ends with exit code 1: never a silent exit with the agent's
    code. A worker process that ends is the pool's news (``WorkersLost``)."""
    real_exit = os._exit

    def named_exit(code: int) -> None:
        os._exit = real_exit
        with contextlib.suppress(Exception):
            sys.stderr.write(f"knorri-sim: error: {message()} (it called os._exit({code}))\n")
            sys.stderr.flush()
        real_exit(1)

    os._exit = named_exit
    try:
        yield
    finally:
        os._exit = real_exit


def worker_started() -> bool:
    """A pool's first task for each worker: it returns once the worker process runs, its imports made."""
    return True


def windowed(tasks: Iterable[ChunkTask], submit: Callable[[ChunkTask], Any],
             wait_first: Callable[[set], tuple[set, set]], window: int) -> Iterator[Outcome]:
    """Keep ``window`` chunks in flight and yield their outcomes as they finish; submit none after a failure.

    Of the futures found finished together, the good ones are yielded before one whose worker died raises.
    """
    queue = iter(tasks)
    pending: set = set()
    stopping = False
    while True:
        while not stopping and len(pending) < window:
            task = next(queue, None)
            if task is None:
                break
            pending.add(submit(task))
        if not pending:
            return
        done, pending = wait_first(pending)
        for future in sorted(done, key=_raised):
            outcome = future.result()
            stopping = stopping or isinstance(outcome, ChunkFailed)
            yield outcome


class LocalWorkers:
    """Chunks on this machine: in this process for one worker, else a pool of worker processes."""

    def __init__(self, workers: int | None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._early: tuple[Any, list] | None = None  # a pool started before ``results`` (``start_early``): the
        # executor and its workers' first tasks

    def __enter__(self) -> LocalWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._early is not None:  # started, but the run stopped before it handed over a chunk
            executor = self._early[0]
            self._early = None
            stop_pool(executor, finished=False)

    def start_early(self, tasks: list[ChunkTask], compile_first: bool, small: bool) -> None:
        """Start the pool ``results`` would start at once for these tasks, so that its workers import and load
        their compiled code while this process still prepares the run (its estimate); no pool for a run that
        plays here first."""
        if self.workers > 1 and len(tasks) > 1 and not compile_first and not small and self._early is None:
            self._early = self._start_pool(min(self.workers, len(tasks)))

    @staticmethod
    def _start_pool(count: int) -> tuple[Any, list]:
        """A pool of ``count`` worker processes, and the first task of each (it says when its worker has started)."""
        from joblib.externals.loky.process_executor import ProcessPoolExecutor

        executor = ProcessPoolExecutor(max_workers=count, initializer=start_worker, initargs=(os.getpid(),))
        return executor, [executor.submit(worker_started) for _ in range(count)]

    def results(self, tasks: list[ChunkTask], compile_first: bool = False, small: bool = False) -> Iterator[Outcome]:
        """Each chunk's outcome, in the order they finish.

        With ``compile_first`` (the cache lacks code the chunks run) this process plays the first chunk, compiling
        that code once into the cache while the workers start; meanwhile the workers compile the parts of it that
        compile on their own (``compile_parts``), which this process then loads rather than compiles. A ``small``
        run of built-in code plays here too, and hands its chunks to workers only once it has played here for
        ``POOL_DELAY_SECONDS`` (its compile aside) and a worker has started: most are over by then, and starting a
        pool would cost more than they take (docs/speed.md, "A run end to end"). A user's agent plays in the
        workers, where a crash or a hang stops only its worker.
        """
        if self.workers == 1 or len(tasks) <= 1:
            for task in tasks:
                outcome = play_chunk(task)
                yield outcome
                if isinstance(outcome, ChunkFailed):
                    return
            return
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        from joblib.externals.loky.process_executor import TerminatedWorkerError

        count = min(self.workers, len(tasks))
        executor: Any = None
        started: list = []
        if self._early is not None:  # sized for the chunks the run meant to play, which a resume may correct
            executor, started = self._early
            self._early = None
        finished = False
        began = time.perf_counter()
        try:
            played = 0
            while (compile_first or small) and played < len(tasks):
                waited = time.perf_counter() - began > POOL_DELAY_SECONDS
                if executor is None and (compile_first or waited):
                    executor, started = self._start_pool(count)
                    for part in compile_parts(tasks) if compile_first else ():
                        executor.submit(part)  # it only saves time: one that fails leaves its compile to the chunk
                if played > 0 and (not small or (waited and any(future.done() for future in started))):
                    break
                outcome = play_chunk(tasks[played])
                played += 1
                if compile_first and played == 1:
                    began = time.perf_counter()  # the compile is no part of a small run's own playing
                yield outcome
                if isinstance(outcome, ChunkFailed):
                    return
            tasks = tasks[played:]
            if not tasks:
                return
            executor = executor or self._start_pool(count)[0]
            yield from windowed(tasks, lambda task: executor.submit(play_chunk, task),
                                lambda pending: wait(pending, return_when=FIRST_COMPLETED),
                                WINDOW_PER_WORKER * self.workers)
            finished = True
        except (TerminatedWorkerError, BrokenProcessPool) as error:
            raise WorkersLost(f"a worker process died ({_first_line(error)})") from None
        finally:
            if executor is not None:
                stop_pool(executor, finished)


def compile_parts(tasks: list[ChunkTask]) -> list[Callable[[], object]]:
    """The parts of the tasks' compiled code that compile on their own (``routes.compile_parts``), each once, the
    biggest of each table's first."""
    tables = {task.table.index: task for task in tasks}
    parts: dict[Callable[[], object], None] = {}
    for task in tables.values():
        specs = list(dict.fromkeys(spec for seating in task.table.seatings for spec in seating))
        parts.update(dict.fromkeys(routes.compile_parts(task.game, task.table.route, specs)))
    return list(parts)


def stop_pool(executor: Any, finished: bool) -> None:
    """Shut a pool down: waiting for its workers once every chunk is played, else killing them, with the manager
    thread's last words kept off the terminal (workers that played nothing are stopped, not waited for)."""
    if not finished:
        silence_manager_thread(executor)
    executor.shutdown(wait=finished, kill_workers=not finished)


def silence_manager_thread(executor: Any) -> None:
    """Keep an abandoned pool's last words off the terminal.

    When a run stops early (Ctrl-C, a failed chunk) the pool is killed with work still queued, and loky's manager
    thread can then trip over a queue entry the kill removed (a ``KeyError``). The run has already said what it kept,
    so that thread's exception is not news; every other thread's still reaches the previous hook.
    """
    manager = getattr(executor, "_executor_manager_thread", None)
    if manager is None:
        return
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.thread is not manager:
            previous(args)

    threading.excepthook = hook


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

    def start_early(self, tasks: list[ChunkTask], compile_first: bool, small: bool) -> None:
        """Nothing: the cluster's workers are already running."""

    def results(self, tasks: list[ChunkTask], compile_first: bool = False, small: bool = False) -> Iterator[Outcome]:
        """Each chunk's outcome, in the order they finish; chunks still queued are cancelled if this stops.

        ``compile_first`` and ``small`` are ignored: the cluster's workers compile into their own machines' caches.
        """
        from distributed import wait
        from distributed.scheduler import KilledWorker

        submitted: list = []

        def submit(task: ChunkTask) -> Any:
            future = self.client.submit(play_chunk, task, pure=False,
                                        key=f"knorri-chunk-{task.run_id}-{task.chunk.id}-{time.time_ns()}")
            submitted.append(future)
            return future

        def wait_first(pending: set) -> tuple[set, set]:
            done, not_done = wait(list(pending), return_when="FIRST_COMPLETED")
            return set(done), set(not_done)

        threads = max(1, sum(self.client.nthreads().values()))
        try:
            yield from windowed(tasks, submit, wait_first, WINDOW_PER_WORKER * threads)
        except KilledWorker:
            raise WorkersLost("the Dask cluster lost the workers playing a chunk (KilledWorker)") from None
        except _scheduler_lost_errors() as error:
            raise WorkersLost(f"lost the Dask scheduler at {self.address} ({type(error).__name__})") from None
        finally:
            try:
                self.client.cancel([f for f in submitted if not f.done()])
            except Exception:  # noqa: BLE001 - a client whose scheduler is gone cannot cancel; its tasks are released
                pass


def workers_for(config: Any) -> LocalWorkers | DaskWorkers:
    """Dask when the config names a scheduler, local processes otherwise."""
    return DaskWorkers(config.scheduler) if config.scheduler else LocalWorkers(config.workers)


def _scheduler_lost_errors() -> tuple[type[BaseException], ...]:
    """What a client raises when its scheduler is gone: its futures cancelled, its comms closed or timed out."""
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError

    return (CancelledError, CommClosedError, OSError, TimeoutError)


def _raised(future: Any) -> bool:
    """Whether a finished future holds an error (or was cancelled) rather than an outcome."""
    try:
        return future.exception() is not None
    except BaseException:  # noqa: BLE001 - a cancelled future raises here
        return True


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__
