"""``knorri-sim cache info|clear``: where the compiled engine code lives, how big it is, and removing it.

The compiled code is kept in one folder per source tree and source fingerprint
(``sim.compile_cache``); a source edit starts a fresh folder and removes the old
one, so clearing is never needed for correctness: it frees disk space, or forces
the next run to compile from scratch (to time a first run, say).
"""

from __future__ import annotations

import argparse

from sim import compile_cache


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``info`` or ``clear``, and ``--all`` for every source tree's code under the base folder."""
    parser.add_argument("action", choices=("info", "clear"),
                        help="info: where the compiled code is, its key and size; clear: delete it")
    parser.add_argument("--all", action="store_true",
                        help="clear: also delete the code compiled for other source trees (clones, installs) "
                             "under the same base folder")


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
    removed = compile_cache.clear(folder, every_tree=args.all)
    freed = sum(size for _, size in removed)
    what = "every source tree's compiled code" if args.all else "this source tree's compiled code"
    print(f"cleared {what}: {len(removed)} folder{'s' * (len(removed) != 1)}, {_size(freed)}, under {folder.base}; "
          "the next run compiles afresh")
    return 0


def describe(folder: compile_cache.CacheFolder) -> str:
    """Several lines: the base, this tree's folder, the current key, its kernels and size, and the other folders."""
    current = folder.path
    lines = [
        f"base:    {folder.base} (set {compile_cache.BASE_ENV} to move it)",
        f"tree:    {folder.tree} (this source tree: {compile_cache.SOURCE_ROOT})",
        f"key:     {folder.key} (fingerprint of {len(compile_cache.source_files())} source files under "
        f"{', '.join(p + '/' for p in compile_cache.SOURCE_PACKAGES)} with numba's and Python's versions)",
        f"current: {current}: {compile_cache.index_count(current)} compiled kernels, "
        f"{_size(compile_cache.folder_size(current))}",
    ]
    others = [p for p in sorted(folder.base.iterdir()) if p.is_dir() and p != folder.tree]
    stale = compile_cache.stale_folders(folder)
    lines += [f"stale:   {p} ({_size(compile_cache.folder_size(p))})" for p in stale]
    lines.append(f"others:  {len(others)} other source tree{'s' * (len(others) != 1)} under the base, "
                 f"{_size(sum(compile_cache.folder_size(p) for p in others))} "
                 f"(knorri-sim cache clear --all removes them too)")
    return "\n".join(lines)


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB"
