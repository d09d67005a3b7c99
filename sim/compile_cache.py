"""Where numba keeps the compiled machine code: a folder per kernel module, named by the code it compiles in.

Numba checks only a kernel's own file, by its time, before reusing cached code, but kernels inline functions and
freeze constants from what they import. So a kernel of ``sim/`` or ``agents/`` is cached under a fingerprint of
its module's source and of every module of those packages it imports, directly or not (plus what a factory-built
kernel captures), with numba's and Python's versions. An edit recompiles only the kernels it touches; another
clone or install of the same sources loads their code, as no path or file time enters a fingerprint::

    <base>/<numba and Python versions>/<module>[+<captured>]/<fingerprint>/   numba's files
    <base>/<numba and Python versions>/other/<fingerprint of all>/          kernels elsewhere (a user's agent)

The base is ``KNORRI_SIM_CACHE_DIR``, else the user's cache folder; each module keeps its ``KEEP`` most recently
used fingerprints. Processes sharing the folder compile each kernel once (``compile_once``). ``sim.config`` calls
``activate()`` before any kernel is decorated; with no writable folder, nothing is cached.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from filelock import FileLock

BASE_ENV = "KNORRI_SIM_CACHE_DIR"
"""The environment variable that moves the cache's base folder."""

SOURCE_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the ``sim`` and ``agents`` packages of this source tree."""

SOURCE_PACKAGES = ("sim", "agents")
"""The packages whose kernels are cached by fingerprint: their code is what kernels compile in."""

KEEP = 4
"""Fingerprints kept per module: the current one and the most recently used others (other clones' commits)."""

INDEX_SUFFIX = ".nbi"  # numba's index file, one per cached kernel
LOCKS = ".locks"  # per-signature compile locks
OTHER = "other"  # numba's own layout, for kernels outside the packages


@dataclass(frozen=True)
class CacheFolder:
    """The compiled-code folder this process uses: its base and the folder of its numba and Python versions."""

    base: Path
    versions: str

    @property
    def path(self) -> Path:
        """The folder of this numba and Python (``base / versions``): a subfolder per kernel module."""
        return self.base / self.versions


def versions_name() -> str:
    """The folder name of the numba and Python versions that compile: their code is never shared."""
    import numba

    return f"numba-{numba.__version__}-{sys.implementation.cache_tag}"


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


# ----- fingerprints ------------------------------------------------------------------------------------------
def module_name(path: Path, root: Path = SOURCE_ROOT) -> str | None:
    """The dotted name of a source file of ``sim/`` or ``agents/`` under ``root``; ``None`` for any other file."""
    try:
        parts = path.resolve().relative_to(root).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in SOURCE_PACKAGES or path.suffix != ".py":
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str, root: Path = SOURCE_ROOT) -> Path | None:
    """The source file of a module of ``sim/`` or ``agents/`` (a package's ``__init__.py``); ``None`` if none."""
    if name.split(".")[0] not in SOURCE_PACKAGES:
        return None
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)|import[ \t]+([^\n#]+))",
                         re.MULTILINE)
"""An import statement anywhere in a file (function-local too; a docstring's look-alike only adds a module)."""


@cache
def imported_modules(name: str, root: Path = SOURCE_ROOT) -> frozenset[str]:
    """The modules of ``sim/`` and ``agents/`` whose names ``name`` imports, anywhere in its file.

    ``from P import n`` counts ``P.n`` when that is a module, else ``P`` (whose ``__init__`` defines ``n``); a
    package's ``__init__`` is not counted for importing a module under it, as a kernel compiles in only the
    names it imports.
    """
    path = module_file(name, root)
    if path is None:
        return frozenset()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for source, names, modules in IMPORT_LINE.findall(path.read_text()):
        if not source:  # import a.b.c as d, e
            found.update(part.split()[0] for part in modules.split(",") if part.strip())
            continue
        level = len(source) - len(source.lstrip("."))
        parent = package.split(".")[:len(package.split(".")) - level + 1] if level else []
        source = ".".join(parent + ([source.lstrip(".")] if source.lstrip(".") else []))
        aliases = [part.split()[0] for part in names.strip("()\\ \t").replace("\n", ",").split(",")
                   if part.strip() and not part.strip().startswith("#")]
        if names.rstrip().endswith("\\") or not aliases:  # a line continued: count the source itself too
            found.add(source)
        for alias in aliases:
            inner = f"{source}.{alias}"
            found.add(inner if module_file(inner, root) is not None else source)
    return frozenset(m for m in found if m != name and module_file(m, root) is not None)


@cache
def fingerprint(names: frozenset[str], root: Path = SOURCE_ROOT) -> str:
    """The fingerprint of the named modules and every module of the packages they import, directly or not."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in seen and module_file(name, root) is not None:
            seen.add(name)
            todo.extend(imported_modules(name, root))
    digest = hashlib.sha256(versions_name().encode() + b"\0")
    for name in sorted(seen):
        digest.update(name.encode() + b"\0" + module_file(name, root).read_bytes() + b"\0")  # type: ignore[union-attr]
    return digest.hexdigest()[:20]


def tree_fingerprint(root: Path = SOURCE_ROOT) -> str:
    """The fingerprint of every source file of ``sim/`` and ``agents/`` under ``root``, with the versions."""
    files = sorted(p for package in SOURCE_PACKAGES for p in (root / package).rglob("*.py")
                   if "__pycache__" not in p.parts)
    digest = hashlib.sha256(versions_name().encode() + b"\0")
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def captured_modules(py_func: Any) -> frozenset[str]:
    """The modules a factory-built kernel captures (modules, or functions and kernels, in its closure cells)."""
    names = set()
    for cell in getattr(py_func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        value = getattr(value, "py_func", value)
        if isinstance(value, ModuleType):
            names.add(value.__name__)
        elif callable(value) and isinstance(getattr(value, "__module__", None), str):
            names.add(value.__module__)
    return frozenset(names)


# ----- numba's side --------------------------------------------------------------------------------------------
ACTIVE: CacheFolder | None = None
"""The folder ``activate`` chose for this process (``None``: nothing cached)."""


def kernel_folder(folder: CacheFolder, py_func: Any, py_file: str, root: Path = SOURCE_ROOT) -> Path | None:
    """Where a kernel of ``sim/`` or ``agents/`` is cached (created, and marked as just used); ``None`` elsewhere."""
    name = module_name(Path(py_file), root)
    if name is None:
        return None
    names = "+".join([name, *sorted(captured_modules(py_func) - {name})])
    path = folder.path / names / fingerprint(frozenset(names.split("+")), root)
    use(path)
    return path


@cache
def use(path: Path) -> None:
    """Create a fingerprint's folder, mark it as the module's most recently used and drop its oldest beyond KEEP."""
    path.mkdir(parents=True, exist_ok=True)
    os.utime(path)
    siblings = sorted((p for p in path.parent.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for stale in siblings[:-KEEP] if len(siblings) > KEEP else []:
        if stale != path:
            shutil.rmtree(stale, ignore_errors=True)


def _locator_class() -> type:
    from numba.core import caching

    class KernelLocator(caching._CacheLocator):
        """Numba's cache locator for the packages' kernels: the fingerprint folder, stamped by the fingerprint."""

        def __init__(self, py_func: Any, path: Path, py_file: str) -> None:
            self._lineno = py_func.__code__.co_firstlineno
            self._path = path
            self._py_file = py_file  # where numba's warning points when a kernel cannot be cached

        def get_cache_path(self) -> str:
            return str(self._path)

        def get_source_stamp(self) -> str:
            return self._path.name

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if ACTIVE is None:
                return None
            path = kernel_folder(ACTIVE, py_func, py_file)
            return None if path is None else cls(py_func, path, py_file)

    return KernelLocator


def activate(root: Path = SOURCE_ROOT) -> CacheFolder | None:
    """Point numba's cache at the fingerprint folders; ``None`` (no caching) if no base folder is writable.

    Puts the packages' locator first in numba's list, sets ``numba.config.CACHE_DIR`` and ``NUMBA_CACHE_DIR``
    (for other kernels; worker processes inherit it) and makes compiles wait on each other (``compile_once``).
    Must run before any ``@njit(cache=True)`` decorator, since numba locates a kernel's cache when decorating it.
    """
    global ACTIVE
    from numba.core import caching
    from numba.core import config as numba_config

    folder = writable_folder((default_base(), fallback_base()))
    ACTIVE = folder
    if folder is not None:
        # kernels elsewhere may call the packages' kernels: keyed by all of the packages, as numba checks only
        # their own files
        other = folder.path / OTHER / tree_fingerprint(root)
        use(other)
        numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"] = str(other)
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        if not any(k.__name__ == "KernelLocator" for k in impl._locator_classes):
            impl._locator_classes.insert(0, _locator_class())
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


def writable_folder(bases: Iterable[Path]) -> CacheFolder | None:
    """The first of ``bases`` where this numba's and Python's folder can be written, created; ``None`` if none."""
    for base in bases:
        folder = CacheFolder(base, versions_name())
        try:
            folder.path.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder.path).close()
        except OSError:
            continue
        return folder
    return None


# ----- what is kept ------------------------------------------------------------------------------------------
def folder_size(path: Path) -> int:
    """Bytes in the files under ``path`` (0 if it does not exist)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def index_count(path: Path) -> int:
    """How many kernels (index files) a cache folder holds."""
    return sum(1 for _ in path.rglob(f"*{INDEX_SUFFIX}")) if path.is_dir() else 0


def current_folders(folder: CacheFolder, root: Path = SOURCE_ROOT) -> list[Path]:
    """The fingerprint folders this source tree's modules use now (of the modules that have cached code)."""
    if not folder.path.is_dir():
        return []
    current = []
    for module in folder.path.iterdir():
        names = module.name.split("+")
        if module.is_dir() and all(module_file(name, root) is not None for name in names):
            path = module / fingerprint(frozenset(names), root)
            if path.is_dir():
                current.append(path)
    return sorted(current)


def kernels_cached(module_names: Iterable[str]) -> bool:
    """Whether every named module (``module``) or kernel (``module:kernel``) has compiled code in the cache (an
    index file).

    A module counts as compiled once any of its own kernels is cached (or, for a module whose kernels are all
    built elsewhere, any of those): kernels are compiled together with the
    ones they call, and an entry point a run never calls stays uncached for good. A module without cached
    kernels (or with caching off) will be compiled by the first call into it. A module with entry points that
    compile apart (a lineup with a search and one without) names the one it means.
    """
    for name in module_names:
        module, _, kernel = name.partition(":")
        if kernel:
            index = _index_path(getattr(import_module(module), kernel))
            if index is None or not index.exists():
                return False
            continue
        kernels = [value for value in vars(import_module(name)).values() if _index_path(value) is not None]
        own = [k for k in kernels if getattr(k.py_func, "__module__", None) == name]  # not imported ones
        if not any(_index_path(kernel).exists() for kernel in own or kernels):  # type: ignore[union-attr]
            return False
    return True


def compile_ahead(kernel: Any, arguments: Sequence[Any]) -> None:
    """Compile ``kernel`` (a numba dispatcher) for the types of ``arguments`` into the cache, or load it from there,
    without running it.

    A bigger kernel that calls ``kernel`` with the same types then loads this code rather than compiling it, even
    in another process: ``compile_once`` makes that process wait if the compile is still under way. A run
    compiling for the first time hands such parts to its idle workers (``LineupPlayer.compile_parts``). An argument
    given as a numba type stands for itself: a constant the caller passes, such as ``False``, is typed as a literal.
    """
    from numba import typeof
    from numba.core.types import Type

    kernel.compile(tuple(argument if isinstance(argument, Type) else typeof(argument) for argument in arguments))


def cached_signatures(kernel: Any) -> list[tuple[Any, ...]]:
    """The argument types of every signature of ``kernel`` that its cache holds (none if it holds no index)."""
    index = _index_path(kernel)
    if index is None or not index.exists():
        return []
    return [tuple(key[0]) for key in kernel._cache._cache_file._load_index()]


def _index_path(kernel: object) -> Path | None:
    # Numba's per-kernel cache (a private attribute: ``Dispatcher._cache``, a ``FunctionCache`` whose index file
    # says which signatures are compiled); None for anything that is not a cached kernel.
    index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_index_path", None)
    return Path(index) if index else None


def clear(folder: CacheFolder, everything: bool = False) -> list[tuple[Path, int]]:
    """Delete the compiled code this source tree uses now (or everything under the base); each folder, its bytes."""
    if everything:
        targets = sorted(p for p in folder.base.iterdir() if p.is_dir()) if folder.base.is_dir() else []
    else:
        targets = current_folders(folder)
    removed = [(path, folder_size(path)) for path in targets]
    for path in targets:
        shutil.rmtree(path, ignore_errors=True)
    return removed
