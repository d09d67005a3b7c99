"""One line on stderr the first time a command compiles engine code: a silent first compile looks like a hang.

``knorri-sim`` listens (``listen``) for numba compiling anything; the first compile of the process prints
``GENERIC`` unless the command already said what it will compile (``say``, as ``run`` and ``duel`` do with
their own estimate). Code loaded from the compile cache is not compiled, so a warm command says nothing.
"""

from __future__ import annotations

import sys

GENERIC = ("compiling the engine's kernels for first use (after an install, or an edit of their sources): about "
           "half a minute of CPU, longer on a loaded machine; later commands load them from the cache")
"""What a command that gives no estimate of its own says when it compiles."""

_said = False


def say(line: str | None = GENERIC) -> None:
    """Print ``line`` on stderr, once per process (later calls, and the listener, say nothing)."""
    global _said
    if line and not _said:
        _said = True
        print(line, file=sys.stderr, flush=True)


_listening = False


def listen() -> None:
    """Say ``GENERIC`` when numba starts compiling in this process, unless something was said already; listening
    starts once per process, however many commands it runs."""
    global _listening
    if _listening:
        return
    _listening = True
    from numba.core import event

    class Notice(event.Listener):
        def on_start(self, data: object) -> None:
            say()

        def on_end(self, data: object) -> None:
            pass

    event.register("numba:compile", Notice())
