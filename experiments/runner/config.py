"""An experiment's definition: what to play, read from a TOML/YAML file and command-line options.

Everything here is checked before anything is written, and every mistake is one
``UsageError`` line saying what was wrong and what is allowed.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Self

from agents.base import AgentSpec, resolve_spec
from agents.lineup import LineupError, cycle_to_seats, fill_seats, split_agent_specs
from experiments.errors import ConfigError
from sim import games
from sim.contract import check_seats
from sim.engine_words import AUTO, engine_word
from sim.errors import GameInputError

ASSIGN_MODES = ("fixed", "rotate", "permute", "balanced", "duel")
MATCH_HANDS = (1, 3, 5)  # the most any game allows; each game's adapter says which it takes
CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
DEFAULT_CONFIG = CONFIG_DIR / "default.toml"

# Keys a config file may hold; "tables" is a list of {seats, agents, assign}, "options" a table of name = value.
RUN_KEYS = ("game", "options", "seed", "hands", "matches", "match_hands", "assign", "seats", "agents", "tables",
            "workers", "out", "scheduler", "log_actions", "chunk_hands", "name", "decision_timeout", "engine",
            "continue_past_cutoff", "lineups")
DECISION_TIMEOUT = 60.0  # seconds a Python agent may take over one decision, unless the config says otherwise
# "lineups" says what the config seats at other seat counts (``lineup_at_seats``): not in the RunConfig or run id.
# Keys that say where and how a run goes, not what it plays: not in its run id, and free to change on --resume.
PLACE_KEYS = ("workers", "out", "scheduler", "name", "decision_timeout", "engine")  # every engine gives the same rows
TABLE_KEYS = ("seats", "agents", "assign")


@dataclass(frozen=True)
class TableConfig:
    """One table of the experiment: a seat count, a lineup (a spec per seat) and how seats are assigned.

    With ``assign = "balanced"`` the lineup is a pool of different specs, any number of them, that
    ``experiments.runner.plan.balanced_seatings`` seats (as ``knorri-sim league`` does); with ``assign = "duel"``
    it is A, B and a spec for each seat outside seat 0's team, that ``experiments.runner.plan.duel_design`` seats
    (as ``knorri-sim duel`` does).
    """

    seats: int
    agents: tuple[str, ...]
    assign: str = "fixed"


_ADAPTER = "_adapter"  # where a HoldsAdapter record keeps its adapter, beside its fields


class HoldsAdapter:
    """A frozen record of a game, by name (its ``game`` field), that looks the game's adapter up at most once.

    The adapter is looked up when first asked for, or handed over by whoever looked it up already
    (``with_adapter``); ``replaced`` copies keep it. A pickled copy leaves it out (a module is not pickled),
    so a worker process that receives one looks it up once itself.
    """

    @property
    def adapter(self) -> ModuleType:
        """The game's adapter, looked up once per record (and again in a worker that receives a copy)."""
        if _ADAPTER not in self.__dict__:
            self.__dict__[_ADAPTER] = games.adapter(self.game)
        return self.__dict__[_ADAPTER]

    def with_adapter(self, adapter: ModuleType) -> Self:
        """This record, holding ``adapter``: the adapter of its game that the caller looked up already."""
        self.__dict__[_ADAPTER] = adapter
        return self

    def replaced(self, **changes: Any) -> Self:
        """``dataclasses.replace``, keeping the adapter this record holds (unless the game changes)."""
        copy = replace(self, **changes)
        if _ADAPTER in self.__dict__ and copy.game == self.game:
            copy.__dict__[_ADAPTER] = self.__dict__[_ADAPTER]
        return copy

    def __getstate__(self) -> dict[str, Any]:
        """What a pickled copy holds: every field, not the adapter."""
        return {key: value for key, value in self.__dict__.items() if key != _ADAPTER}


@dataclass(frozen=True)
class RunConfig(HoldsAdapter):
    """A whole experiment. ``hands`` or ``matches`` counts per table, before rounding to whole duplicate sets.

    ``hands`` counts rows: Knorri hands, or whole games for a game whose row is a game.
    ``options`` are the game's options, checked and complete (for Knorri its cut-offs, ``cap`` and ``repeat``).
    ``continuation`` is the rules a row the game's cut-offs stop plays on under (``--continue-past-cutoff``,
    checked by the adapter's ``check_continuation``), or None.
    """

    tables: tuple[TableConfig, ...]
    game: str = games.DEFAULT_GAME
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    hands: int | None = None
    matches: int | None = None
    match_hands: int = 1
    log_actions: bool = False
    chunk_hands: int | None = None
    name: str = "experiment"
    workers: int | None = None
    out: str | None = None
    scheduler: str | None = None
    decision_timeout: float = DECISION_TIMEOUT
    engine: str = AUTO  # a word of sim.engine_words: the route's choice (routes.choose_route)
    continuation: dict[str, Any] | None = None

    def identity(self) -> dict[str, Any]:
        """What defines the rows: everything except where and how it runs (workers, out, scheduler, ...)."""
        data = asdict(self)
        for key in PLACE_KEYS:
            data.pop(key)
        if self.continuation is None:
            data.pop("continuation")  # a run that continues nothing keeps the run id it had before the key existed
        if games.game(self.game).bare_run_ids and self.options in ({}, self.adapter.check_options({})):
            data.pop("game")  # the game's run ids predate the game key and its options (the registry says so):
            data.pop("options")  # at the default rules they stay as they were; other options give other ids
        return data

    def run_id(self) -> str:
        """A short hash of ``identity()``: two runs with equal ids write equal rows."""
        blob = json.dumps(self.identity(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """The config as plain JSON data (as the manifest stores it)."""
        return asdict(self)


def default_options(game: str) -> dict[str, Any]:
    """The options a game plays with when none are given (its ``check_options({})``)."""
    return games.adapter(game).check_options({})


def option_settings(settings: list[str], flag: str = "--option") -> dict[str, str]:
    """``--option name=value`` settings (or another ``flag``'s) as a mapping (the game's adapter checks names and
    values)."""
    parsed = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{flag} is written name=value, not {setting!r}")
        parsed[name.strip()] = value.strip()
    return parsed


def default_config(game: str) -> Path:
    """The experiment file a game runs with no ``--config``: ``default.toml`` for Knorri, ``<game>.toml`` otherwise."""
    if game == games.DEFAULT_GAME:
        return DEFAULT_CONFIG
    return CONFIG_DIR / f"{game.replace('-', '_')}.toml"


def default_experiment(game: str) -> dict[str, Any]:
    """What ``knorri-sim run --game GAME`` plays with no ``--config``: the game's experiment file where it has one,
    else random agents at its default seat count, every rotation, 1,000 rows."""
    path = default_config(game)
    if path.exists():
        return load_file(path)
    return {"name": game, "game": game, "seed": 0, "seats": games.adapter(game).DEFAULT_SEATS, "agents": ["random"],
            "assign": "rotate", "hands": 1000}


def game_adapter(name: Any, where: str = "config") -> ModuleType:
    """The runner adapter of the game called ``name``, or one ``ConfigError`` line naming the games."""
    check_game(name, where)
    try:
        return games.adapter(name)
    except GameInputError as error:
        raise ConfigError(f"{where}: {error}") from None


def check_game(name: Any, where: str = "config") -> None:
    """Refuse, in one ``ConfigError`` line naming the games, a name no game is registered under; the adapter is
    not looked up (``build_config`` does that, once)."""
    if not isinstance(name, str):
        raise ConfigError(f"{where}: game must be one of {', '.join(games.names())}, not {name!r}")
    try:
        games.game(name)
    except GameInputError as error:
        raise ConfigError(f"{where}: {error}") from None


CONFIG_SUFFIXES = (".toml", ".yaml", ".yml")


def shipped_configs() -> dict[str, Path]:
    """The experiment files installed with the package (``experiments/configs/``), by name (the file's stem)."""
    return {path.stem: path for path in sorted(CONFIG_DIR.iterdir()) if path.suffix in CONFIG_SUFFIXES}


def config_summary(path: Path) -> str:
    """A shipped config's opening comment up to its first full stop: what the experiment plays."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        words.append(line.lstrip("# ").strip())
    text = " ".join(words)
    end = text.find(". ")
    return text if end < 0 else text[:end + 1]


def config_path(text: str | Path) -> Path:
    """The config file ``--config`` names: a file's path, else a shipped config's name (``seat_counts``)."""
    path = Path(text)
    if path.is_file():
        return path
    shipped = shipped_configs()
    if path.stem in shipped and path.name in (path.stem, shipped[path.stem].name) and len(path.parts) == 1:
        return shipped[path.stem]
    if path.is_dir():
        raise ConfigError(f"--config {str(path)!r} is a folder, not a config file: give a TOML or YAML file, or one "
                          f"of {', '.join(shipped)} (knorri-sim run --list-configs)")
    raise ConfigError(f"config file {str(path)!r} does not exist, and no shipped config has that name: give a file, "
                      f"or one of {', '.join(shipped)} (knorri-sim run --list-configs)")


def load_file(path: str | Path) -> dict[str, Any]:
    """The raw keys of a TOML (``.toml``) or YAML (``.yaml``/``.yml``) config file, by path or shipped name."""
    path = config_path(path)
    if path.suffix not in CONFIG_SUFFIXES:
        raise ConfigError(f"config file {str(path)!r}: use a .toml, .yaml or .yml file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"config file {str(path)!r} is not UTF-8 text (byte {error.start}): save it as UTF-8") \
            from None
    except OSError as error:
        raise ConfigError(f"config file {str(path)!r} cannot be read: {error.strerror}") from None
    try:
        if path.suffix == ".toml":
            data = tomllib.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text) or {}
    except (tomllib.TOMLDecodeError, ValueError) as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"config file {str(path)!r} is not valid: {_one_line(error)}") from None
    except Exception as error:  # yaml.YAMLError and friends
        raise ConfigError(f"config file {str(path)!r} is not valid: {_one_line(error)}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a table of keys, not {type(data).__name__}")
    return data


def build_config(raw: dict[str, Any], where: str = "config") -> RunConfig:
    """Check raw keys (from a file, options merged over it) and build the ``RunConfig``."""
    unknown = sorted(set(raw) - set(RUN_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(RUN_KEYS)}")
    game = raw.get("game", games.DEFAULT_GAME)
    adapter = game_adapter(game, where)
    options = raw.get("options") or {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{where}: options must be a table of name = value, not {options!r}")
    try:
        options = adapter.check_options(options)
    except GameInputError as error:
        raise ConfigError(f"{where}: {error}") from None
    assign = _choice(raw.get("assign", "fixed"), ASSIGN_MODES, "assign", where)
    try:
        tables = _tables(raw, assign, where, adapter, game)
    except LineupError as error:  # a config the runner refuses, like every other key's error
        raise ConfigError(str(error)) from None
    hands, matches = raw.get("hands"), raw.get("matches")
    if hands is not None and matches is not None:
        raise ConfigError(f"{where}: give hands or matches, not both")
    if hands is None and matches is None:
        raise ConfigError(f"{where}: say how much to play: hands = H, or matches = M with match_hands = 1, 3 or 5")
    if hands is not None:
        hands = _positive_int(hands, "hands", where)
    if matches is not None:
        matches = _positive_int(matches, "matches", where)
    if "match_hands" in raw and adapter.MATCH_HANDS == (1,):
        each = "a row is a whole match" if adapter.ROW == "match" else f"its matches are one {adapter.ROW} each"
        raise ConfigError(f"{where}: match_hands (--match-hands) is not for {adapter.TITLE}: {each}")
    match_hands = _choice(raw.get("match_hands", 1), adapter.MATCH_HANDS, "match_hands", where)
    if hands is not None and match_hands != 1:
        raise ConfigError(f"{where}: match_hands goes with matches, not hands")
    seed = _int(raw.get("seed", 0), "seed", where)
    if not 0 <= seed < 2**64:
        raise ConfigError(f"{where}: seed must be 0 to 2**64-1, not {seed}")
    workers = raw.get("workers")
    if workers is not None:
        workers = _positive_int(workers, "workers", where)
    chunk_hands = raw.get("chunk_hands")
    if chunk_hands is not None:
        chunk_hands = _positive_int(chunk_hands, "chunk_hands", where)
    for key in ("out", "scheduler", "name"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise ConfigError(f"{where}: {key} must be a string")
    log_actions = raw.get("log_actions", False)
    if not isinstance(log_actions, bool):
        raise ConfigError(f"{where}: log_actions must be true or false")
    decision_timeout = _seconds(raw.get("decision_timeout", DECISION_TIMEOUT), "decision_timeout", where)
    stated_lineups(raw, adapter, where)
    try:
        engine = engine_word(raw.get("engine", AUTO))
    except GameInputError as error:
        raise ConfigError(f"{where}: {error}") from None
    return RunConfig(
        tables=tables, game=game, options=options, seed=seed, hands=hands, matches=matches, match_hands=match_hands,
        log_actions=log_actions, chunk_hands=chunk_hands, name=raw.get("name") or "experiment",
        workers=workers, out=raw.get("out"), scheduler=raw.get("scheduler"), decision_timeout=decision_timeout,
        engine=engine, continuation=_continuation(raw.get("continue_past_cutoff"), options, adapter, where),
    ).with_adapter(adapter)  # the run's one lookup of its adapter: everything downstream reads config.adapter


def _continuation(value: Any, options: dict[str, Any], adapter: ModuleType, where: str) -> dict[str, Any] | None:
    """The ``continue_past_cutoff`` key (a table of name = value, or ``--continue-past-cutoff`` words), checked by
    the game's adapter; None when absent. A game that never cuts a row off has nothing to continue."""
    if value is None or value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: continue_past_cutoff must be a table of name = value (e.g. repeat = 0, "
                          f"cap = 20000), or true, not {value!r}")
    if not adapter.CUT_OFFS:
        raise ConfigError(f"{where}: {adapter.TITLE} never cuts a {adapter.ROW} off: there is nothing to continue "
                          "past (continue_past_cutoff, --continue-past-cutoff)")
    try:
        return adapter.check_continuation(options, value)
    except GameInputError as error:
        raise ConfigError(f"{where}: {error}") from None


def from_json(data: dict[str, Any]) -> RunConfig:
    """The ``RunConfig`` a manifest stored (the inverse of ``RunConfig.to_json``)."""
    try:
        tables = tuple(TableConfig(t["seats"], tuple(t["agents"]), t["assign"]) for t in data["tables"])
        return replace(RunConfig(tables=tables), **{k: v for k, v in data.items() if k != "tables"})
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ConfigError(f"the manifest's config is not one knorri-sim wrote ({type(error).__name__}: "
                          f"{_one_line(error)})") from None


def _tables(raw: dict[str, Any], assign: str, where: str, adapter: ModuleType, game: str) -> tuple[TableConfig, ...]:
    """Each table of the config, its specs resolved for ``game`` (``agents.base.resolve_spec``): the one place a
    run parses them; everything downstream reads the resolved specs."""
    if "tables" in raw and ("seats" in raw or "agents" in raw):
        raise ConfigError(f"{where}: give either tables or seats and agents, not both")
    if "tables" in raw:
        entries = raw["tables"]
        if not isinstance(entries, list) or not entries:
            raise ConfigError(f"{where}: tables must be a non-empty list of {{seats, agents, assign}}")
    else:
        seats = raw.get("seats", adapter.DEFAULT_SEATS)
        seat_list = seats if isinstance(seats, list) else [seats]
        if not seat_list:
            raise ConfigError(f"{where}: seats must name at least one seat count")
        entries = [{"seats": n, "agents": raw.get("agents", ["random"])} for n in seat_list]
    tables = []
    for index, entry in enumerate(entries):
        label = f"{where}: table {index}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{label} must be a table of keys seats, agents, assign")
        unknown = sorted(set(entry) - set(TABLE_KEYS))
        if unknown:
            raise ConfigError(f"{label}: unknown key {unknown[0]!r}; allowed keys: {', '.join(TABLE_KEYS)}")
        seats = _int(entry.get("seats", adapter.DEFAULT_SEATS), "seats", label)
        try:
            check_seats(adapter, seats)
        except GameInputError as error:
            raise ConfigError(f"{label}: {error}") from None
        agents = entry.get("agents", ["random"])
        if not isinstance(agents, str | list | tuple) or not all(isinstance(a, str) for a in agents):
            raise ConfigError(f"{label}: agents must be a spec string or a list of spec strings, not {agents!r}")
        specs = split_agent_specs(agents, label)
        table_assign = _choice(entry.get("assign", assign), ASSIGN_MODES, "assign", label)
        if table_assign == "balanced":  # the specs are a pool to seat in a balanced design, any number of them
            if len(set(specs)) != len(specs):
                raise ConfigError(f"{label}: assign = balanced seats a pool of different agent specs; "
                                  f"{next(s for s in specs if specs.count(s) > 1)!r} is given twice")
            tables.append(TableConfig(seats, _resolved(specs, game), table_assign))
            continue
        if table_assign == "duel":
            tables.append(TableConfig(seats, _resolved(duel_lineup(specs, seats, adapter, label), game), table_assign))
            continue
        tables.append(TableConfig(seats, _resolved(fill_seats(specs, seats, label), game), table_assign))
    return tuple(tables)


def _resolved(specs: Sequence[str], game: str) -> tuple[AgentSpec, ...]:
    """The specs resolved for ``game``, each distinct one once (its agents made nowhere yet)."""
    resolved = {spec: resolve_spec(spec, game) for spec in dict.fromkeys(specs)}
    return tuple(resolved[spec] for spec in specs)


def stated_lineups(raw: dict[str, Any], adapter: ModuleType, where: str = "config") -> dict[int, list[str]]:
    """A config's ``lineups`` key (seat count = [specs]): the lineup it seats at a count its tables do not play,
    which ``run --seats N`` without ``--agents`` takes; each checked to be a seat count of the game and to fill it."""
    stated = raw.get("lineups") or {}
    if not isinstance(stated, Mapping):
        raise ConfigError(f"{where}: lineups must be a table of seat count = [agent specs], not {stated!r}")
    played = {seats for seats, _, _ in _config_tables(raw, adapter)}
    lineups = {}
    for key, specs in stated.items():
        label = f"{where}: lineups.{key}"
        seats = _int(key, "a seat count", label)
        try:
            check_seats(adapter, seats)
            if isinstance(specs, str) or not isinstance(specs, list | tuple):
                raise ConfigError(f"{label} must be a list of agent specs, not {specs!r}")
            lineups[seats] = fill_seats(split_agent_specs(specs, label), seats, label)
        except (GameInputError, LineupError) as error:
            raise ConfigError(str(error) if isinstance(error, LineupError) else f"{label}: {error}") from None
        if seats in played:
            raise ConfigError(f"{label}: the config's own lineup already plays {seats} seats: state it once")
    return lineups


def lineup_at_seats(raw: dict[str, Any], n_seats: int, adapter: ModuleType,
                    where: str = "config") -> tuple[list[str], str | None, str]:
    """What a config seats at ``n_seats`` when only the seat count is asked for (``run --seats N``): its own lineup
    at that count, else the one its ``lineups`` key states, else its lineup cycled or trimmed to the count. Returns
    the specs, the table's own assign (or None) and how they were found, in words for the notice."""
    for seats, specs, assign in _config_tables(raw, adapter):
        if seats == n_seats:
            return list(specs), assign, "its lineup"
    stated = stated_lineups(raw, adapter, where)
    if n_seats in stated:
        return stated[n_seats], None, f"its lineup for {n_seats} seats"
    seats, specs, assign = _config_tables(raw, adapter)[0]
    if (assign or raw.get("assign")) in ("balanced", "duel"):  # a pool, or A, B and the others: any seat count
        return list(specs), assign, "its lineup"
    change = "trimmed" if len(specs) > n_seats else "cycled"
    return cycle_to_seats(specs, n_seats), assign, f"its {seats}-seat lineup {change} to {n_seats} seats"


def _config_tables(raw: dict[str, Any], adapter: ModuleType) -> list[tuple[Any, list[str], str | None]]:
    """The seat count, specs and own assign of each table a config's raw keys play, as written (unchecked)."""
    if isinstance(raw.get("tables"), list):
        return [(entry.get("seats", adapter.DEFAULT_SEATS), _as_list(entry.get("agents", ["random"])),
                 entry.get("assign")) for entry in raw["tables"] if isinstance(entry, dict)] or \
            [(adapter.DEFAULT_SEATS, ["random"], None)]
    seats = raw.get("seats", adapter.DEFAULT_SEATS)
    specs = _as_list(raw.get("agents", ["random"]))
    return [(n, specs, None) for n in (seats if isinstance(seats, list) else [seats])] or \
        [(adapter.DEFAULT_SEATS, specs, None)]


def _as_list(agents: Any) -> list[str]:
    """A table's agents as a list of specs (a spec string is split as ``--agents`` is)."""
    return split_agent_specs(agents) if isinstance(agents, str) else list(agents)


def duel_lineup(specs: list[str], seats: int, adapter: ModuleType, where: str) -> tuple[str, ...]:
    """A duel table's lineup: A, B, then a spec for each seat outside seat 0's team (one given: it takes them all)."""
    teams = adapter.seat_teams(seats)
    others = sum(1 for team in teams if team != teams[0])
    if len(specs) == 3:
        specs = specs[:2] + specs[2:] * others
    if len(specs) != 2 + others:
        raise ConfigError(f"{where}: assign = duel takes A, B and a spec for each of the {others} other seats (or one "
                          f"for all), not {len(specs)} specs")
    return tuple(specs)


def _int(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, str):
                return int(value)
        except ValueError:
            pass
        raise ConfigError(f"{where}: {key} must be a whole number, not {value!r}")
    return value


def _seconds(value: Any, key: str, where: str) -> float:
    """A finite number of seconds, 0 or more (0: no limit)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConfigError(f"{where}: {key} must be a number of seconds, not {value!r}")
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError(f"{where}: {key} must be a number of seconds, not {value!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"{where}: {key} must be a finite number of seconds, 0 or more (0: no limit), "
                          f"not {value!r}")
    return seconds


def _positive_int(value: Any, key: str, where: str) -> int:
    number = _int(value, key, where)
    if number < 1:
        raise ConfigError(f"{where}: {key} must be at least 1, not {number}")
    return number


def _choice(value: Any, allowed: tuple, key: str, where: str) -> Any:
    if value not in allowed:
        raise ConfigError(f"{where}: {key} must be one of {', '.join(map(str, allowed))}, not {value!r}")
    return value


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
