"""Compiling a command's kernel parts in other processes while the command compiles the kernels that call them.

``run`` hands its workers the parts (``routes.compile_parts``) as its pool starts; a command that plays in its own
process (``play``) has no pool, so ``parts_compiled_beside`` starts one only once the process begins to compile.
It imports nothing heavy until then, so a warm command pays nothing for it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any


@contextlib.contextmanager
def parts_compiled_beside(parts: Sequence[Callable[[], object]],
                          workers: int | None = None) -> Iterator[threading.Event]:
    """While the block runs in this process, compile ``parts`` (``routes.compile_parts``) in up to ``workers`` local
    processes (default: one a core; none on one core, which this process keeps busy), from the moment this process
    first compiles: the cache lacks code, and what this process compiles next calls the parts' kernels, so it loads
    them rather than compiling them too. A warm cache compiles nothing and starts no process. Workers still busy
    when the block ends are stopped: a part only saves time, and numba writes its cache files whole or not at all.
    The event it yields is set once the workers have started."""
    started = threading.Event()
    cores = os.cpu_count() or 1
    if not parts or (workers is None and cores < 2):
        yield started
        return
    from numba.core import event

    executor: Any = None
    lock = threading.Lock()
    closed = asked = False

    def start() -> None:
        nonlocal executor
        from joblib.externals.loky.process_executor import ProcessPoolExecutor

        from experiments.runner.workers import end_with_parent

        with lock:
            if closed:
                return
            count = min(len(parts), workers or cores)
            executor = ProcessPoolExecutor(max_workers=count, initializer=end_with_parent, initargs=(os.getpid(),))
            for part in parts:
                executor.submit(part)
            started.set()

    class FirstCompile(event.Listener):
        def on_start(self, data: object) -> None:
            nonlocal asked
            if not asked:  # started from a thread: numba holds its compiler lock here
                asked = True
                threading.Thread(target=start, name="knorri-compile-parts", daemon=True).start()

        def on_end(self, data: object) -> None:
            return None

    listener = FirstCompile()
    event.register("numba:compile", listener)
    try:
        yield started
    finally:
        event.unregister("numba:compile", listener)
        with lock:
            closed = True
            if executor is not None:
                from experiments.runner.workers import stop_pool

                stop_pool(executor, finished=False)
