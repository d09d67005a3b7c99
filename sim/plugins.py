"""Plug-ins: what installed packages add to the harness, found through Python entry points.

Each group names one kind of part, and each entry point in it names the module that adds one game's part of that
kind: ``knorri_sim.games`` an adapter (``sim.contract.GameAdapter``), ``knorri_sim.agents`` a module whose import
registers a game's agents, ``knorri_sim.reports`` and ``knorri_sim.cutoffs`` modules whose import registers a
game's report and cut-off analysis. The built-in games declare theirs in ``pyproject.toml`` like any other
package, so no list of games is kept anywhere else. Each layer loads its own group (``sim.games``, ``agents``,
``experiments.analysis.reports``), so imports still flow one way.
"""

from __future__ import annotations

import importlib.metadata
import sys
from types import ModuleType

GAMES = "knorri_sim.games"
AGENTS = "knorri_sim.agents"
REPORTS = "knorri_sim.reports"
CUTOFFS = "knorri_sim.cutoffs"

_SAID: set[str] = set()  # the broken entry points already named in this process


def entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
    """The entry points of ``group`` declared by every installed distribution, in name order (each name once)."""
    found = {point.name: point for point in importlib.metadata.entry_points(group=group)}
    return [found[name] for name in sorted(found)]


def load_modules(group: str) -> list[tuple[str, ModuleType]]:
    """Import the module each entry point of ``group`` names, as ``(entry name, module)``.

    A plug-in that fails to import is named in one line on stderr (once a process) and skipped: one broken
    package must not stop the harness's own games.
    """
    loaded = []
    for point in entry_points(group):
        try:
            module = point.load()
            if not isinstance(module, ModuleType):
                raise TypeError(f"{point.value} is not a module")
        except Exception as error:  # noqa: BLE001 (any failure of a third party's import is skipped)
            skipped(group, point, error)
            continue
        loaded.append((point.name, module))
    return loaded


def skipped(group: str, point: importlib.metadata.EntryPoint, error: BaseException) -> None:
    """Say once, in one line on stderr, that the plug-in ``point`` of ``group`` is broken and left out."""
    key = f"{group}:{point.name}"
    if key not in _SAID:
        _SAID.add(key)
        reason = f"{type(error).__name__}: {error}".splitlines()[0]
        print(f"knorri-sim: skipping plug-in {point.name} = {point.value} ({group}): {reason}", file=sys.stderr)
