"""Whole Kort matches between built-in agents inside compiled code: any lineup of random, greedy, tracker and mcts.

``play_lineups`` plays one match per seed, each seat's decisions taken by the compiled twin of its Python agent, so
a match with its agents gives exactly the rows the reference engine gives with the Python agents (tests compare
the runner's rows). Every seat keeps its own state in the kernel, and reads its own cards when it decides and
nothing else hidden. What each seat runs is in docs/internals.md, ``agents.kort.lineup``.

``compiled_agent(spec)`` says whether a spec plays here (a registered name with any parameters; ``mcts`` with a
time budget and agents given by import path keep the reference path). The state is allocated once per call (a
runner chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from agents.base import Agent, AgentSpec, RandomAgent, register_lineup
from agents.kort import tracker
from agents.kort.compiled_tracker import new_trackers, observe, start_match, tracker_choice
from agents.kort.decision import mcts_choice, search_work
from agents.kort.greedy import GreedyAgent
from agents.kort.mcts import GAME, MCTSAgent
from agents.kort.playout import new_view, table_view
from agents.kort.values import match_win_chance
from agents.lineup import (
    CompiledAgent,
    agent_table,
    compiled_twin,
    lineup_entry_kernels,
    lineup_kernel_code,
    seat_search,
)
from sim.contract import ChunkColumns
from sim.kort.adapter import lineup_columns
from sim.kort.compiled import (
    NUM_ACTIONS,
    Position,
    View,
    agent_seed,
    apply_action,
    derive_seed1,
    greedy_choice,
    is_over,
    lead_kind,
    legal_actions,
    new_match,
    new_position,
    new_results,
    own_hand,
    phase,
    random_action,
    record_round,
    to_move,
    trick_no,
    trick_plays,
)
from sim.kort.encoding import NUM_SEATS
from sim.kort.reference import as_options

RANDOM, GREEDY, GREEDY_KEEPS, TRACKER, MCTS = range(5)
"""The compiled agents' kinds (``GREEDY_KEEPS``: ``greedy:redeal=never``); those from ``TRACKER`` on keep a tracker."""


class SeatStates(NamedTuple):
    """What every seat keeps in the lineup kernel: its tracker rows, its search stream, its view of the table, and
    room for the legal ids."""

    known: np.ndarray  # uint64[4, ...]: the trackers' card sets (``compiled_tracker.new_trackers``)
    counts: np.ndarray  # int64[4, ...]: their counts
    streams: np.ndarray  # uint64[4]: each mcts seat's stream
    table_view: View  # the seat to move's (``playout.table_view``)
    legal: np.ndarray  # int64[NUM_ACTIONS]


class Matches(NamedTuple):
    """What ``_play`` plays: the options, and a seed and a lineup of agent ids per match."""

    target_wins: int
    first_holder: int
    seeds: np.ndarray  # uint64[G]
    lineups: np.ndarray  # int64[G, 4]: agent ids (``AgentTable``)


def compiled_agent(spec: str) -> CompiledAgent | None:
    """The compiled twin of the agent ``spec`` makes, or None when it plays on the reference path only
    (a spec by import path, ``mcts`` with a time budget, or a spec that makes no agent)."""
    return compiled_twin(spec, "kort", _compiled_agent)


def _compiled_agent(agent: Agent, spec: AgentSpec) -> CompiledAgent | None:
    kind = type(agent)
    if kind is RandomAgent:
        return CompiledAgent(RANDOM)
    if kind is GreedyAgent:
        return CompiledAgent(GREEDY if agent.redeal == "auto" else GREEDY_KEEPS)
    if kind is tracker.TrackerAgent:
        return CompiledAgent(TRACKER)
    if kind is MCTSAgent and agent.time_budget <= 0:
        return agent.compiled_record(MCTS)
    return None


def play_lineups(options: object, seeds: np.ndarray, seatings: Sequence[Sequence[str]]) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    """Play match g from ``seeds[g]`` (its engine seed) with ``seatings[g]`` (four specs, each ``compiled_agent``)
    to its end in compiled code, on one core; returns its final ints rows and round records
    (``compiled.new_results``; ``sim.kort.compiled.batch.results_of_rows`` reads them)."""
    options = as_options(options)
    specs = sorted({spec for seating in seatings for spec in seating})
    agents = [compiled_agent(spec) for spec in specs]
    if any(agent is None for agent in agents):
        raise ValueError("the compiled lineups play only random, greedy, tracker and mcts without a time budget")
    index = {spec: k for k, spec in enumerate(specs)}
    lineups = np.array([[index[spec] for spec in seating] for seating in seatings], dtype=np.int64)
    matches = Matches(options.target_wins, options.first_holder, np.asarray(seeds, dtype=np.uint64),
                      lineups.reshape(len(seatings), NUM_SEATS))
    table = agent_table(agents)
    ints_out, rounds_out = new_results(len(seeds), options.target_wins)
    known, counts = new_trackers()
    seats = SeatStates(known, counts, np.zeros(NUM_SEATS, dtype=np.uint64), new_view(),
                       np.zeros(NUM_ACTIONS, dtype=np.int64))
    chance = match_win_chance(options.target_wins)
    if (table.kind == MCTS).any():
        _play_searching(matches, table, chance, ints_out, rounds_out, new_position(), seats,
                        search_work(int(table.iters.max())))
    else:
        _play_plain(matches, table, chance, ints_out, rounds_out, new_position(), seats, None)
    return ints_out, rounds_out


# ----- compiled ------------------------------------------------------------------------------------
def _play_matches(matches, agents, win_chance, ints_out, rounds_out, scratch_match, seats, work):
    """Every match of ``play_lineups`` in turn, with one set of working arrays (``scratch_match``'s ints unused:
    match g plays in ``ints_out[g]``).

    ``work`` is None when no seat searches: numba then drops the ``work is None`` branch it cannot take before it
    compiles, so ``_play_plain`` holds no search. Compiled as ``_play_searching`` and ``_play_plain``
    (``agents.lineup.lineup_entry_kernels``).
    """
    known, counts, streams, view, legal = seats
    tracks = np.zeros(NUM_SEATS, dtype=np.bool_)
    for g in range(matches.seeds.shape[0]):
        match = Position(scratch_match.cards, ints_out[g], scratch_match.deck, scratch_match.rng)
        cards, ints, deck, rng = match
        new_match(cards, ints, deck, rng, matches.target_wins, matches.first_holder, matches.seeds[g])
        for s in range(NUM_SEATS):
            agent = matches.lineups[g, s]
            tracks[s] = agents.kind[agent] >= TRACKER
            start_match(known[s], counts[s], s, ints)
            streams[s] = derive_seed1(agent_seed(matches.seeds[g], s), agents.spec_seed[agent])
        recorded = 0
        while not is_over(ints):
            seat = to_move(ints)
            agent = matches.lineups[g, seat]
            kind = agents.kind[agent]
            if kind == RANDOM:
                action = random_action(cards, ints, rng)
            else:
                n_legal = legal_actions(cards, ints, legal)
                if n_legal == 1:
                    action = legal[0]
                else:
                    table_view(cards, ints, seat, view)
                    if kind == GREEDY or kind == GREEDY_KEEPS:
                        action = greedy_choice(ints, own_hand(cards, seat), view.trick, legal, n_legal,
                                               kind == GREEDY)
                    elif kind == TRACKER:
                        action = tracker_choice(known[seat], counts[seat], cards, ints, view, legal, n_legal)
                    elif work is None:
                        action = legal[0]  # never taken: with no search arrays no seat searches
                    else:
                        settings = seat_search(agents, agent, seat, win_chance)
                        action = mcts_choice(cards, ints, settings, known[seat], counts[seat], streams, view, work)
            stage, before, trick, plays = phase(ints), lead_kind(ints, seat % 2), trick_no(ints), trick_plays(ints)
            apply_action(cards, ints, deck, rng, action)
            for s in range(NUM_SEATS):
                if tracks[s]:
                    observe(known[s], counts[s], ints, seat, stage, action, before, trick, plays)
            recorded = record_round(ints, rounds_out[g], recorded)


_play_searching, _play_plain = lineup_entry_kernels(_play_matches)  # the lineup with ``mcts`` seats, and without


def _searching(specs: Sequence[str]) -> bool:
    return any(getattr(compiled_agent(spec), "kind", None) == MCTS for spec in specs)


class KortLineups:
    """Kort's compiled lineup player (registered on import; ``agents.kort`` imports it): every seat
    ``random``, ``greedy``, ``tracker`` or ``mcts`` (not ``time=``), one match per seed in ``play_lineups``, the
    columns built by the engine's ``sim.kort.adapter.lineup_columns``."""

    names = ("random", "greedy", "tracker", "mcts")
    logs_actions = False  # the kernel keeps no action log
    # Each lineup kernel, with the CPU seconds compiling it takes on first use (as measured in docs/speed.md).
    CODE: dict[str, float] = {"_play_searching": 32.0, "_play_plain": 16.0}

    def accepts(self, specs: Sequence[str]) -> bool:
        """Whether every spec has a compiled twin (``compiled_agent``)."""
        return all(compiled_agent(spec) is not None for spec in specs)

    def compiled_code(self, specs: Sequence[str]) -> dict[str, float]:
        """The lineup kernel ``specs`` run (``agents.lineup.lineup_kernel_code``), with its measured compile seconds."""
        return lineup_kernel_code(__name__, self.CODE, _searching(specs))

    def compile_parts(self, specs: Sequence[str]) -> Sequence[Callable[[], object]]:
        """None: handing a worker a match of the Python ``mcts`` (``agents.lineup.mcts_parts``), as Knockout Whist
        does, left a first searching run no faster and cost it more CPU (docs/speed.md)."""
        return ()

    def play(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int,
             log_actions: bool, options: dict[str, Any]) -> ChunkColumns:
        """Play one match per seed, ``seatings[i]`` at the table, with ``options``."""
        return lineup_columns(n_seats, match_seeds, match_hands, log_actions, options,
                              lambda settings, seeds: play_lineups(settings, seeds, seatings))


LINEUP_PLAYER = register_lineup(GAME, KortLineups())
