"""A time limit on each decision of a Python agent, so a hung agent ends the run instead of stalling it.

``limit_decisions(seconds)`` arms the limit for the code it wraps (a chunk being played);
``decision()`` wraps one call into an agent. A watchdog thread (one per process) wakes when a
decision overruns and interrupts the thread taking it with ``DecisionTimeout``:

- in the main thread (the command's own process, a joblib worker) by a signal, which also
  breaks a blocking call such as ``time.sleep`` or a lock wait;
- in any other thread (a Dask worker's task thread) by an asynchronous exception, which
  stops Python code at its next bytecode (a call blocked inside C code ends when it returns).

``DecisionTimeout`` derives from ``BaseException`` so an agent's ``except Exception`` cannot
swallow it. Time numba spends on the agent's kernels (waiting for its lock, loading, compiling) is
off the clock: the first decision after an install may compile for longer than any limit, and an
interrupt inside numba's compiler would leave the kernel broken for the rest of the process.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

_SIGNAL = signal.SIGALRM
STUCK_GRACE_SECONDS = 5.0  # how long an interrupted decision may take to end before ``stuck`` is called


class DecisionTimeout(BaseException):
    """A decision took longer than the limit; raised inside the agent's call."""


class _Watchdog:
    """The process's one watchdog: a thread that interrupts decisions past their deadline."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.deadlines: dict[int, tuple[float, int]] = {}  # thread id -> (deadline, decision token)
        self.stuck: dict[int, Callable[[], None]] = {}  # thread id -> what to do if an interrupt does not end it
        self.escalating: set[int] = set()  # threads interrupted whose deadline is now their grace's end
        self.fired: dict[int, int] = {}  # thread id -> token of the decision interrupted
        self.signalled: set[int] = set()  # threads interrupted by signal (the main thread)
        self.thread: threading.Thread | None = None
        self.token = 0
        self.next_wake = math.inf  # when the watchdog next looks; a sooner deadline wakes it early

    def pause(self, thread_id: int) -> float | None:
        """Take the thread's running decision off the clock; the seconds it had left, or None if none runs."""
        with self.lock:
            if thread_id in self.fired or thread_id not in self.deadlines:  # no decision, or one interrupted already
                return None
            deadline, _ = self.deadlines.pop(thread_id)
            return deadline - time.monotonic()

    def resume(self, thread_id: int, token: int, seconds_left: float) -> None:
        """Put decision ``token`` back on the clock with ``seconds_left``, if the thread is still taking it."""
        with self.lock:
            if getattr(_LIMIT, "token", None) != token:
                return
            deadline = time.monotonic() + seconds_left
            self.deadlines[thread_id] = (deadline, token)
            if deadline < self.next_wake:
                self.next_wake = deadline
                self.wake.notify()

    def start(self) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._watch, name="knorri-decision-watchdog", daemon=True)
                self.thread.start()

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for thread_id, (deadline, token) in list(self.deadlines.items()):
                    if deadline > now:
                        continue
                    if thread_id in self.escalating:  # interrupted, and still in the same decision
                        self.escalating.discard(thread_id)
                        del self.deadlines[thread_id]
                        self.stuck[thread_id]()
                        continue
                    del self.deadlines[thread_id]
                    self.fired[thread_id] = token
                    _interrupt(thread_id, thread_id in self.signalled)
                    if thread_id in self.stuck:
                        self.escalating.add(thread_id)
                        self.deadlines[thread_id] = (now + max(STUCK_GRACE_SECONDS, deadline - now), token)
                self.next_wake = min((deadline for deadline, _ in self.deadlines.values()), default=now + 3600)
                self.wake.wait(max(0.001, self.next_wake - now))


_WATCHDOG = _Watchdog()
_LIMIT = threading.local()


def _interrupt(thread_id: int, by_signal: bool) -> None:
    if by_signal:
        signal.pthread_kill(thread_id, _SIGNAL)
    else:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(DecisionTimeout))


@functools.cache
def _watch_compiles() -> None:
    """Stop the running decision's clock from the moment a thread asks for numba's compiler lock until it lets go:
    numba holds that lock to load, compile and save a kernel, and the project's cache holds it too while another
    process compiles the same one (``sim.compile_cache.compile_once``). Registered once per process."""
    from numba.core import event

    class CompilingOffTheClock(event.Listener):
        def on_start(self, _: Any) -> None:
            depth = getattr(_LIMIT, "compiling", 0)
            _LIMIT.compiling = depth + 1
            if depth == 0:
                token = getattr(_LIMIT, "token", None)
                left = _WATCHDOG.pause(threading.get_ident()) if token is not None else None
                _LIMIT.paused = None if left is None else (token, left)

        def on_end(self, _: Any) -> None:
            _LIMIT.compiling = depth = getattr(_LIMIT, "compiling", 1) - 1
            paused = getattr(_LIMIT, "paused", None)
            if depth == 0 and paused is not None:
                _LIMIT.paused = None
                _WATCHDOG.resume(threading.get_ident(), *paused)

    event.register("numba:compiler_lock", CompilingOffTheClock())


def _on_signal(signum: int, frame: Any) -> None:
    fired = _WATCHDOG.fired.pop(threading.get_ident(), None)  # no lock: the handler may interrupt its holder
    if fired is not None and fired == getattr(_LIMIT, "token", None):
        raise DecisionTimeout


def current_limit() -> float | None:
    """The seconds a decision may take in this thread, or None when there is no limit."""
    return getattr(_LIMIT, "seconds", None)


@contextlib.contextmanager
def limit_decisions(seconds: float | None, stuck: Callable[[], None] | None = None) -> Iterator[None]:
    """Limit every ``decision()`` in this thread to ``seconds`` (None or 0: no limit) while the block runs.

    ``stuck`` is called (from the watchdog's thread) when an interrupted decision has still not ended
    ``STUCK_GRACE_SECONDS`` later, as a call blocked in C code outside the main thread does not.
    """
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"a decision time limit is a finite number of seconds, not {seconds}")
    if not seconds:
        yield
        return
    _watch_compiles()
    thread_id = threading.get_ident()
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(_SIGNAL, _on_signal) if in_main else None
    if in_main:
        _WATCHDOG.signalled.add(thread_id)
    _WATCHDOG.start()
    _LIMIT.seconds = seconds
    if stuck is not None:
        _WATCHDOG.stuck[thread_id] = stuck
    try:
        yield
    finally:
        _LIMIT.seconds = None
        with _WATCHDOG.lock:
            _WATCHDOG.stuck.pop(thread_id, None)
        if in_main:
            _WATCHDOG.signalled.discard(thread_id)
            signal.signal(_SIGNAL, previous)


@contextlib.contextmanager
def decision() -> Iterator[None]:
    """One call into an agent, interrupted with ``DecisionTimeout`` if it outlasts ``current_limit()``."""
    seconds = current_limit()
    if seconds is None:
        yield
        return
    thread_id = threading.get_ident()
    watchdog = _WATCHDOG
    with watchdog.lock:
        watchdog.token += 1
        token = watchdog.token
        _LIMIT.token = token
        deadline = time.monotonic() + seconds
        watchdog.deadlines[thread_id] = (deadline, token)
        if deadline < watchdog.next_wake:
            watchdog.next_wake = deadline
            watchdog.wake.notify()
    try:
        yield
    finally:
        with watchdog.lock:
            watchdog.deadlines.pop(thread_id, None)
            watchdog.escalating.discard(thread_id)
            late = watchdog.fired.pop(thread_id, None) == token
            _LIMIT.token = None
            if late and thread_id not in watchdog.signalled:  # the decision ended as it was being interrupted
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)
