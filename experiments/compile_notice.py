"""One line on stderr the first time a command compiles engine code: a silent first compile looks like a hang.

``knorri-sim`` listens (``listen``) for numba compiling anything; once the process has compiled for ``DELAY``
seconds in all, it prints ``GENERIC``, unless the command already said what it will compile (``say``, as
``run``, ``duel``, ``play``, ``bench``, ``train`` and a ``replay`` that plays its deal do with their own
estimate). Code loaded from the compile cache is not compiled, so a warm command says nothing, and neither does
one whose few small kernels compile in a moment.
"""

from __future__ import annotations

import sys

GENERIC = ("compiling the engine's kernels for first use (after an install, or an edit of their sources): from a "
           "few seconds to about 40 s of CPU for each module of kernels the command runs (docs/speed.md lists "
           "them), longer on a loaded machine; later commands load them from the cache")
"""What a command that gives no estimate of its own says when it compiles."""
DELAY = 1.0
"""Seconds of compiling before ``GENERIC`` is said: less is over before anyone waits."""

_said = False


def claim(line: str | None) -> str | None:
    """``line``, unless something was said already, for the caller to print once nothing can refuse the command
    any more (a run folder it cannot write, say), so that bad input stays one line; from here on ``say`` and the
    listener say nothing."""
    global _said
    if not line or _said:
        return None
    _said = True
    return line


def say(line: str | None = GENERIC) -> None:
    """Print ``line`` on stderr, once per process (later calls, and the listener, say nothing)."""
    if claim(line):
        print(line, file=sys.stderr, flush=True)


_listening = False


def listen() -> None:
    """Say ``GENERIC`` once numba has compiled for ``DELAY`` seconds in this process, unless something was said
    already; listening starts once per process, however many commands it runs."""
    global _listening
    if _listening:
        return
    _listening = True
    import threading
    import time

    from numba.core import event

    # numba compiles callees inside their caller's compile: only the outermost compile is timed
    state = {"depth": 0, "spent": 0.0, "started": 0.0, "timer": None}

    class Notice(event.Listener):
        def on_start(self, data: object) -> None:
            state["depth"] += 1
            if state["depth"] == 1 and not _said:
                state["started"] = time.perf_counter()
                state["timer"] = threading.Timer(max(0.0, DELAY - state["spent"]), say)
                state["timer"].daemon = True
                state["timer"].start()

        def on_end(self, data: object) -> None:
            state["depth"] -= 1
            if state["depth"] == 0 and state["timer"] is not None:
                state["timer"].cancel()
                state["timer"] = None
                state["spent"] += time.perf_counter() - state["started"]

    event.register("numba:compile", Notice())
