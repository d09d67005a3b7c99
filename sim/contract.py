"""The game contract: what a game provides so that every command, the runner and the RL interfaces can play it.

A game is a folder (its rules, its reference engine, optionally a compiled engine)
and one *adapter* module that implements ``GameAdapter``; registering the adapter
(``sim.games.register_game``) is the only line outside the folder. Nothing above
``sim`` knows a game's rules: ``knorri-sim traj``, ``play``, ``bench``, ``run``,
``report`` and ``league`` ask the adapter.

``check_adapter`` checks an adapter against the contract when it is first looked
up, so a game that forgets a name or declares a column wrongly fails at once, in
one line naming what is missing, rather than halfway through a run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, is_dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from sim.errors import GameInputError

if TYPE_CHECKING:
    import random

    from sim.agent import AgentMaker
    from sim.reference_base import ReferenceGame

ROW_UNITS = ("hand", "game", "match")


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: its name, type, default and meaning (``--option NAME=VALUE``, a config's options)."""

    name: str
    kind: type
    default: Any
    doc: str


@dataclass(frozen=True)
class Bench:
    """What ``knorri-sim bench`` times for a game under uniform random play.

    ``steps`` names the per-step rate's unit (``"actions"``, ``"decisions"``) and ``steps_of`` counts them in a
    played reference deal; ``play_compiled(n_seats, seeds, workers, options) -> steps`` plays the seeds' deals
    on the compiled engine under the game's checked ``options`` (``None``: the game has no compiled engine),
    whose measured rows per second on one core at its slowest seat count, ``compiled_rows_per_s``, the runner's
    estimate of a run's time uses. ``reference_hands_per_s``: the hands a CPU second the runner's reference route
    plays with every seat ``random``, at the slowest seat count (``python -m experiments.bench.runner reference``),
    which a run weighs against compiling the engine (``experiments.runner.compiling.cold_routes``).
    """

    seats: tuple[int, ...]
    steps: str
    steps_of: Callable[[ReferenceGame], int]
    default_counts: Mapping[str, int]
    play_compiled: Callable[[int, np.ndarray, int, Mapping[str, Any]], int] | None = None
    compiled_rows_per_s: float | None = None
    reference_hands_per_s: float | None = None


@dataclass(frozen=True)
class LearningFacts:
    """What the RL interfaces (``rl``) need of a game beyond its deals: the tensors, the batch and the bounds.

    ``new_batch(n_seats, deal_seeds, options)`` makes a compiled lockstep batch (``sim.batch_base.CompiledBatch``);
    ``acting_tensor(deal)`` is the seat to move's float32 tensor of a reference deal, the numbers the batch gives;
    ``cut_offs`` (and the batch's ``cut_off_codes``) are end reasons that truncate rather than end;
    ``score_range(n_seats)`` bounds a seat's score and ``max_decisions(n_seats, options)`` one deal's decisions.
    ``resample(deal, seat, rng)``, optional, is a copy of a reference deal that ``seat`` cannot tell from it, the
    cards it has not seen drawn from the ``random.Random`` (``sim/<game>/worlds.py``, with the shared placing in
    ``sim.worlds``): what OpenSpiel's ``resample_from_infostate`` gives and its ISMCTS searches (None: refused).
    """

    num_actions: int
    observation_size: int
    new_batch: Callable[[int, np.ndarray, Mapping[str, Any]], Any]
    acting_tensor: Callable[[ReferenceGame], np.ndarray]
    board: Callable[[ReferenceGame], str]
    cut_offs: tuple[str, ...]
    cut_off_codes: tuple[int, ...]
    score_range: Callable[[int], tuple[float, float]]
    max_decisions: Callable[[int, Mapping[str, Any]], int]
    resample: Callable[[ReferenceGame, int, random.Random], ReferenceGame] | None = None


class GameIdentity(Protocol):
    """Who the game is: its title, the seat counts it is played with, its options."""

    TITLE: str
    """The game's name for people."""
    MIN_SEATS: int
    MAX_SEATS: int
    DEFAULT_SEATS: int
    """The seat counts it is played with, and the one a command uses when none is given."""
    OPTIONS: tuple[OptionSpec, ...]


class GameRows(Protocol):
    """What the runner writes: a row per deal and, with ``--log-actions``, one per decision."""

    ROW: str
    """What one row of the hands table is: ``hand``, ``game`` or ``match``."""
    MATCH_HANDS: tuple[int, ...]
    """The rows a runner match may hold (``(1,)`` for a game whose match is one row)."""
    HAND_COLUMNS: tuple[ColumnSpec, ...]
    ACTION_COLUMNS: tuple[ColumnSpec, ...]


class GameSummary(Protocol):
    """What the manifest and the summary say of a run, in the game's words."""

    ID_DOCS: Mapping[str, str]
    """The runner's identifier columns explained in this game's words, where they differ."""
    SEED_DERIVATION: str
    """How a row's seed comes from its match seed (the manifest quotes it)."""
    OUTCOME: tuple[str, str]
    """The column the summary's rate counts and the rate's name, e.g. ``("loser", "loss rate")``."""
    SUMMARY_REASONS: tuple[str, ...]
    """The ``end_reason`` values whose shares the summary shows."""
    END_REASON_DOCS: Mapping[str, str]
    """Every ``end_reason`` value in a few words, for the summary's legend (empty: the game has no such column); a
    meaning may name an option in braces (``{cap:,}``), which the legend fills with its run's value
    (``end_reason_meanings``)."""
    CUT_OFFS: tuple[str, ...]
    """The ``end_reason`` values that cut a row off (a table rule stopped it) rather than end it by the game's own
    rules: the RL interfaces' truncations and what ``knorri-sim cutoffs`` studies (empty: the game never cuts off)."""
    PLACE_COLUMNS: tuple[str, ...]
    """The per-seat columns ``finishing_places`` reads."""


class GameEngines(Protocol):
    """The compiled engine, as the runner's routes (``experiments.runner.routes``) use it."""

    ENGINE_POLICIES: tuple[str, ...]
    """The bare specs ``play_matches`` plays on the engine's own compiled policies (empty without an engine)."""
    COMPILED_CODE: Mapping[str, float]
    """The compiled engine's modules, each with the CPU seconds compiling it takes on first use."""
    COMPILED_LOGS_ACTIONS: bool
    """Whether the compiled engine keeps an action log."""
    BATCH_POLICIES: Mapping[str, int] | None
    """The specs a batch engine's policies play beside vectorised agents (None: no batch engine)."""


def batch_code(adapter: Any) -> dict[str, float]:
    """The batch engine's modules a game's ``adapter`` declares (``BATCH_CODE``), each with its compile seconds;
    ``{}`` for a game without a batch engine or one that declares none (a plug-in's)."""
    return dict(getattr(adapter, "BATCH_CODE", {}))


@runtime_checkable
class GameAdapter(GameIdentity, GameRows, GameSummary, GameEngines, Protocol):
    """Every name a game's adapter module provides (a module satisfies a Protocol by its attributes): the facets
    above, what ``bench`` times and what the RL interfaces need, and the functions below.

    Optionally also ``EXTRA_TABLES`` (tables beside the hands table, name -> ``ColumnSpec`` tuple, filled in
    ``ChunkColumns.tables``); for a game with ``CUT_OFFS``, ``check_continuation(options, continuation)`` and
    ``CONTINUED_COLUMNS`` (a run played on past its cut-offs: ``play_matches``, the lineup player, ``start_batch``
    and ``batch_columns`` then get ``continuation=``, and the hands table those columns);
    ``start_batch``/``batch_columns`` (with ``BATCH_POLICIES``) and ``lineup_columns`` (the columns a compiled
    lineup player of the game's agents builds); with a batch engine, ``BATCH_CODE``: its modules, each with the CPU
    seconds compiling it takes on first use, as ``COMPILED_CODE`` gives the engine's (``batch_code``).
    """

    BENCH: Bench
    """What ``knorri-sim bench`` times."""
    LEARNING: LearningFacts | None
    """What the RL interfaces need (None: the game is not offered there)."""

    def check_options(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The options (values may be strings, as typed), checked and completed with defaults; else one line."""

    def seat_teams(self, n_seats: int) -> tuple[int, ...]:
        """The team of each seat (every seat its own team in a game without partners)."""

    def score_range(self, n_seats: int) -> tuple[float, float]:
        """The worst and the best score one seat can have in one row at ``n_seats`` seats (the summary quotes
        them, so a reader knows what a mean score is out of; the RL interfaces' bounds are the same)."""

    def finishing_places(self, columns: Mapping[str, np.ndarray]) -> np.ndarray:
        """``[rows, seats]`` places (1 first, ties share the best) from the ``PLACE_COLUMNS``."""

    def action_text(self, action: int) -> str:
        """An action id in words, for messages."""

    def deal(self, n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
             previous: ReferenceGame | None = None) -> ReferenceGame:
        """The reference engine's deal for ``seed``.

        ``first`` is the opening seat, where the game lets one choose; ``previous`` is the row before in a match,
        played out (a match's row ``k`` is dealt from ``derive_seed(match_seed, k)``, as the runner deals it).
        """

    def conformance_lines(self, n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                          engine: str) -> list[str]:
        """The conformance protocol's line for each seed, from the ``reference`` or ``compiled`` engine (``traj``
        hands over a long range a bounded batch of seeds at a time)."""

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One log event as a line for people."""

    def describe_end(self, deal: ReferenceGame) -> str:
        """How a finished deal ended, as a line for people."""

    def play_matches(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]],
                     match_hands: int = 1, log_actions: bool = False, options: Mapping[str, Any] | None = None,
                     make_agent: AgentMaker | None = None, *, engine: str) -> ChunkColumns:
        """Play one match per seed, ``seatings[i]`` at the table, returning every declared column, on the engine
        the caller names: ``reference`` with the agents ``make_agent`` builds, or ``compiled`` on the engine's own
        policies (refused for a lineup not all of ``ENGINE_POLICIES``); an agent's failure is one ``AgentFailure``.
        The caller has decided both: ``engine`` is the run plan's choice (``auto`` is resolved there, never here),
        and ``n_seats`` is in the game's range (``check_seats``, checked once), so the adapter checks neither again."""


def check_adapter(name: str, adapter: ModuleType | Any) -> None:
    """Refuse, in one ``GameInputError`` line, an adapter that misses a name of the contract or declares one wrongly.

    Checked: every name ``GameAdapter`` lists is there and callable where it is a function; the seat range,
    row unit, match lengths, options and columns are well formed.
    """
    missing = [attribute for attribute in _contract_names() if not hasattr(adapter, attribute)]
    if missing:
        raise GameInputError(f"game {name!r}: its adapter lacks {', '.join(missing)} (see sim.contract.GameAdapter)")
    not_callable = [attribute for attribute in _contract_functions() if not callable(getattr(adapter, attribute))]
    if not_callable:
        raise GameInputError(f"game {name!r}: {', '.join(not_callable)} must be functions")
    problems = []
    if not 1 <= adapter.MIN_SEATS <= adapter.DEFAULT_SEATS <= adapter.MAX_SEATS:
        problems.append("MIN_SEATS <= DEFAULT_SEATS <= MAX_SEATS must hold, from 1")
    if adapter.ROW not in ROW_UNITS:
        problems.append(f"ROW must be one of {', '.join(ROW_UNITS)}")
    if not adapter.MATCH_HANDS or any(not isinstance(n, int) or n < 1 for n in adapter.MATCH_HANDS):
        problems.append("MATCH_HANDS must be positive whole numbers")
    if not all(isinstance(option, OptionSpec) for option in adapter.OPTIONS):
        problems.append("OPTIONS must hold OptionSpec entries")
    tables = [adapter.HAND_COLUMNS, adapter.ACTION_COLUMNS, *dict(getattr(adapter, "EXTRA_TABLES", {})).values()]
    if not all(isinstance(column, ColumnSpec) for table in tables for column in table):
        problems.append("HAND_COLUMNS, ACTION_COLUMNS and EXTRA_TABLES must hold ColumnSpec entries")
    declared = {column.name for column in adapter.HAND_COLUMNS}
    if adapter.OUTCOME[0] not in declared or not set(adapter.PLACE_COLUMNS) <= declared:
        problems.append("OUTCOME's column and PLACE_COLUMNS must be HAND_COLUMNS")
    if not isinstance(adapter.BENCH, Bench) or not all(
            adapter.MIN_SEATS <= n <= adapter.MAX_SEATS for n in adapter.BENCH.seats):
        problems.append("BENCH must be a Bench whose seats the game is played with")
    if adapter.BATCH_POLICIES is not None and not all(callable(getattr(adapter, name, None))
                                                      for name in ("start_batch", "batch_columns")):
        problems.append("a game with BATCH_POLICIES gives start_batch and batch_columns")
    if adapter.ENGINE_POLICIES and not has_compiled_engine(adapter):
        problems.append("ENGINE_POLICIES need a compiled engine (BENCH.play_compiled)")
    reasons = next((column.categories for column in adapter.HAND_COLUMNS if column.name == "end_reason"), ()) or ()
    if set(adapter.END_REASON_DOCS) != set(reasons):
        problems.append("END_REASON_DOCS must explain every end_reason category, and only those")
    try:
        end_reason_meanings(adapter)
    except (KeyError, IndexError, ValueError):
        problems.append("END_REASON_DOCS may name only the game's options in braces")
    if adapter.CUT_OFFS and not (callable(getattr(adapter, "check_continuation", None))
                                 and getattr(adapter, "CONTINUED_COLUMNS", None)):
        problems.append("a game with CUT_OFFS gives check_continuation and CONTINUED_COLUMNS (a row played on past "
                        "its cut-off: --continue-past-cutoff)")
    given = [name for name in DOCS_NAMES if hasattr(adapter, name)]
    if given and (len(given) < len(DOCS_NAMES) or not is_dataclass(adapter.OBSERVATION)
                  or not isinstance(adapter.ACTION_DOCS, str)):
        problems.append("OBSERVATION (the observation dataclass) and ACTION_DOCS (its action ids in words) go "
                        "together (see sim.contract.GameDocs)")
    if adapter.LEARNING is not None and not isinstance(adapter.LEARNING, LearningFacts):
        problems.append("LEARNING must be a LearningFacts or None")
    elif adapter.LEARNING is not None and adapter.LEARNING.resample is not None \
            and not callable(adapter.LEARNING.resample):
        problems.append("LEARNING.resample must be a function or None")
    if problems:
        raise GameInputError(f"game {name!r}: " + "; ".join(problems))


def _contract_names() -> list[str]:
    facets = [cls for cls in GameAdapter.__mro__ if cls.__module__ == __name__]  # GameAdapter, then its facets
    return [name for facet in [*facets[1:], facets[0]] for name in vars(facet).get("__annotations__", {})] + \
        _contract_functions()


def _contract_functions() -> list[str]:
    return [attribute for attribute, value in vars(GameAdapter).items()
            if callable(value) and not attribute.startswith("_")]


def end_reason_meanings(adapter: GameAdapter | ModuleType, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Each end reason's meaning (``END_REASON_DOCS``) with the options it names in braces filled in: the run's
    ``options`` (so a cap=20000 run's legend says 20,000, not the default), else the game's defaults."""
    values = {**adapter.check_options({}), **(options or {})}
    return {name: meaning.format(**values) for name, meaning in adapter.END_REASON_DOCS.items()}


def check_seats(adapter: GameAdapter | ModuleType, n_seats: int) -> int:
    """``n_seats`` if the game is played with that many seats; otherwise one line saying which counts it takes.

    The one seat check of every command, config table and RL env: done once where the seat count comes in,
    not again by the adapter's ``play_matches`` (an engine's constructor still guards itself)."""
    low, high = adapter.MIN_SEATS, adapter.MAX_SEATS
    if not isinstance(n_seats, (int, np.integer)) or isinstance(n_seats, bool) or not low <= n_seats <= high:
        allowed = f"always played by {low} seats" if low == high else f"for {low} to {high} seats"
        raise GameInputError(f"{adapter.TITLE} is {allowed}, not {n_seats}")
    return int(n_seats)


def option_specs(options_class: type, docs: Mapping[str, str], skip: Sequence[str] = ()) -> tuple[OptionSpec, ...]:
    """``OPTIONS`` read off a game's options dataclass: each field's name, type and default, with its meaning."""
    from dataclasses import MISSING, fields

    return tuple(OptionSpec(field.name, type(field.default), field.default, docs[field.name])
                 for field in fields(options_class) if field.name not in skip and field.default is not MISSING)


def no_first_seat(title: str, who_opens: str, first: int | None) -> None:
    """Refuse ``first`` (``--first``) for a game whose opening seat is fixed by its rules; ``who_opens`` says who."""
    if first is not None:
        raise GameInputError(f"{title} has no choice of first seat: {who_opens}")


def has_compiled_engine(adapter: GameAdapter | ModuleType) -> bool:
    """Whether the game has a compiled engine (its ``BENCH`` says how to play on it)."""
    return adapter.BENCH.play_compiled is not None


# ----- the columns an adapter writes, and the helpers every adapter uses to fill them ---------------------


@dataclass(frozen=True)
class ColumnSpec:
    """One column an adapter fills: its name, NumPy dtype, whether it has one value per seat, and meaning.

    A column that holds a number (a count, an index, a seat, a score) is a signed integer, int32 for a count or
    int64 for one that grows with the run, so a difference of two is always safe: an unsigned ``b - a`` below
    zero wraps round to 4,294,967,... in NumPy and pandas. Unsigned types are for bit patterns alone, never
    subtracted: seeds and card sets (uint64), seat masks and CRC-32 checksums."""

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


def decision_columns(row: str, phases: str, actions: str, period: ColumnSpec | None = None) -> tuple[ColumnSpec, ...]:
    """A game's ``ACTION_COLUMNS``: every decision's step in its ``row`` (int32: a row may run to a million decisions,
    Knorri's under its largest cap), seat, ``period`` (the part of the row it came in, if the game has one),
    ``phase`` (``phases`` says the values) and action id (``actions`` the range); signed, as every number of a run
    is (``ColumnSpec``), the small ids int16."""
    return (
        ColumnSpec("step", "int32", f"the decision's place in the {row}, from 0"),
        ColumnSpec("seat", "int16", "the seat that decided"),
        *((period,) if period else ()),
        ColumnSpec("phase", "int16", phases),
        ColumnSpec("action", "int16", actions),
    )



def decision_totals(taken: str) -> tuple[ColumnSpec, ColumnSpec]:
    """A hands table's ``decisions`` (how many were taken; ``taken`` says which kinds) and ``decisions_crc32``
    (the CRC-32 of their action ids, which the conformance protocol checks) columns."""
    return (
        ColumnSpec("decisions", "int32", f"decisions taken ({taken})"),
        ColumnSpec("decisions_crc32", "uint32", "CRC-32 of the decisions' action ids, one byte each, in order "
                   "(as in the conformance protocol)"),
    )

def plural(word: str, count: int | None = None) -> str:
    """A row's name in the plural, for messages: ``hands``, ``games``, ``matches``; given a ``count`` of one, the
    word as it is (``1 replay``, ``2 replays``)."""
    if count == 1:
        return word
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def extra_tables(adapter_module: ModuleType) -> dict[str, tuple[ColumnSpec, ...]]:
    """The tables a game's adapter writes beside the hands table (name -> columns); ``{}`` for most games."""
    return dict(getattr(adapter_module, "EXTRA_TABLES", {}))


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


# ----- the render facet: a position drawn as SVG, for notebooks and the replay page --------------------------------


class GameRender(Protocol):
    """How a game draws a position: what a notebook shows (each engine's ``_repr_svg_``) and ``knorri-sim replay``
    puts in its page, one frame a decision. Optional in an adapter (``renderer`` names a game that lacks it)."""

    def render_svg(self, deal: ReferenceGame, seat: int | None = None, names: Sequence[str] | None = None) -> str:
        """The deal's position as one SVG document drawn in SVG itself (no image files, generic fonts only): the
        whole deal for an analyst, or with ``seat`` only what that seat may know; ``names``, the agents at the
        seats, label each seat's row, and the seat to move has its legal cards marked where they are shown."""

    def repeat_span(self, deal: ReferenceGame, row: Mapping[str, Any] | None = None) -> tuple[int, int] | None:
        """For a finished deal cut off by a repeated position, the two equal positions as decisions taken (0 is
        the deal), read from the run's ``row`` where given; None for any other deal."""


RENDER_FUNCTIONS = ("render_svg", "repeat_span")


def renderer(adapter: GameAdapter | ModuleType) -> GameRender:
    """The adapter as a ``GameRender``; one ``GameInputError`` line for a game that draws no positions."""
    missing = [name for name in RENDER_FUNCTIONS if not callable(getattr(adapter, name, None))]
    if missing:
        raise GameInputError(f"{adapter.TITLE} draws no positions: its adapter lacks {', '.join(missing)} "
                             "(see sim.contract.GameRender)")
    return adapter  # type: ignore[return-value]  # a module meets the Protocol by its attributes


# ----- the docs facet: what an agent sees and chooses, for the page of observations ---------------------------------


class GameDocs(Protocol):
    """What an agent of the game is given and chooses from, for ``docs/observations.md`` (written by ``python -m
    experiments.observation_docs``). Optional in an adapter: a game without it is left off the page."""

    OBSERVATION: type
    """The frozen dataclass ``observation(seat)`` gives; its module's ``FIELD_DOCS`` says what each field means."""
    ACTION_DOCS: str
    """The action ids in words (``0-51 a card, ...``)."""


DOCS_NAMES = ("OBSERVATION", "ACTION_DOCS")


def documents_observation(adapter: GameAdapter | ModuleType) -> bool:
    """Whether the game gives the docs facet (``GameDocs``), so that the page of observations shows it."""
    return all(hasattr(adapter, name) for name in DOCS_NAMES)
