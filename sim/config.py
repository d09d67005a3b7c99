"""Compile flags for every numba kernel of the project, in one place.

Every ``@njit`` in the project is written ``@njit(**config.KERNEL)`` (or one of the variants below), so a flag is
changed here once and nowhere else: ``cache=True`` (keyed by each kernel's code, ``sim.compile_cache``, set up when
this module is imported; ``False`` only when no cache folder can be written), ``fastmath=False`` (integer work, where
exact results matter), ``boundscheck=False`` (the kernels are tested against the reference engine;
``NUMBA_BOUNDSCHECK=1`` checks indices while debugging) and ``nogil=True`` (callers may run kernels from several
Python threads).
"""

from __future__ import annotations

import os

import numpy as np

from sim import compile_cache

CACHE: compile_cache.CacheFolder | None = compile_cache.activate()
"""This process's compiled-code folder (``None``: no writable folder, so nothing is cached)."""

KERNEL: dict[str, bool] = {
    "cache": CACHE is not None,
    "fastmath": False,
    "nogil": True,
    "boundscheck": False,
    "forceinline": False,
    "no_cfunc_wrapper": True,
}
"""Flags of every serial kernel. None is called through a C function pointer, so numba builds no C wrapper for
any (``no_cfunc_wrapper``): each would only lengthen the compile (docs/speed.md, "Waiting for the first command")."""

STEP_KERNEL: dict[str, bool] = {**KERNEL, "_nrt": False}
"""Flags of the engine's per-step kernels, which never allocate: numba's runtime (NRT) is off.

With the runtime on, numba counts references to every array a function passes or slices,
with atomic instructions; profiled, those took 61% of a playout's time. A kernel compiled
this way cannot allocate arrays: its callers hand it every buffer it needs.
"""

HOT_KERNEL: dict[str, bool | str] = {**STEP_KERNEL, "error_model": "numpy"}
"""Flags of the uniform random playout's loop: a modulo by a number of choices (never zero) needs no check.

With numba's default error model every integer ``%`` tests its divisor for zero, to raise.
"""

INLINED_KERNEL: dict[str, bool | str] = {**STEP_KERNEL, "forceinline": True}
"""Flags of the per-step kernels that the playout loops call millions of times a second.

A call between compiled functions (numba passes every array as its fields) costs more than
the work of a step, so these are marked ``alwaysinline`` for LLVM (``forceinline``): each is
compiled once, and LLVM copies its optimised code into every caller. Numba's own inlining
(``inline="always"``) gives the same machine code but redoes the function's front end and
copies its IR at every call site, recursively: measured, that was 36 s of the 80 s of CPU
the default Knorri lineup took to compile. Every other kernel sets ``forceinline=False``,
since numba lets a callee inherit the flag from its caller.
"""

PASTED_KERNEL: dict[str, bool | str] = {**STEP_KERNEL, "inline": "always"}
"""Flags of a small or single-caller part of a bigger kernel: numba pastes its IR into the caller's.

Every kernel numba compiles on its own is optimised and turned into machine code with
everything it calls linked in, and then again within each kernel that calls it: a chain of
kernels redoes the work at every level. A part pasted into its one caller (a search's step,
an agent's decision) is compiled only there. Pasted at several call sites, a large function
costs a copy each: those are ``INLINED_KERNEL`` or plain kernels instead. Numba copies the
pasted IR twice, block by block, so an entry point that would only paste a body as large as a
lineup's compiles the body itself (``agents.lineup.lineup_entry_kernels``). The caller's flags
apply to the pasted code (numba's reference counting included).
"""


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy), for a table kernels only read.

    Numba types a read-only array apart from a writable one, so a kernel given both compiles twice; a global a
    kernel reads is read-only, so read-only is the one form every caller passes.
    """
    view = array.view()
    view.flags.writeable = False
    return view


def default_workers() -> int:
    """How many threads a playout spreads over when the caller does not say: every core."""
    return max(1, os.cpu_count() or 1)
