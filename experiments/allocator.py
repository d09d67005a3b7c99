"""The C allocator of a ``knorri-sim`` process: memory a chunk freed is kept for the next chunk, not handed back.

A batch of hands returns its results in NumPy arrays of megabytes, which the next batch allocates afresh once they
are written. glibc hands blocks that large back to the kernel (each its own ``mmap``, or the top of the heap trimmed
when freed), so every chunk's arrays of a run were faulted in and zeroed by the kernel again, page by page: a cost
the engine's own loops never see (docs/speed.md, "A run end to end, and workers", has the paired runs). With the
thresholds below, blocks up to glibc's largest ``mmap`` threshold come from the heap and a freed heap top is kept,
so the next batch reuses pages already mapped. The process then holds on to its largest heap until it exits, which
a run's bounded chunks keep bounded.

Set by ``knorri-sim`` for its own process and its local worker processes; Python code that imports the engines
keeps its allocator as it was. Elsewhere than glibc (musl, macOS) nothing is changed.
"""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (glibc's malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest mmap threshold on 64-bit: larger blocks are mapped still
TRIM_THRESHOLD = 1024 * 1024 * 1024  # free heap top kept before any is handed back


def keep_freed_memory() -> bool:
    """Have glibc keep freed blocks for reuse (see the module's text); whether it took the settings."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return False
    if not hasattr(libc, "gnu_get_libc_version"):  # mallopt's parameters are glibc's
        return False
    mallopt = libc.mallopt
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
