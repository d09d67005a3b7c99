"""The registry of games: each game's name on the command line, its title and its adapter.

A game's adapter is a module that implements ``sim.contract.GameAdapter`` (where
the column types and helpers every adapter uses live too); the
runner, the commands and the RL interfaces look a game up here by name and ask
its adapter, never its rules. Installed packages declare their games as entry
points (``sim.plugins.GAMES``: the built-in three in ``pyproject.toml``), read
the first time the registry is asked; ``register_game`` adds one from code. An
adapter is checked against the contract the first time it is looked up.

A row is a function of its seed, seating and options alone, so how the matches
are split between calls and processes never changes a result.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from sim import plugins
from sim.contract import check_adapter
from sim.errors import GameInputError


@dataclass(frozen=True)
class Game:
    """One registered game: its name on the command line, its title and its adapter module."""

    name: str
    title: str
    adapter: str  # module path of the adapter (a sim.contract.GameAdapter)
    bare_run_ids: bool = False  # at its default options, a run id names neither the game nor its options


_GAMES: dict[str, Game] = {}
DEFAULT_GAME = "knorri"
_discovered = False


def register_game(name: str, title: str, adapter: str, *, bare_run_ids: bool = False) -> Game:
    """Add a game under ``name`` (the ``--game`` word); its adapter is checked against the contract on first use.

    ``bare_run_ids`` is for a game whose run ids predate the config's ``game`` and ``options`` keys (Knorri's):
    at its default options its runs keep those ids, the keys left out (``RunConfig.identity``). One game at
    most (two would share ids); a new game leaves it off, so its ids name it.

    A game's own agents register themselves with ``agents.base.register(name, game=...)`` when their module is
    imported (an entry point of ``sim.plugins.AGENTS`` names that module).
    """
    _discover()
    entry = Game(name, title, adapter, bare_run_ids)
    if name in _GAMES and _GAMES[name] != entry:
        raise GameInputError(f"game {name!r} is already registered (as {_GAMES[name].adapter})")
    bare = [other.name for other in _GAMES.values() if other.bare_run_ids and other.name != name]
    if bare_run_ids and bare:
        raise GameInputError(f"game {name!r}: only one game's run ids leave the game out, and {bare[0]}'s do")
    _GAMES[name] = entry
    return entry


def names() -> list[str]:
    """Every registered game's ``--game`` word: the installed games' (entry points; the default first, then by
    name), then any added from code."""
    _discover()
    return list(_GAMES)


def game(name: str) -> Game:
    """The game called ``name``; an unknown name is one ``GameInputError`` line listing the games."""
    _discover()
    if name not in _GAMES:
        if not _GAMES:
            raise GameInputError("no game is installed: reinstall knorri-sim (pip install -e .) so that its entry "
                                 f"points ({plugins.GAMES}) are recorded")
        raise GameInputError(f"unknown game {name!r}: the games are {', '.join(_GAMES)}")
    return _GAMES[name]


def adapter(name: str) -> ModuleType:
    """The adapter of the game called ``name``, checked against ``sim.contract.GameAdapter`` on first use."""
    module = importlib.import_module(game(name).adapter)
    if module.__name__ not in _CHECKED:
        check_adapter(name, module)
        _CHECKED.add(module.__name__)
    return module


_CHECKED: set[str] = set()


def _discover() -> None:
    """Register every game the installed packages declare (``sim.plugins.GAMES``), once: the entry point's name is
    the ``--game`` word and its value the adapter module, whose ``TITLE`` titles the game (and ``BARE_RUN_IDS``,
    Knorri's alone, keeps the ids of runs from before the registry)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    installed = plugins.load_modules(plugins.GAMES)
    for name, adapter_module in sorted(installed, key=lambda pair: (pair[0] != DEFAULT_GAME, pair[0])):
        try:
            register_game(name, str(getattr(adapter_module, "TITLE", name)), adapter_module.__name__,
                          bare_run_ids=bool(getattr(adapter_module, "BARE_RUN_IDS", False)))
        except GameInputError as error:
            _GAMES.pop(name, None)
            point = next(point for point in plugins.entry_points(plugins.GAMES) if point.name == name)
            plugins.skipped(plugins.GAMES, point, error)
