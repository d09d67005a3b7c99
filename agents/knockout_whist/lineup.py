"""Whole Knockout Whist games between built-in agents in compiled code: ``random``, ``greedy``, ``tracker``, ``mcts``.

``play_lineups`` plays one game per seed, each with its own lineup (a spec per seat), without returning to Python,
and makes exactly the decisions the Python agents make in the reference engine (the runner's compiled path; the
tests compare the rows). Each seat's agent keeps its own state in the kernel, allocated once per chunk of games
and reset at every game; how each agent plays there is in docs/internals.md, ``agents.knockout_whist.lineup``.

A spec plays here when it names a built-in agent (not an import path) and, for ``mcts``, gives no wall-clock
budget (``time``: not reproducible, so it stays on the reference path); ``compiled_agent`` says how a spec plays,
or None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from agents.base import Agent, AgentSpec, RandomAgent, register_lineup
from agents.knockout_whist.compiled_tracker import (
    TRACKER_SIZE,
    forget,
    observe,
    tracker_choice,
)
from agents.knockout_whist.decision import mcts_choice, new_search_work
from agents.knockout_whist.greedy import GreedyAgent
from agents.knockout_whist.hand_values import hand_values
from agents.knockout_whist.mcts import MCTSAgent
from agents.knockout_whist.tracker import TrackerAgent
from agents.lineup import (
    CompiledAgent,
    agent_table,
    compiled_twin,
    lineup_entry_kernels,
    lineup_kernel_code,
    mcts_parts,
    seat_search,
)
from sim.contract import ChunkColumns
from sim.knockout_whist.adapter import lineup_columns
from sim.knockout_whist.compiled import (
    GREEDY,
    NUM_ACTIONS,
    RANDOM,
    agent_seed,
    apply_action,
    derive_seed1,
    is_over,
    legal_actions,
    new_game,
    new_position,
    policy_choice,
    to_move,
)
from sim.knockout_whist.encoding import MAX_SEATS, Options

GAME = "knockout-whist"
RANDOM_SEAT, GREEDY_SEAT, TRACKER_SEAT, MCTS_SEAT = range(4)
"""How a seat plays inside the kernel."""


class Games(NamedTuple):
    """What the kernel plays: the table's options, and a seed and a lineup of agent ids (``AgentTable``) per game."""

    n_seats: int
    flags: int  # the options as ``Options.flags()``
    seeds: np.ndarray  # uint64[G]
    lineups: np.ndarray  # int64[G, n_seats]: agent ids (``agents.lineup.AgentTable``)


def compiled_agent(spec: str) -> CompiledAgent | None:
    """How ``spec`` plays inside the kernel, or None when it must play on the reference path.

    None for an import path (a user's agent, even one naming a built-in class), a spec that makes
    no agent, and ``mcts`` with a time budget (wall-clock: not reproducible).
    """
    return compiled_twin(spec, GAME, _compiled_agent)


def _compiled_agent(agent: Agent, spec: AgentSpec) -> CompiledAgent | None:
    kind = type(agent)
    if kind is RandomAgent:
        return CompiledAgent(RANDOM_SEAT)
    if kind is GreedyAgent:
        return CompiledAgent(GREEDY_SEAT)
    if kind is TrackerAgent:
        return CompiledAgent(TRACKER_SEAT)
    if kind is MCTSAgent and agent.time_budget <= 0:
        return agent.compiled_record(MCTS_SEAT)
    return None


def is_compiled_lineup(specs: Sequence[str]) -> bool:
    """Whether every spec of a lineup plays inside the kernel (``compiled_agent``)."""
    return all(compiled_agent(spec) is not None for spec in specs)


def int_rows(games: int) -> np.ndarray:
    """Zeroed rows for ``play_lineups`` to write each game's final ints row into."""
    return np.zeros((games, new_position().ints.shape[0]), dtype=np.int64)


def play_lineups(n_seats: int, flags: int, seeds: np.ndarray, seatings: Sequence[Sequence[str]],
                 rows: np.ndarray) -> None:
    """Play game g from ``seeds[g]`` with ``seatings[g]`` (a spec per seat) to its end; its final ints row into
    ``rows[g]`` (``int_rows``). ``flags`` are the options as ``Options.flags()``. One thread plays them all: the
    runner's workers are processes."""
    agents: dict[CompiledAgent, int] = {}
    lineups = np.zeros((len(seeds), n_seats), dtype=np.int64)
    for g, seating in enumerate(seatings):
        for seat, spec in enumerate(seating):
            agent = compiled_agent(spec)
            if agent is None:
                raise ValueError(f"agent spec {spec!r} does not play inside the compiled engine")
            lineups[g, seat] = agents.setdefault(agent, len(agents))
    table = agent_table(list(agents))
    games = Games(n_seats, flags, np.asarray(seeds, dtype=np.uint64), lineups)
    if (table.kind == MCTS_SEAT).any():
        _play_searching(games, table, hand_values(n_seats, flags), 1 + int(table.iters.max()), np.int64(0),
                        np.int64(len(seeds)), rows)
    else:
        _play_plain(games, table, None, 1, np.int64(0), np.int64(len(seeds)), rows)



# ----- compiled ------------------------------------------------------------------------------------
def _play_games(games, agents, values, capacity, start, stop, rows):
    """Games ``start`` to ``stop - 1``, with one set of per-seat state and scratch for them all.

    ``values`` is None when no seat searches: numba then drops every ``values is None`` branch it cannot take
    before it compiles, so ``_play_plain`` holds no search. Compiled as ``_play_searching`` and ``_play_plain``
    (``agents.lineup.lineup_entry_kernels``).
    """
    cards, _, deck, rng = new_position()
    trackers = np.zeros((MAX_SEATS, TRACKER_SIZE), dtype=np.uint64)
    streams = np.zeros(MAX_SEATS, dtype=np.uint64)
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    work = new_search_work(capacity)  # a SearchWork, never None: the search is then typed as the Python agent calls it
    for g in range(start, stop):
        ints = rows[g]
        new_game(cards, ints, deck, rng, games.n_seats, games.flags, games.seeds[g])
        tracked = 0
        for s in range(games.n_seats):
            forget(trackers[s])
            agent = games.lineups[g, s]
            if agents.kind[agent] >= TRACKER_SEAT:
                tracked |= 1 << s
            if agents.kind[agent] == MCTS_SEAT:
                streams[s] = derive_seed1(agent_seed(games.seeds[g], s), agents.spec_seed[agent])
        while not is_over(ints):
            seat = to_move(ints)
            agent = games.lineups[g, seat]
            kind = agents.kind[agent]
            if kind == RANDOM_SEAT:
                action = policy_choice(RANDOM, cards, ints, rng)
            elif kind == GREEDY_SEAT:
                action = policy_choice(GREEDY, cards, ints, rng)
            elif kind == TRACKER_SEAT:
                action = tracker_choice(trackers[seat], cards, ints, rng, legal)
            elif legal_actions(cards, ints, legal) == 1 or values is None:
                action = legal[0]  # with no values no seat searches, so this is a seat with one choice
            else:
                action = mcts_choice(trackers[seat], cards, ints, seat_search(agents, agent, seat, values), streams,
                                     work)
            for s in range(games.n_seats):
                if (tracked >> s) & 1:
                    observe(trackers[s], ints, action)
            apply_action(cards, ints, deck, rng, action)


_play_searching, _play_plain = lineup_entry_kernels(_play_games)  # the lineup with ``mcts`` seats, and without


def _searching(specs: Sequence[str]) -> bool:
    return any(getattr(compiled_agent(spec), "kind", None) == MCTS_SEAT for spec in specs)


class KnockoutWhistLineups:
    """Knockout Whist's compiled lineup player (registered on import; ``agents.knockout_whist``
    imports it): every seat ``random``, ``greedy``, ``tracker`` or ``mcts`` (not ``time=``), one game per seed
    in ``play_lineups``, the columns built by the engine's ``sim.knockout_whist.adapter.lineup_columns``."""

    names = ("random", "greedy", "tracker", "mcts")
    logs_actions = False  # the kernel keeps no action log
    # Each lineup kernel, with the CPU seconds compiling it takes on first use (as measured in docs/speed.md).
    CODE: dict[str, float] = {"_play_searching": 28.0, "_play_plain": 12.0}

    def accepts(self, specs: Sequence[str]) -> bool:
        """Whether every spec plays inside the kernel (``is_compiled_lineup``)."""
        return is_compiled_lineup(specs)

    def compiled_code(self, specs: Sequence[str]) -> dict[str, float]:
        """The lineup kernel ``specs`` run (``agents.lineup.lineup_kernel_code``), with its measured compile seconds."""
        return lineup_kernel_code(__name__, self.CODE, _searching(specs))

    def compile_parts(self, specs: Sequence[str]) -> Sequence[Callable[[], object]]:
        """With ``mcts`` seated, its search's set-up and iterations (``agents.lineup.compile_python_search``). Without
        it the kernel's biggest callees, the tracker's and greedy's choices (a few seconds each), stay with the run."""
        return mcts_parts(GAME) if _searching(specs) else ()

    def play(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int,
             log_actions: bool, options: dict[str, Any]) -> ChunkColumns:
        """Play one game per seed, ``seatings[i]`` at the table, with ``options``."""

        def rows(settings: Options, seeds: np.ndarray) -> np.ndarray:
            played = int_rows(len(seeds))
            play_lineups(settings.players, settings.flags(), seeds, seatings, played)
            return played

        return lineup_columns(n_seats, match_seeds, match_hands, log_actions, options, rows)


LINEUP_PLAYER = register_lineup("knockout-whist", KnockoutWhistLineups())
