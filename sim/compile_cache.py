"""Where numba keeps the compiled machine code: one folder keyed by a fingerprint of every source file.

Numba checks only a kernel's own source file before reusing its cached machine
code, but the kernels inline functions and freeze constants from many other
modules (``inline="always"``, globals such as ``END_EXCHANGE``). So the cache is
keyed here by one fingerprint of every ``.py`` file under ``sim/`` and
``agents/`` (with the numba and Python versions): any edit there gives a new
key, so a fresh folder and a fresh compile, and the folders of older keys of the
same source tree are removed.

The folders live under ``KNORRI_SIM_CACHE_DIR`` if set, else the user's cache
directory (``~/.cache/knorri-sim`` on Linux), one subfolder per source tree (a
clone or an install) so that two clones never evict each other's code::

    <base>/<tree>-<hash of its path>/<key>/...numba's files...

A user's own kernels outside these packages (an agent loaded by import path) are
cached in the same folder; numba checks them against their own file only.

Processes sharing the folder compile each kernel once between them: the first to
need a signature that is not cached takes a lock on it (``compile_once``), and the
others wait, then load its code from the cache. So test workers, run workers and
a user's second shell never compile the same kernel side by side.

``sim.config`` calls ``activate()`` on import, before any kernel is decorated
(every kernel module imports ``sim.config`` for its flags). When no folder can be
written (a read-only home and temporary directory), caching is turned off: every
process compiles what it runs, slowly but never stale.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from filelock import FileLock

BASE_ENV = "KNORRI_SIM_CACHE_DIR"
"""The environment variable that moves the cache's base folder."""

SOURCE_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the ``sim`` and ``agents`` packages of this source tree."""

SOURCE_PACKAGES = ("sim", "agents")
"""The packages whose code the kernels can compile in: every ``.py`` file under them is fingerprinted."""

INDEX_SUFFIX = ".nbi"  # numba's index file, one per cached kernel
LOCKS = ".locks"  # the folder of per-signature compile locks, inside a key's folder


@dataclass(frozen=True)
class CacheFolder:
    """The compiled-code folder this process uses: its base, its source tree's folder and its key."""

    base: Path
    tree: Path
    key: str

    @property
    def path(self) -> Path:
        """The folder numba writes into (``tree / key``)."""
        return self.tree / self.key


def source_files(root: Path = SOURCE_ROOT) -> list[Path]:
    """Every Python file the kernels can compile in, in a fixed order: all of ``sim/`` and ``agents/``."""
    files: list[Path] = []
    for package in SOURCE_PACKAGES:
        files += [p for p in (root / package).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def source_key(root: Path = SOURCE_ROOT) -> str:
    """The fingerprint of the source files, numba's version and Python's: it names the cache folder."""
    import numba

    digest = hashlib.sha256(f"numba {numba.__version__} {sys.implementation.cache_tag}\0".encode())
    for path in source_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def default_base() -> Path:
    """``KNORRI_SIM_CACHE_DIR``, else the platform's user cache folder with ``knorri-sim`` under it."""
    given = os.environ.get(BASE_ENV)
    if given:
        return Path(given).expanduser()
    if sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches"
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "knorri-sim"


def fallback_base() -> Path:
    """Where the cache goes when the default base cannot be written: a per-user temporary folder."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"knorri-sim-{user}"


def tree_folder(base: Path, root: Path = SOURCE_ROOT) -> Path:
    """The folder of one source tree under ``base``: its name and a hash of its absolute path."""
    return base / f"{root.name}-{hashlib.sha1(str(root).encode()).hexdigest()[:10]}"


def cache_folder(base: Path | None = None, root: Path = SOURCE_ROOT) -> CacheFolder:
    """The folder this source tree's compiled code belongs in (nothing is created)."""
    base = default_base() if base is None else base
    return CacheFolder(base, tree_folder(base, root), source_key(root))


def prepare(folder: CacheFolder) -> bool:
    """Create ``folder`` if need be and remove its tree's folders of other keys; False if it cannot be written."""
    try:
        folder.path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder.path).close()
    except OSError:
        return False
    for stale in stale_folders(folder):
        shutil.rmtree(stale, ignore_errors=True)
    return True


def stale_folders(folder: CacheFolder) -> list[Path]:
    """The folders of older keys of the same source tree: compiled from sources that have since changed."""
    if not folder.tree.is_dir():
        return []
    return sorted(p for p in folder.tree.iterdir() if p.is_dir() and p.name != folder.key)


def activate(root: Path = SOURCE_ROOT) -> CacheFolder | None:
    """Point numba's cache at this tree's folder for the current key; ``None`` (no caching) if none is writable.

    Sets ``numba.config.CACHE_DIR`` and ``NUMBA_CACHE_DIR`` (numba rereads its environment when it compiles,
    and worker processes inherit it); must run before any ``@njit(cache=True)`` decorator, since numba picks
    a kernel's cache folder when the kernel is decorated.
    """
    from numba.core import config as numba_config

    folder = writable_folder((default_base(), fallback_base()), root)
    if folder is not None:
        numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"] = str(folder.path)
        compile_once(folder.path / LOCKS)
    return folder


def compile_once(locks: Path) -> None:
    """Make processes that share the cache compile each kernel signature once between them.

    Wraps numba's ``Dispatcher.compile``: a signature that is neither compiled in this process nor (as numba
    then checks) in the cache is compiled under a file lock named after the kernel and the signature, so a
    second process needing it waits for the first and loads its saved code instead of compiling it too.
    Within a process numba's own compiler lock is taken first, so only one thread ever waits on a file lock.
    Kernels declared without ``cache=True`` are compiled as before. Calling it again only moves the locks.
    """
    from numba.core import caching, sigutils
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    compile_plain = getattr(Dispatcher.compile, "compile_plain", Dispatcher.compile)

    def compile_locked(self: Any, sig: Any) -> Any:
        if isinstance(self._cache, caching.NullCache):
            return compile_plain(self, sig)
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            if self.overloads.get(tuple(args)) is not None:
                return compile_plain(self, sig)
            name = f"{self._cache._cache_file._index_path}|{args}"
            locks.mkdir(parents=True, exist_ok=True)
            with FileLock(locks / f"{hashlib.sha1(name.encode()).hexdigest()}.lock"):
                return compile_plain(self, sig)

    compile_locked.compile_plain = compile_plain  # type: ignore[attr-defined]
    Dispatcher.compile = compile_locked


def writable_folder(bases: Iterable[Path], root: Path = SOURCE_ROOT) -> CacheFolder | None:
    """The first of ``bases`` where this tree's current-key folder can be written, prepared; ``None`` if none."""
    key = source_key(root)
    for base in bases:
        folder = CacheFolder(base, tree_folder(base, root), key)
        if prepare(folder):
            return folder
    return None


def folder_size(path: Path) -> int:
    """Bytes in the files under ``path`` (0 if it does not exist)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def kernels_cached(module_names: Iterable[str]) -> bool:
    """Whether every named module has compiled code in the cache (any of its kernels has an index file).

    A module counts as compiled once any of its kernels is cached: kernels are compiled together with the
    ones they call, and an entry point a run never calls stays uncached for good. A module without cached
    kernels (or with caching off) will be compiled by the first call into it.
    """
    for name in module_names:
        indexes = [_index_path(value) for value in vars(import_module(name)).values()]
        if not any(index is not None and index.exists() for index in indexes):
            return False
    return True


def _index_path(kernel: object) -> Path | None:
    # Numba's per-kernel cache (a private attribute: ``Dispatcher._cache``, a ``FunctionCache`` whose index file
    # says which signatures are compiled); None for anything that is not a cached kernel.
    index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_index_path", None)
    return Path(index) if index else None


def clear(folder: CacheFolder, every_tree: bool = False) -> list[tuple[Path, int]]:
    """Delete this source tree's compiled code (or every tree's under the base); return each folder and its bytes."""
    if every_tree:
        targets = sorted(p for p in folder.base.iterdir() if p.is_dir()) if folder.base.is_dir() else []
    else:
        targets = [folder.tree] if folder.tree.is_dir() else []
    removed = [(path, folder_size(path)) for path in targets]
    for path in targets:
        shutil.rmtree(path, ignore_errors=True)
    return removed


def index_count(path: Path) -> int:
    """How many kernels (index files) a cache folder holds."""
    return sum(1 for _ in path.rglob(f"*{INDEX_SUFFIX}")) if path.is_dir() else 0
