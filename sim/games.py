"""The registry of games: each game's name on the command line, its title and its adapter.

A game's adapter is a module that implements ``sim.contract.GameAdapter``; the
runner, the commands and the RL interfaces look a game up here by name and ask
its adapter, never its rules. ``register_game`` adds a game (the three built-in
ones below; a test registers a fourth); the adapter is imported and checked
against the contract the first time it is looked up.

A row is a function of its seed, seating and options alone, so how the matches
are split between calls and processes never changes a result.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from sim.errors import GameInputError
from sim.rng import GOLDEN_GAMMA


@dataclass(frozen=True)
class Game:
    """One registered game: its name on the command line, its title and its adapter module."""

    name: str
    title: str
    adapter: str  # module path of the adapter (a sim.contract.GameAdapter)


GAMES: dict[str, Game] = {}
DEFAULT_GAME = "knorri"


def register_game(name: str, title: str, adapter: str) -> Game:
    """Add a game under ``name`` (the ``--game`` word); its adapter is checked against the contract on first use.

    A game's own agents register themselves with ``agents.base.register(name, game=...)`` when their module is
    imported (``import agents`` imports the built-in games' agents).
    """
    if name in GAMES and GAMES[name] != Game(name, title, adapter):
        raise GameInputError(f"game {name!r} is already registered (as {GAMES[name].adapter})")
    GAMES[name] = Game(name, title, adapter)
    return GAMES[name]


register_game("knorri", "Knorri", "sim.knorri.simulate")
register_game("knockout-whist", "Knockout Whist", "sim.knockout_whist.simulate")
register_game("kort", "Kort", "sim.kort.simulate")


def game(name: str) -> Game:
    """The game called ``name``; an unknown name is one ``GameInputError`` line listing the games."""
    if name not in GAMES:
        raise GameInputError(f"unknown game {name!r}: the games are {', '.join(GAMES)}")
    return GAMES[name]


def adapter(name: str) -> ModuleType:
    """The adapter of the game called ``name``, checked against ``sim.contract.GameAdapter`` on first use."""
    module = importlib.import_module(game(name).adapter)
    if module.__name__ not in _CHECKED:
        from sim.contract import check_adapter

        check_adapter(name, module)
        _CHECKED.add(module.__name__)
    return module


_CHECKED: set[str] = set()


@dataclass(frozen=True)
class ColumnSpec:
    """One column an adapter fills: its name, NumPy dtype, whether it has one value per seat, and meaning."""

    name: str
    dtype: str
    doc: str
    per_seat: bool = False
    nullable: bool = False
    categories: tuple[str, ...] | None = None


@dataclass
class ChunkColumns:
    """What one ``play_matches`` call produced: per-row columns, the extra tables' columns and, if asked,
    per-decision columns.

    ``actions["hand_row"]`` (and ``tables[name]["hand_row"]``) is the row (0-based, within this call)
    each decision (each extra row) belongs to. Masked arrays are written as nulls.
    """

    hands: dict[str, np.ndarray]
    actions: dict[str, np.ndarray] | None = None
    tables: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)


def decision_columns(row: str, phases: str, actions: str, period: ColumnSpec | None = None,
                     step_dtype: str = "uint16") -> tuple[ColumnSpec, ...]:
    """A game's ``ACTION_COLUMNS``: every decision's step in its ``row``, seat, ``period`` (the part of the row it
    came in, if the game has one), ``phase`` (``phases`` says the values) and action id (``actions`` the range).
    ``step_dtype`` is wider for a game whose rows can run past 65,535 decisions (Knorri under a raised cap)."""
    return (
        ColumnSpec("step", step_dtype, f"the decision's place in the {row}, from 0"),
        ColumnSpec("seat", "uint8", "the seat that decided"),
        *((period,) if period else ()),
        ColumnSpec("phase", "uint8", phases),
        ColumnSpec("action", "uint8", actions),
    )


def plural(word: str) -> str:
    """A row's name in the plural, for messages: ``hands``, ``games``, ``matches``."""
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def extra_tables(adapter_module: ModuleType) -> dict[str, tuple[ColumnSpec, ...]]:
    """The tables a game's adapter writes beside the hands table (name -> columns); ``{}`` for most games."""
    return dict(getattr(adapter_module, "EXTRA_TABLES", {}))


class AgentFailure(RuntimeError):
    """An agent raised or chose an illegal action: the message names the agent, seat, seed and action.

    ``row`` is the failing row's place among those played (the runner turns it into ``hand_index``), and
    ``replay`` the ``knorri-sim play`` command that plays the same deal with the same agents; both
    are added to the message when known.
    """

    def __init__(self, message: str, row: int | None = None, replay: str | None = None) -> None:
        super().__init__(message)
        self.message, self.row, self.replay = message, row, replay
        self.hand_index: int | None = None

    def __str__(self) -> str:
        where = "" if self.hand_index is None else f" (hand_index {self.hand_index})"
        return self.message + where + (f"; replay it with: {self.replay}" if self.replay else "")


def derive_seeds(seeds: np.ndarray, step: int | np.ndarray) -> np.ndarray:
    """``sim.rng.derive_seed(seed, step)`` entry by entry over uint64 arrays (or one step), at NumPy speed."""
    steps = np.atleast_1d(np.asarray(step, dtype=np.uint64))  # arrays wrap silently; scalars would warn
    z = np.asarray(seeds, dtype=np.uint64) + np.uint64(GOLDEN_GAMMA) * (steps + np.uint64(1))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def nullable(values: np.ndarray, dtype: str) -> np.ndarray:
    """A masked array of ``dtype`` from floats with NaN for missing: the runner writes masked entries as nulls."""
    missing = np.isnan(values)
    return np.ma.array(np.where(missing, 0, values).astype(dtype), mask=missing)


def places_from_values(values: np.ndarray) -> np.ndarray:
    """Finishing places from a ``[rows, seats]`` array where higher finished ahead: 1 + the seats strictly higher.

    Equal values share a place (the best of those they span), so the places of one row need not be 1..n.
    """
    values = np.asarray(values)
    return 1 + (values[:, None, :] > values[:, :, None]).sum(axis=2)
