"""Compile flags for every numba kernel of the project, in one place.

Every ``@njit`` in the project is written ``@njit(**config.KERNEL)`` (or
``PARALLEL_KERNEL`` for the few that fan out over cores), so a flag is changed
here once and nowhere else:

- ``cache=True``: the first run compiles and writes the machine code into one folder
  keyed by a fingerprint of every source file (``sim.compile_cache``, set up when
  this module is imported, before any kernel is decorated); later runs load it, and
  any source edit means a fresh folder and a fresh compile. ``False`` only when no
  cache folder can be written.
- ``fastmath=False``: the engines do integer work only, and exact results matter
  more than the last few percent.
- ``boundscheck=False``: the kernels are tested against the reference engine;
  set ``NUMBA_BOUNDSCHECK=1`` in the environment to check indices while debugging.
- ``nogil=True``: callers may run kernels from several Python threads.
"""

from __future__ import annotations

import os

from sim import compile_cache

CACHE: compile_cache.CacheFolder | None = compile_cache.activate()
"""This process's compiled-code folder (``None``: no writable folder, so nothing is cached)."""

KERNEL: dict[str, bool] = {
    "cache": CACHE is not None,
    "fastmath": False,
    "nogil": True,
    "boundscheck": False,
}
"""Flags of every serial kernel."""

PARALLEL_KERNEL: dict[str, bool] = {**KERNEL, "parallel": True}
"""Flags of kernels that spread hands over cores with ``prange``."""

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

INLINED_KERNEL: dict[str, bool | str] = {**STEP_KERNEL, "inline": "always"}
"""Flags of the small per-step kernels that the playout loop calls millions of times a second.

Numba does not inline one compiled function into another by itself, and a call between
them costs more than the work of a step. ``inline="always"`` pastes the function into its
caller at numba's level instead.
"""


def default_workers() -> int:
    """How many worker threads the parallel kernels use when the caller does not say: every core."""
    return max(1, os.cpu_count() or 1)
