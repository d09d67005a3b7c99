"""The agent protocol and agent specs.

An agent is made from a spec string and a seed, is told its seat at the start of each hand (or game), and chooses
one action id from an observation and the legal ids. It sees only what its seat may know: the observation, never
the engine's state.

Names are registered per game, so a spec means the right agent for the game being played; ``random`` serves every
game, and a spec by import path (``module.path:Class``) works in any game it was written for. Importing ``agents``
registers every installed game's agents. An agent class with compiled code of its own names its kernels in
``COMPILED_CODE`` (``compiled_code``), and a game whose built-in agents have compiled twins registers a lineup
player (``register_lineup``) that plays whole chunks in compiled code. More in docs/internals.md, ``agents.base``.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sim.agent import Agent, AgentMaker, AgentSpecError
from sim.contract import ChunkColumns
from sim.games import DEFAULT_GAME
from sim.harness import HARNESS_PACKAGES, put_working_directory_last, shadowing_message, working_directory_copy
from sim.rng import SplitMix64

__all__ = ["EVERY_GAME", "Agent", "AgentMaker", "AgentSpec", "AgentSpecError", "LineupPlayer", "RandomAgent",
           "bench_lineups", "compiled_code", "known_agents", "lineup_player", "make_agent", "parse_spec", "register",
           "register_bench_lineups", "register_lineup", "resolve_spec"]


AgentFactory = Callable[..., Agent]
EVERY_GAME = None  # the game of an agent that plays any game through the protocol alone
# game (or EVERY_GAME) -> name -> factory
_REGISTRY: dict[str | None, dict[str, AgentFactory]] = {}


def register(name: str, game: str | None = DEFAULT_GAME) -> Callable[[AgentFactory], AgentFactory]:
    """Make an agent class available under ``name`` in spec strings of ``game`` (``EVERY_GAME``: all games)."""

    def wrap(factory: AgentFactory) -> AgentFactory:
        _REGISTRY.setdefault(game, {})[name] = factory
        return factory

    return wrap


def known_agents(game: str = DEFAULT_GAME) -> list[str]:
    """The agent names registered for ``game`` (its own and those for every game)."""
    return sorted(_names(game))


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and its raw parameters.

    A spec whose second piece has no ``=`` names a class by import path: ``mybot:MyBot``,
    ``mypkg.bots:MyBot:depth=3`` (the name is then ``module:Class``).
    """
    spec = spec.strip()
    if not spec:
        raise AgentSpecError("empty agent spec: give a name such as random, or module.path:ClassName")
    if spec.endswith(":") or "::" in spec:
        raise AgentSpecError(f"agent spec {spec!r}: nothing follows a ':'; write name:key=value,... or "
                             "module.path:ClassName, or leave the ':' out")
    name, params = _split_name(spec)
    parsed: dict[str, str] = {}
    if params:
        for item in params.split(","):
            key, sep, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key or not value:
                raise AgentSpecError(f"agent spec {spec!r}: parameter {item!r} is not key=value")
            parsed[key] = value
    return name, parsed


class AgentSpec(str):
    """A spec resolved once for one game: its text (what rows, manifests and messages show, so it is a ``str``),
    the agent's name, its parameters as typed values and the factory they go to.

    ``resolve_spec`` is the one place a spec's text is parsed; a run resolves every spec when its config is
    built, and everything downstream reads ``name``, ``values`` and ``factory`` from here.
    """

    game: str
    name: str
    values: tuple[tuple[str, Any], ...]  # (key, typed value), as the spec wrote them

    @property
    def params(self) -> dict[str, Any]:
        """The typed parameters by key."""
        return dict(self.values)

    @property
    def factory(self) -> AgentFactory:
        """The class (or callable) that makes the agent: registered under ``name`` for ``game``, or imported."""
        return _lookup(self.name, self, self.game)

    def derived(self, key: Callable[..., Any], compute: Callable[[], Any]) -> Any:
        """``compute()``, worked out once per resolved spec and kept with it under ``key`` (the function that reads
        it): what a game's compiled lineup reads from the spec (its compiled seat), so no chunk derives it again."""
        kept = self.__dict__.setdefault("_derived", {})
        if key not in kept:
            kept[key] = compute()
        return kept[key]


def resolve_spec(spec: str, game: str = DEFAULT_GAME) -> AgentSpec:
    """``spec`` parsed and checked for ``game`` (a known agent, parameters it takes, values of their types, a
    constructor taking ``seed``); an ``AgentSpec`` already resolved for ``game`` is returned as it is."""
    if isinstance(spec, AgentSpec) and spec.game == game:
        return spec
    name, raw = parse_spec(spec)
    factory = _lookup(name, spec, game)
    accepted = getattr(factory, "PARAMETERS", {})
    values = []
    for key, text in raw.items():
        if key not in accepted:
            allowed = ", ".join(sorted(accepted)) or "none"
            raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; its parameters: {allowed}")
        values.append((key, parameter_value(name, key, text, accepted[key])))
    _check_takes_seed(factory, spec)
    resolved = AgentSpec(str(spec).strip())
    resolved.game, resolved.name, resolved.values = game, name, tuple(values)
    return resolved


def make_agent(spec: str, seed: int = 0, game: str = DEFAULT_GAME) -> Agent:
    """Build the agent a spec names for ``game``: a registered name with parameters, or ``module.path:Class``
    (a spec's text is resolved first; an ``AgentSpec`` of the game is used as it is)."""
    spec = resolve_spec(spec, game)
    kwargs = spec.params
    try:
        if "seed" in kwargs:  # a spec's own seed=... reaches the factory as spec_seed; the driver's stays seed
            kwargs["spec_seed"] = kwargs.pop("seed")
        agent = spec.factory(seed=seed, **kwargs)
    except (TypeError, ValueError) as error:
        raise AgentSpecError(f"agent spec {str(spec)!r}: {error}") from None
    if not isinstance(agent, Agent):
        raise AgentSpecError(
            f"{str(spec)!r} does not make an agent: it needs name, reset(seat, n_seats) and act(obs, legal)"
        )
    return agent


def compiled_code(spec: str, game: str = DEFAULT_GAME, batch: bool = False) -> dict[str, float]:
    """The modules of compiled code the agent a spec names runs, each with its measured compile seconds.

    Read from the agent class's optional ``COMPILED_CODE`` (``{"agents.knorri.decision": 21.0}``); ``{}`` for an
    agent in plain Python (a bad spec raises ``AgentSpecError``, as ``make_agent`` would). With ``batch``, the code
    its ``act_batch`` runs on the batch route, where the class declares it apart (``BATCH_COMPILED_CODE``: a module
    ``act`` alone runs, never compiled there, would be announced as uncached at every run).
    """
    factory = resolve_spec(spec, game).factory
    if batch and hasattr(factory, "BATCH_COMPILED_CODE"):
        return dict(factory.BATCH_COMPILED_CODE)
    return dict(getattr(factory, "COMPILED_CODE", {}))


class LineupPlayer(Protocol):
    """Plays a chunk of matches of built-in specs in compiled code, each seat keeping its own agent state.

    ``names`` are the agent names it plays (for messages); ``logs_actions`` whether it can fill the actions
    table. ``play`` takes the arguments of an adapter's ``play_matches`` (less the agent maker) and returns
    the same columns the reference path gives, built with the engine's public functions.
    """

    names: tuple[str, ...]
    logs_actions: bool

    def accepts(self, specs: Sequence[str]) -> bool:
        """Whether it plays a seating (a spec per seat): every spec a built-in agent with a compiled twin."""

    def compiled_code(self, specs: Sequence[str]) -> dict[str, float]:
        """The compiled code it runs for ``specs``, each a module (or ``module:kernel``, for a module whose entry
        points compile apart) with its measured compile seconds."""

    def compile_parts(self, specs: Sequence[str]) -> Sequence[Callable[[], object]]:
        """Parts of that code that compile on their own, each a module function (so that another process can be
        handed it), the biggest first; empty if nothing splits off. A run compiling for the first time hands them
        to its idle workers while it compiles the rest, which then loads them (``sim.compile_cache.compile_ahead``).
        Optional: the runner treats a player without it as having none."""

    def play(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int,
             log_actions: bool, options: dict[str, Any]) -> ChunkColumns:
        """Play one match per seed, ``seatings[i]`` at the table, and return every column of the chunk. A player
        for a game with cut-offs also takes ``continuation=`` (the adapter's ``check_continuation``), which the
        runner passes only to a run continued past its cut-offs."""


_LINEUP_PLAYERS: dict[str, LineupPlayer] = {}  # game -> its compiled lineup player


def register_lineup(game: str, player: LineupPlayer) -> LineupPlayer:
    """Make ``player`` ``game``'s compiled lineup player (its module calls this; importing ``agents`` imports it)."""
    _LINEUP_PLAYERS[game] = player
    return player


def lineup_player(game: str) -> LineupPlayer | None:
    """``game``'s compiled lineup player, or None for a game without one."""
    return _LINEUP_PLAYERS.get(game)


_BENCH_LINEUPS: dict[str, tuple[str, ...]] = {}  # game -> the lineups its agents' package asks to have timed


def register_bench_lineups(game: str, lineups: Sequence[str]) -> tuple[str, ...]:
    """Name the lineups (``--agents`` texts) that ``python -m experiments.bench.lineups`` times for ``game`` by
    default: the game's agents' package calls this beside registering them, since it knows which are worth timing."""
    _BENCH_LINEUPS[game] = tuple(lineups)
    return _BENCH_LINEUPS[game]


def bench_lineups(game: str) -> tuple[str, ...]:
    """The lineups timed for ``game`` by default: those its agents named, else ``random``, which every game plays."""
    return _BENCH_LINEUPS.get(game, ("random",))


TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


LARGEST_INT = (1 << 63) - 1  # an int parameter fits the 64-bit integers compiled agents hold it in


def parameter_value(agent: str, key: str, raw: str, kind: type) -> Any:
    """A spec parameter's text as ``kind`` (``PARAMETERS[key]``); a ``bool`` reads true/false, yes/no, on/off, 1/0."""
    if kind is bool:
        word = raw.lower()
        if word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
        raise AgentSpecError(f"agent {agent!r}: {key}={raw!r} is not a bool: use true or false")
    try:
        value = kind(raw)
    except ValueError:
        raise AgentSpecError(f"agent {agent!r}: {key}={raw!r} is not a valid {kind.__name__}") from None
    if kind is int and not -LARGEST_INT - 1 <= value <= LARGEST_INT:
        raise AgentSpecError(f"agent {agent!r}: {key}={raw} is out of range: an int parameter is at most "
                             f"{LARGEST_INT:,} (a 64-bit integer, as the compiled code holds it)")
    if kind is float and not math.isfinite(value):
        raise AgentSpecError(f"agent {agent!r}: {key}={raw!r} is not a finite number")
    return value


def _check_takes_seed(factory: AgentFactory, spec: str) -> None:
    """Refuse, in one line, an agent class whose constructor has no ``seed`` keyword (the driver always gives one)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: let the call itself say what is wrong
        return
    if not any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        raise AgentSpecError(f"agent spec {spec!r}: its constructor must take a seed keyword, "
                             "e.g. def __init__(self, seed=0): the runner seeds every agent")


class RandomAgent:
    """Uniform over the legal ids: its statistics fingerprint the rules.

    It picks ``legal[next() % len(legal)]`` from a splitmix64 stream, so the
    compiled playouts can make exactly the same choices.
    """

    PARAMETERS: dict[str, type] = {}

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self._stream = SplitMix64(seed)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Nothing to forget; reseed when the driver gives a hand seed."""
        self.seat = seat
        if seed is not None:
            self._stream = SplitMix64(seed)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """A uniformly random legal id."""
        return int(self._stream.choice(legal))


register("random", game=EVERY_GAME)(RandomAgent)


def _split_name(spec: str) -> tuple[str, str]:
    # An import path is module[.path]:Class[:params]; a registered name is name[:key=value,...]. Parameters
    # always hold an "=", a class name never does, so a second piece without "=" is a class.
    head, _, rest = spec.partition(":")
    cls, _, params = rest.partition(":")
    if cls and "=" not in cls:
        return f"{head}:{cls}", params
    return head, rest


def _names(game: str) -> dict[str, AgentFactory]:
    return {**_REGISTRY.get(EVERY_GAME, {}), **_REGISTRY.get(game, {})}


def _lookup(name: str, spec: str, game: str) -> AgentFactory:
    names = _names(game)
    if name in names:
        return names[name]
    if ":" in name:
        module_name, _, attr = name.partition(":")
        if module_name in names:  # e.g. mcts:iters, a registered name with a parameter lacking its value
            raise AgentSpecError(f"agent spec {spec!r}: parameter {attr!r} is not key=value")
        _refuse_a_harness_name(spec, module_name)
        put_working_directory_last()
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # any import failure is the user's spec to fix
            raise AgentSpecError(f"agent spec {spec!r}: cannot import {module_name!r} ({error})") from None
        factory = getattr(module, attr, None)
        if factory is None:
            raise AgentSpecError(f"agent spec {spec!r}: module {module_name!r} has no {attr!r}")
        return factory
    which = "" if game == DEFAULT_GAME else f" for {game}"
    raise AgentSpecError(
        f"unknown agent {name!r}{which}: known agents are {', '.join(sorted(names))}, or module.path:ClassName"
    )


def _refuse_a_harness_name(spec: str, module_name: str) -> None:
    """A spec whose module starts with a harness package's name while the working directory holds a module or
    folder of that name: the harness's package is the one imported, so refuse, naming both paths."""
    top = module_name.partition(".")[0]
    theirs = working_directory_copy(top) if top in HARNESS_PACKAGES else None
    if theirs is not None:
        raise AgentSpecError(f"agent spec {spec!r}: {shadowing_message(top, theirs)}")
