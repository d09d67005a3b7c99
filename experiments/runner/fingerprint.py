"""What code makes a run's rows, recorded in its manifest so that a resume can tell when that code changed.

Two runs of one config and seed give the same rows only when the same code plays them. The manifest's ``code``
records ``project`` (a SHA-256 of the project code that decides rows, ``PROJECT_CODE``, with the project's
version), the ``python``, ``numpy`` and ``numba`` versions, and ``agents``: one entry per module outside the
project that the run seats an agent from by import path (its distribution's version, or a SHA-256 of its source
and of the uninstalled modules it imports). ``changes`` compares two records and names every difference in words.
What each entry covers is in docs/internals.md, ``experiments.runner.fingerprint``.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from agents.base import known_agents, resolve_spec

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PROJECT_CODE = ("sim", "agents", "experiments/runner")
"""The folders of the project whose code decides a run's rows."""

ROW_PACKAGES = ("numpy", "numba")
INSTALL_FOLDERS = ("site-packages", "dist-packages")  # where installers put distributions
DIGITS = 16  # hex digits of a SHA-256 kept: a change is still found with certainty in practice


def run_code(specs: list[str], game: str) -> dict[str, Any]:
    """The record of the code that plays a run seating ``specs`` in ``game`` (the manifest's ``code``)."""
    code: dict[str, Any] = {"python": platform.python_version()}
    code.update({name: _version(name) for name in ROW_PACKAGES})
    code["project"] = {"version": _version("knorri-sim"), "source": source_digest(project_files())}
    code["agents"] = {module: module_record(module) for module in sorted(agent_modules(specs, game))}
    return code


def project_files(root: Path = PROJECT_ROOT) -> list[Path]:
    """Every ``.py`` file of ``PROJECT_CODE`` under ``root``, in a fixed order."""
    return sorted((path for folder in PROJECT_CODE for path in (root / folder).rglob("*.py")
                   if "__pycache__" not in path.parts), key=lambda path: path.relative_to(root).as_posix())


def source_digest(files: list[Path], root: Path = PROJECT_ROOT) -> str:
    """A SHA-256 of the files' names (relative to ``root``, so that a moved folder keeps its digest) and contents."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:DIGITS]


def agent_modules(specs: list[str], game: str) -> set[str]:
    """The modules of the specs that name an agent by import path (``module:Class``), not a registered name."""
    registered = set(known_agents(game))
    modules = set()
    for spec in specs:
        name = resolve_spec(spec, game).name
        if ":" in name and name not in registered:
            modules.add(name.partition(":")[0])
    return modules


def module_record(module: str) -> dict[str, Any]:
    """How an agent module is identified: ``{"project": True}`` inside ``PROJECT_CODE`` (the project's digest
    covers it), ``{"distribution", "version"}`` when an installed distribution holds its file, else
    ``{"source": digest, "files": n}`` of its file or of its top-level package's ``.py`` files."""
    spec = importlib.util.find_spec(module)
    origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    if origin is None:
        return {"source": None}  # a namespace package or a built-in: nothing to read
    if any(origin.is_relative_to(PROJECT_ROOT / folder) for folder in PROJECT_CODE):
        return {"project": True}
    installed = _distribution_of(module.split(".")[0], origin)
    if installed is not None:
        return {"distribution": installed.metadata["Name"], "version": installed.version}
    own = _package_files(module.split(".")[0])
    files = user_sources(own[0] if own else [origin])
    root = Path(os.path.commonpath([path.parent for path in files]))
    return {"source": source_digest(files, root), "files": len(files)}


def user_sources(files: list[Path]) -> list[Path]:
    """``files`` and every source file they import, directly or through each other, that is the user's own: not
    an installed distribution's, the standard library's or the project's. Imports are read from the source
    (``ast``), so a module imported only at run time by name is not seen."""
    found = {path.resolve() for path in files}
    todo = list(found)
    while todo:
        path = todo.pop()
        for name in _imported_names(path):
            origin = _user_origin(name, path)
            if origin is not None and origin not in found:
                found.add(origin)
                todo.append(origin)
    return sorted(found)


def _imported_names(path: Path) -> set[str]:
    """The absolute module names a source file imports (``import a.b``: ``a`` and ``a.b``; ``from a import b``:
    ``a`` and ``a.b``, which may be a module); relative imports are its package's, already read."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                names.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            names.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _user_origin(name: str, importer: Path) -> Path | None:
    """The source file of module ``name`` if it is the user's own (outside installs, the standard library and the
    project), else None; a name that cannot be found (a missing optional import) is None too."""
    if name.split(".")[0] in sys.stdlib_module_names or name.split(".")[0] in sys.builtin_module_names:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    origin = Path(spec.origin).resolve()
    if any(origin.is_relative_to(PROJECT_ROOT / folder) for folder in PROJECT_CODE) or \
            origin.is_relative_to(PROJECT_ROOT / "experiments"):
        return None
    if any(origin.is_relative_to(folder) for folder in _install_folders()):
        return None
    return origin


def _install_folders() -> list[Path]:
    """Where installed distributions and the standard library live: nothing under them is the user's own code."""
    folders = [Path(entry).resolve() for entry in sys.path if Path(entry).name in INSTALL_FOLDERS]
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return folders + [Path(prefix).resolve() / "lib" for prefix in prefixes]


def changes(before: dict[str, Any] | None, now: dict[str, Any]) -> list[str]:
    """Each difference between two ``run_code`` records, in words (empty: the same code)."""
    if not isinstance(before, dict) or not before:
        return ["the manifest records no code fingerprint (a run started before knorri-sim recorded one)"]
    found = [f"{name} {before.get(name)} -> {now.get(name)}" for name in ("python", *ROW_PACKAGES)
             if before.get(name) != now.get(name)]
    old, new = before.get("project") or {}, now["project"]
    if old.get("version") != new["version"]:
        found.append(f"knorri-sim {old.get('version')} -> {new['version']}")
    if old.get("source") != new["source"]:
        found.append(f"the project's own code ({', '.join(f + '/' for f in PROJECT_CODE)}) "
                     f"{old.get('source')} -> {new['source']}")
    old_agents = before.get("agents") or {}
    for module, record in now["agents"].items():
        if module not in old_agents:
            found.append(f"agent module {module} not recorded before")
        elif old_agents[module] != record:
            found.append(f"agent module {module} {_describe(old_agents[module])} -> {_describe(record)}")
    return found


def _describe(record: dict[str, Any]) -> str:
    if record.get("project"):
        return "(project code)"
    if "distribution" in record:
        return f"{record['distribution']} {record['version']}"
    return f"source {record.get('source')}"


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _distribution_of(top: str, origin: Path) -> metadata.Distribution | None:
    """The installed distribution whose recorded files include ``origin``: only a file under an install folder
    (``site-packages``) can be one; an editable install records none of its sources, so its code is read
    like any other."""
    installs = [Path(entry).resolve() for entry in sys.path if Path(entry).name in INSTALL_FOLDERS]
    if not any(origin.is_relative_to(folder) for folder in installs):
        return None
    for name in metadata.packages_distributions().get(top, []):
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        base = Path(str(distribution.locate_file(""))).resolve()
        if origin.is_relative_to(base) and \
                origin.relative_to(base).as_posix() in {str(file) for file in distribution.files or []}:
            return distribution
    return None


def _package_files(top: str) -> tuple[list[Path], Path] | None:
    """The ``.py`` files of a top-level package and the folder they are named from (None for a plain module)."""
    spec = importlib.util.find_spec(top)
    folders = [Path(folder).resolve() for folder in (spec.submodule_search_locations or [])] if spec else []
    if not folders:
        return None
    files = sorted({path.resolve() for folder in folders for path in folder.rglob("*.py")
                    if "__pycache__" not in path.parts})
    return files, Path(os.path.commonpath([folder.parent for folder in folders]))
