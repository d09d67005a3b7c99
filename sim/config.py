"""Compile flags for every numba kernel of the project, in one place.

Every ``@njit`` in the project is written ``@njit(**config.KERNEL)`` (or
``PARALLEL_KERNEL`` for the few that fan out over cores), so a flag is changed
here once and nowhere else:

- ``cache=True``: the first run compiles and writes the machine code next to the
  module (``__pycache__/*.nbi``/``*.nbc``); later runs load it.
- ``fastmath=False``: the engines do integer work only, and exact results matter
  more than the last few percent.
- ``boundscheck=False``: the kernels are tested against the reference engine;
  set ``NUMBA_BOUNDSCHECK=1`` in the environment to check indices while debugging.
- ``nogil=True``: callers may run kernels from several Python threads.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

KERNEL: dict[str, bool] = {
    "cache": True,
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

INLINED_KERNEL: dict[str, bool | str] = {**STEP_KERNEL, "inline": "always"}
"""Flags of the small per-step kernels that the playout loop calls millions of times a second.

Numba does not inline one compiled function into another by itself, and a call between
them costs more than the work of a step. ``inline="always"`` pastes the function into its
caller at numba's level instead.
"""


def default_workers() -> int:
    """How many worker threads the parallel kernels use when the caller does not say: every core."""
    return max(1, os.cpu_count() or 1)


def drop_stale_cache(module_file: str, dependencies: Sequence[str]) -> None:
    """Delete ``module_file``'s numba cache if any file it compiles in has changed since it was written.

    Numba checks only the kernel's own source file before reusing cached machine code,
    but the engine's kernels inline functions from other modules: edit one of those and
    the cache would keep running the old code. This keeps a fingerprint of every
    dependency next to the cache and clears the cache when the fingerprint moves.
    Call it at the top of a kernel module, before any kernel runs.
    """
    source = Path(module_file)
    cache_dir = source.parent / "__pycache__"
    digest = hashlib.sha256()
    for name in sorted(dependencies):
        digest.update(Path(name).read_bytes())
    stamp = cache_dir / f"{source.stem}.deps"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for cached in cache_dir.glob(f"{source.stem}.*.nb[ic]"):
            cached.unlink()
        cache_dir.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba cannot cache there either
        pass
