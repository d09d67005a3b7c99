"""The harness's top-level package names, and the refusal of a user's own module that would hide one.

The harness installs four top-level packages, ``sim``, ``agents``, ``rl`` and ``experiments``, side by
side. A folder or module of the same name in a user's working directory would be imported in their
place when the working directory comes first on ``sys.path`` (``python`` run in that folder), and the
harness would then fail far from the cause (``No module named 'agents.base'``). This module finds such
a module before anything else is imported and refuses it in one line naming both paths. It imports
nothing of the harness, so every package can call it first.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HARNESS_PACKAGES = ("sim", "agents", "rl", "experiments")
HARNESS_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the four packages


class HarnessShadowedError(ImportError):
    """A user's own module or package has the name of a harness package and would be imported instead."""


def harness_path(name: str) -> Path:
    """Where the harness package ``name`` lives."""
    return HARNESS_ROOT / name


def found_path(name: str) -> Path | None:
    """Where the module ``name`` is (or would be) imported from: its package folder or its file."""
    module = sys.modules.get(name)
    try:
        spec = module.__spec__ if module is not None else importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return Path(locations[0]).resolve()
    return Path(spec.origin).resolve() if spec.origin and spec.origin not in ("built-in", "frozen") else None


def shadowing_message(name: str, theirs: Path) -> str:
    """The one line refusing ``theirs``, a user's module that has the harness package ``name``'s name."""
    return (f"{theirs} has the name of the harness package {name!r} ({harness_path(name)}): rename it "
            f"(the names {', '.join(HARNESS_PACKAGES)} are taken by knorri-sim)")


def refuse_shadowing() -> None:
    """Raise ``HarnessShadowedError`` if any harness package name would import something other than the harness's."""
    for name in HARNESS_PACKAGES:
        if not harness_path(name).is_dir():
            continue  # a harness tree without this package (a copy of its engines alone) shadows nothing
        found = found_path(name)
        if found is not None and found != harness_path(name):
            raise HarnessShadowedError(shadowing_message(name, found))


def working_directory_copy(name: str, directory: str | None = None) -> Path | None:
    """A module or package named ``name`` in ``directory`` (default: the working directory) that is not the
    harness's own package of that name, if there is one."""
    folder = Path(directory or os.getcwd()).resolve()
    for candidate in (folder / name, folder / f"{name}.py"):
        if candidate.exists() and candidate.resolve() != harness_path(name):
            return candidate
    return None


def put_working_directory_last() -> None:
    """Put the working directory on ``sys.path`` after the installed packages (appended, or moved to the end),
    so ``mybot:MyBot`` finds ``./mybot.py`` while a folder of the user's never hides an installed package."""
    cwd = os.getcwd()
    entries = [entry for entry in sys.path if entry in ("", cwd)]
    for entry in entries:
        sys.path.remove(entry)
    sys.path.append(cwd)
