"""The registry of games: each game's name on the command line, its title and its adapter.

A game's adapter is a module that implements ``sim.contract.GameAdapter`` (where
the column types and helpers every adapter uses live too); the
runner, the commands and the RL interfaces look a game up here by name and ask
its adapter, never its rules. ``register_game`` adds a game (the three built-in
ones below; a test registers a fourth); the adapter is imported and checked
against the contract the first time it is looked up.

A row is a function of its seed, seating and options alone, so how the matches
are split between calls and processes never changes a result.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from sim.contract import check_adapter
from sim.errors import GameInputError


@dataclass(frozen=True)
class Game:
    """One registered game: its name on the command line, its title and its adapter module."""

    name: str
    title: str
    adapter: str  # module path of the adapter (a sim.contract.GameAdapter)
    bare_run_ids: bool = False  # at its default options, a run id names neither the game nor its options


GAMES: dict[str, Game] = {}
DEFAULT_GAME = "knorri"


def register_game(name: str, title: str, adapter: str, *, bare_run_ids: bool = False) -> Game:
    """Add a game under ``name`` (the ``--game`` word); its adapter is checked against the contract on first use.

    ``bare_run_ids`` is for a game whose run ids predate the config's ``game`` and ``options`` keys (Knorri's):
    at its default options its runs keep those ids, the keys left out (``RunConfig.identity``). One game at
    most (two would share ids); a new game leaves it off, so its ids name it.

    A game's own agents register themselves with ``agents.base.register(name, game=...)`` when their module is
    imported (``import agents`` imports the built-in games' agents).
    """
    entry = Game(name, title, adapter, bare_run_ids)
    if name in GAMES and GAMES[name] != entry:
        raise GameInputError(f"game {name!r} is already registered (as {GAMES[name].adapter})")
    bare = [other.name for other in GAMES.values() if other.bare_run_ids and other.name != name]
    if bare_run_ids and bare:
        raise GameInputError(f"game {name!r}: only one game's run ids leave the game out, and {bare[0]}'s do")
    GAMES[name] = entry
    return entry


register_game("knorri", "Knorri", "sim.knorri.adapter", bare_run_ids=True)  # ids from before the registry
register_game("knockout-whist", "Knockout Whist", "sim.knockout_whist.adapter")
register_game("kort", "Kort", "sim.kort.adapter")


def game(name: str) -> Game:
    """The game called ``name``; an unknown name is one ``GameInputError`` line listing the games."""
    if name not in GAMES:
        raise GameInputError(f"unknown game {name!r}: the games are {', '.join(GAMES)}")
    return GAMES[name]


def adapter(name: str) -> ModuleType:
    """The adapter of the game called ``name``, checked against ``sim.contract.GameAdapter`` on first use."""
    module = importlib.import_module(game(name).adapter)
    if module.__name__ not in _CHECKED:
        check_adapter(name, module)
        _CHECKED.add(module.__name__)
    return module


_CHECKED: set[str] = set()
