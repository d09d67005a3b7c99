"""The games the harness plays, each named once, and the interface a game's runner adapter provides.

The runner (``experiments/runner``) never knows a game's rules: it looks the
config's ``game`` up here, imports that game's adapter module and calls it.
An adapter is a module with these names (``sim.knorri.simulate``,
``sim.knockout_whist.simulate`` and ``sim.kort.simulate`` are the three there are):

- ``TITLE``, ``MIN_SEATS``, ``MAX_SEATS``: the game's name for messages and its seat counts;
- ``ROW``: what one row of the runner's hands table is (``"hand"``, ``"game"`` or ``"match"``; ``plural`` it);
- ``MATCH_HANDS``: the rows a match may have (``(1, 3, 5)``, or ``(1,)`` for a game without matches);
- ``HAND_COLUMNS`` and ``ACTION_COLUMNS``: ``ColumnSpec`` tuples, the columns it fills;
- ``ID_DOCS``: the runner's identifier columns explained for this game (those it words differently);
- ``SEED_DERIVATION``: how a row's seed comes from its match seed (the manifest quotes it);
- ``OUTCOME``: the column the summary's rate counts, and the rate's name (``("loser", "loss rate")``): a
  column holding a seat (a row counts for the seat it names) or a per-seat bool column (it counts where true);
- ``SUMMARY_REASONS``: the ``end_reason`` values whose shares the summary shows;
- ``action_text(action) -> str``: an action id in words, for a failing agent's message;
- ``check_options(options) -> dict``: the options, checked and complete (``{}`` for a game without any);
- ``check_lineup(n_seats, specs, options)``: refuse options, a seat count or a lineup's length in one line (the
  runner checks that each spec makes an agent);
- ``ENGINE_POLICIES``, ``COMPILED_CODE`` and ``COMPILED_LOGS_ACTIONS``: the bare specs the compiled engine's own
  policies play, its modules of compiled code with the CPU seconds compiling them takes on first use (a run says
  so, and compiles them once before starting its workers), and whether it can keep an action log;
- ``play_matches(n_seats, match_seeds, seatings, match_hands, log_actions, options, make_agent, engine)
  -> ChunkColumns``: play one match per seed and return every column as arrays, raising ``AgentFailure`` when an
  agent fails: on the reference engine with the agents ``make_agent`` (an ``sim.agent.AgentMaker``) builds, or
  (``engine`` ``compiled``, or ``auto`` for a lineup of ``ENGINE_POLICIES``) on the engine's own policies;
- ``lineup_columns(n_seats, match_seeds, match_hands, log_actions, [options,] play_rows) -> ChunkColumns``: the
  columns of matches a compiled lineup player of the game's agents plays (``play_rows`` returns the compiled
  engine's rows; ``agents.base.register_lineup``);
- ``seat_teams(n_seats) -> tuple[int, ...]``: the team (0, 1, ...) of each seat, every seat its own team in a
  game without partners (Kort: seats 0 and 2 against 1 and 3); a balanced seating (``assign = balanced``) seats
  one agent per team, and a rating rates teams;
- ``PLACE_COLUMNS`` and ``finishing_places(columns) -> array``: the per-seat hand columns a row's finishing order
  needs, and the places they give: ``columns`` maps each name to a ``[rows, seats]`` array, the answer is a
  ``[rows, seats]`` int array, 1 for first, seats that finished together sharing the best of their places
  (``places_from_values`` turns a per-seat "higher finished ahead" column into places);
- ``BATCH_POLICIES``, ``start_batch`` and ``batch_columns``: the hook the runner plays vectorised agents
  (``act_batch``) with, on the game's compiled batch engine (``experiments.runner.batch_agents``).
  ``BATCH_POLICIES`` maps the bare specs the batch's compiled policies play (``random``, ``greedy``) to
  their ids; ``start_batch(n_seats, seeds, previous, options)`` makes deal k of every match played as a
  ``CompiledBatch`` (``previous``: deal k - 1's batch, played out, for what carries over, as Knorri's first
  seat); ``batch_columns(n_seats, seeds, batches, options)`` turns the played-out batches (``seeds[k]``
  dealt deal k) into ``ChunkColumns`` equal to the reference path's;
- optionally ``EXTRA_TABLES``: tables beside the hands table whose rows belong to one of its rows, any number
  each (Kort's rounds), as name -> ``ColumnSpec`` tuple; ``play_matches`` fills them in ``ChunkColumns.tables``
  (``extra_tables`` reads the names, ``{}`` for a game without any).

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
    """One game: its name on the command line, its title, its runner adapter and its built-in agents' module."""

    name: str
    title: str
    adapter: str  # module path of the runner adapter
    agents: str  # module whose import registers the game's built-in agents


GAMES: dict[str, Game] = {
    "knorri": Game("knorri", "Knorri", "sim.knorri.simulate", "agents"),
    "knockout-whist": Game("knockout-whist", "Knockout Whist", "sim.knockout_whist.simulate", "agents.knockout_whist"),
    "kort": Game("kort", "Kort", "sim.kort.simulate", "agents"),
}
DEFAULT_GAME = "knorri"


def game(name: str) -> Game:
    """The game called ``name``; an unknown name is one ``GameInputError`` line listing the games."""
    if name not in GAMES:
        raise GameInputError(f"unknown game {name!r}: the games are {', '.join(GAMES)}")
    return GAMES[name]


def adapter(name: str) -> ModuleType:
    """The runner adapter module of the game called ``name`` (see the module docstring for what it provides)."""
    return importlib.import_module(game(name).adapter)


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
