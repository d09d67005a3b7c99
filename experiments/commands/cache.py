"""``knorri-sim cache info|clear``: where the compiled engine code lives, how big it is, and removing it.

The compiled code is kept in a folder per kernel module and fingerprint of the
code it compiles in (``sim.compile_cache``); a source edit starts fresh folders for
the kernels it touches, so clearing is never needed for correctness: it frees disk
space, or forces the next run to compile from scratch (to time a first run, say).
"""

from __future__ import annotations

import argparse

from sim import compile_cache


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``info`` or ``clear``, and ``--all`` for everything under the base folder."""
    parser.add_argument("action", choices=("info", "clear"),
                        help="info: where the compiled code is, and its size; clear: delete the code this source "
                             "tree uses")
    parser.add_argument("--all", action="store_true",
                        help="clear: delete everything under the base folder, the code of other source trees "
                             "(clones at other commits), numba versions and fingerprints too")


def run(args: argparse.Namespace) -> int:
    """Print the cache's description, or clear it and say what was removed."""
    from sim import config

    folder = config.CACHE
    if folder is None:
        print("compiled code is not cached: no writable folder (set KNORRI_SIM_CACHE_DIR to one); "
              "every run compiles what it uses")
        return 0
    if args.action == "info":
        print(describe(folder))
        return 0
    removed = compile_cache.clear(folder, everything=args.all)
    freed = sum(size for _, size in removed)
    what = "all compiled code" if args.all else "the compiled code this source tree uses"
    print(f"cleared {what}: {len(removed)} folder{'s' * (len(removed) != 1)}, {_size(freed)}, under {folder.base}; "
          "the next run compiles afresh")
    return 0


def describe(folder: compile_cache.CacheFolder) -> str:
    """Several lines: the base, this numba's folder, the code this tree uses, and the rest kept under the base."""
    current = compile_cache.current_folders(folder)
    skip = (compile_cache.LOCKS, compile_cache.OTHER)
    modules = [p for p in folder.path.iterdir() if p.is_dir() and p.name not in skip]
    kept = [key for module in modules for key in module.iterdir() if key.is_dir() and key not in current]
    others = [p for p in sorted(folder.base.iterdir()) if p.is_dir() and p != folder.path]
    lines = [
        f"base:    {folder.base} (set {compile_cache.BASE_ENV} to move it)",
        f"folder:  {folder.path} (one subfolder per kernel module, one below it per fingerprint of the code it "
        "compiles in)",
        f"current: {len(current)} module{'s' * (len(current) != 1)} of this source tree "
        f"({compile_cache.SOURCE_ROOT}): {sum(compile_cache.index_count(p) for p in current)} compiled kernels, "
        f"{_size(sum(compile_cache.folder_size(p) for p in current))}",
        f"kept:    {len(kept)} older or other trees' fingerprint{'s' * (len(kept) != 1)}, "
        f"{_size(sum(compile_cache.folder_size(p) for p in kept))} (at most {compile_cache.KEEP} per module)",
        f"others:  {len(others)} other folder{'s' * (len(others) != 1)} under the base (other numba or Python "
        "versions, older layouts), "
        f"{_size(sum(compile_cache.folder_size(p) for p in others))} (knorri-sim cache clear --all removes them)",
    ]
    return "\n".join(lines)


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB"
