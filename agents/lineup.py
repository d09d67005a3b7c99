"""Lineups as the user writes them, read in one place for every command, config file and RL environment.

``--agents`` (``run``, ``play``, ``replay``, ``bench``, ``league``, ``duel``'s ``--others``), a config's
``agents`` key and an RL environment's ``opponents`` are read here alone: split on ``;`` if the text has one,
else at the commas that start a new spec (a spec's own parameters follow commas too: ``mcts:iters=400,c=1.4``);
an empty piece, or a spec that is not written as a spec (a trailing ``:``), is refused in one line naming it;
and, where a table's seats are known, one spec fills every seat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from types import FunctionType
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.base import Agent, AgentSpec, AgentSpecError, make_agent, parse_spec, resolve_spec
from agents.search_tree import SearchSettings
from sim import config

SYNTAX = ("one agent spec per seat (or one for all), separated by ';' or by commas: a comma piece of the form "
          "key=value belongs to the spec before it, so 'random,mcts:iters=400,c=1.4,greedy' is three specs")
"""How a lineup is written, in one sentence for every command's help: the rule ``split_agent_specs`` reads."""


class LineupError(AgentSpecError):
    """A lineup the user wrote that names no spec in some place, or too few or too many for the seats."""


def split_agent_specs(text: str | Sequence[str], where: str = "--agents") -> list[str]:
    """The specs a lineup names, each checked to be written as a spec; ``where`` names the option or key.

    A string splits on ``;`` if there is one, else on commas that start a new spec: a comma-separated
    piece of the form ``key=value`` (an ``=`` before any ``:``) continues the spec before it, so
    ``random,mcts:iters=400,c=1.4,greedy`` is three specs. A list is taken spec by spec.
    """
    if isinstance(text, str):
        separator = ";" if ";" in text else ","
        pieces = [piece.strip() for piece in text.split(separator)]
        shown = f"{where} {text!r}"
    else:
        separator, pieces, shown = None, [str(piece).strip() for piece in text], where
    if not pieces:
        raise LineupError(f"{where}: name at least one agent spec")
    for number, piece in enumerate(pieces, 1):
        if not piece:
            split = f" (split at {separator!r})" if separator else ""
            between = f"give one spec between each two {separator!r}" if separator else "give a spec in every place"
            raise LineupError(f"{shown}: piece {number} of {len(pieces)}{split} is empty: {between}")
    specs: list[str] = []
    for piece in pieces:
        continues = separator == "," and "=" in piece and ":" not in piece.split("=", 1)[0]
        if continues and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    for spec in specs:
        parse_spec(spec)  # a spec not written as one (``random:``) is refused here, as every command refuses it
    return specs


def fill_seats(specs: Sequence[str], n_seats: int, where: str = "--agents") -> list[str]:
    """One spec per seat: a single spec fills every seat, otherwise there must be exactly one per seat."""
    specs = list(specs) * n_seats if len(specs) == 1 else list(specs)
    if len(specs) != n_seats:
        raise LineupError(f"{where}: {len(specs)} agent specs for {n_seats} seats: give one for every seat, "
                          "or one for all")
    return specs


def cycle_to_seats(specs: Sequence[str], n_seats: int) -> list[str]:
    """A lineup written for another seat count seated at ``n_seats``: its specs in order, cycled from the first when
    there are more seats, trimmed when there are fewer (so a config's lineup plays at any seat count)."""
    if not specs:
        raise LineupError("a lineup to seat names at least one agent spec")
    return [specs[seat % len(specs)] for seat in range(n_seats)]


def parse_lineup(text: str | Sequence[str], n_seats: int, where: str = "--agents") -> list[str]:
    """``split_agent_specs`` then ``fill_seats``: the spec of every seat of an ``n_seats`` table."""
    return fill_seats(split_agent_specs(text, where), n_seats, where)


def compiled_twin(spec: str, game: str, twin_of: Callable[[Agent, AgentSpec], Any]) -> Any:
    """What a game's compiled lineup plays for ``spec``: ``twin_of(agent, spec)`` of the agent the spec makes for
    ``game`` (so a parameter means what it means to the Python agent), worked out once per resolved spec; None for
    a spec by import path (a user's agent, even one naming a built-in class) or one that makes no agent."""
    try:
        resolved = resolve_spec(spec, game)
    except AgentSpecError:
        return None
    if ":" in resolved.name:
        return None

    def compute() -> Any:
        try:
            agent = make_agent(resolved, seed=0, game=game)
        except AgentSpecError:
            return None
        return twin_of(agent, resolved)

    return resolved.derived(twin_of, compute)


class CompiledAgent(NamedTuple):
    """A spec as a game's compiled lineup kernel plays it: the game's kind of seat and, for ``mcts``, the search's
    parameters (``agents.search_tree.SearchSettings`` is built from them at each decision)."""

    kind: int
    iters: int = 0
    c: float = 0.0
    policy: int = 0
    horizon: int = 0
    spec_seed: int = 0  # the spec's own seed=..., as a uint64


class AgentTable(NamedTuple):
    """The distinct agents of a chunk's lineups as the kernel reads them, agent id k being ``agents[k]``: each field
    of ``CompiledAgent`` as one array (``agent_table``)."""

    kind: np.ndarray  # int64
    iters: np.ndarray  # int64
    c: np.ndarray  # float64
    policy: np.ndarray  # int64
    horizon: np.ndarray  # int64
    spec_seed: np.ndarray  # uint64


def agent_table(agents: Sequence[CompiledAgent]) -> AgentTable:
    """The table a compiled lineup kernel reads ``agents`` from."""
    dtypes = (np.int64, np.int64, np.float64, np.int64, np.int64, np.uint64)
    return AgentTable(*(np.array([getattr(agent, field) for agent in agents], dtype=dtype)
                        for field, dtype in zip(AgentTable._fields, dtypes, strict=True)))


@njit(**config.KERNEL)  # not INLINED_KERNEL: handing back an array (``values``) needs numba's runtime
def seat_search(agents: AgentTable, agent: int, seat: int, values: np.ndarray) -> SearchSettings:
    """The search ``agent`` of the table runs for ``seat``, valuing early stops by ``values``: the settings its
    Python agent would build."""
    return SearchSettings(seat, agents.iters[agent], agents.c[agent], agents.policy[agent], agents.horizon[agent],
                          values)


SEARCHING_KERNEL, PLAIN_KERNEL = "_play_searching", "_play_plain"
"""Each game's two lineup entry kernels: one for a lineup with an ``mcts`` seat, one compiled without the search
(the search's arrays passed as ``None``, so numba drops it before typing it)."""


def lineup_entry_kernels(body: Callable[..., Any]) -> tuple[Any, Any]:
    """A game's two lineup entry kernels, ``SEARCHING_KERNEL`` and ``PLAIN_KERNEL``, each compiled from ``body``
    itself; the plain one's callers pass the search's arguments as ``None``.

    Two dispatchers of one function, each under its kernel's name, so each has its own cache entry and the cache
    says which is compiled (``lineup_kernel_code``). Two small kernels that pasted ``body`` (numba's
    ``inline="always"``) compiled the same code, but numba copies a pasted function's IR twice, block by block
    and the whole variable scope with each block, which for a body this large costs seconds (docs/speed.md,
    "Where a first run's compile goes").
    """
    def named(name: str) -> Callable[..., Any]:
        function = FunctionType(body.__code__, body.__globals__, name, body.__defaults__, body.__closure__)
        function.__qualname__, function.__doc__ = name, body.__doc__
        return function

    return njit(**config.KERNEL)(named(SEARCHING_KERNEL)), njit(**config.KERNEL)(named(PLAIN_KERNEL))


SEARCH_PART_SEATS = 4  # a seat count every game with a search plays; the kernels' types do not depend on it


def compile_python_search(game: str) -> None:
    """Compile the kernels ``game``'s Python ``mcts`` agent calls, which its searching lineup kernel calls too, with the
    same types: a lineup's part (``LineupPlayer.compile_parts``), done by playing one match on the reference engine
    with ``mcts`` at one iteration a decision in the first seat."""
    from sim import games

    seats = ["mcts:iters=1"] + ["random"] * (SEARCH_PART_SEATS - 1)
    games.adapter(game).play_matches(SEARCH_PART_SEATS, [0], [seats], 1, False, {},
                                     lambda spec: make_agent(spec, 0, game), engine="reference")


@cache
def mcts_parts(game: str) -> tuple[Callable[[], None], ...]:
    """The searching lineup kernel's part for ``game`` (``compile_python_search``): one object per game, so that a
    run's tables share it."""
    return (partial(compile_python_search, game),)


def lineup_kernel_code(module: str, code: Mapping[str, float], searching: bool) -> dict[str, float]:
    """The lineup kernel a lineup runs, as ``module:kernel`` with its compile seconds from ``code`` (by kernel
    name): two entry points rather than one kernel with two signatures, so that the cache says which is compiled."""
    kernel = SEARCHING_KERNEL if searching else PLAIN_KERNEL
    return {f"{module}:{kernel}": code[kernel]}
