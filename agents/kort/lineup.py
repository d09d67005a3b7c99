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

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.base import Agent, AgentSpec, RandomAgent, register_lineup
from agents.deal_sampling import BINOMIAL
from agents.kort import search, tracker
from agents.kort.compiled_tracker import hidden_hands, new_trackers, observe, start_match, tracker_choice
from agents.kort.greedy import GreedyAgent
from agents.kort.mcts import MCTSAgent
from agents.kort.playout import new_view, table_view
from agents.kort.sampler import draw_hands
from agents.kort.search import Scratch, Tree
from agents.kort.values import match_win_chance
from agents.lineup import compiled_twin
from agents.search_tree import ACTION, FIRST_CHILD, NEXT_SIBLING, NO_NODE, VISITS
from sim import config
from sim.contract import ChunkColumns
from sim.kort.adapter import lineup_columns
from sim.kort.compiled import (
    NUM_ACTIONS,
    POLICY_IDS,
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
    next_u64,
    own_hand,
    phase,
    random_action,
    record_round,
    seat_position,
    to_move,
    trick_no,
    trick_plays,
)
from sim.kort.encoding import NUM_SEATS
from sim.kort.reference import as_options
from sim.rng import MASK64

RANDOM, GREEDY, TRACKER, MCTS = range(4)
"""The compiled agents' kinds."""
A_KIND, A_REDEAL_AUTO, A_ITERS, A_POLICY, A_ROUND_ONLY = range(5)
"""The columns of an agent's int row (``CompiledAgent.ints``)."""


class CompiledAgent(NamedTuple):
    """A spec as the lineup kernel plays it: its int row, its exploration constant and its spec seed."""

    ints: tuple[int, int, int, int, int]  # kind, greedy redeals (1: auto), mcts iters, playout policy, round only
    c: float
    spec_seed: int  # mcts's own seed=..., as a uint64


def compiled_agent(spec: str) -> CompiledAgent | None:
    """The compiled twin of the agent ``spec`` makes, or None when it plays on the reference path only
    (a spec by import path, ``mcts`` with a time budget, or a spec that makes no agent)."""
    return compiled_twin(spec, "kort", _compiled_agent)


def _compiled_agent(agent: Agent, spec: AgentSpec) -> CompiledAgent | None:
    kind = type(agent)
    if kind is RandomAgent:
        return CompiledAgent((RANDOM, 1, 0, 0, 0), 0.0, 0)
    if kind is GreedyAgent:
        return CompiledAgent((GREEDY, int(agent.redeal == "auto"), 0, 0, 0), 0.0, 0)
    if kind is tracker.TrackerAgent:
        return CompiledAgent((TRACKER, 1, 0, 0, 0), 0.0, 0)
    if kind is MCTSAgent and agent.time_budget <= 0:
        return CompiledAgent((MCTS, 1, agent.iters, POLICY_IDS[agent.rollout], int(agent.horizon == "round")),
                             float(agent.c), int(spec.params.get("seed", 0)) & MASK64)
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
    lineups = lineups.reshape(len(seatings), NUM_SEATS)
    agent_ints = np.array([agent.ints for agent in agents], dtype=np.int64)
    agent_c = np.array([agent.c for agent in agents], dtype=np.float64)
    spec_seeds = np.array([agent.spec_seed for agent in agents], dtype=np.uint64)
    ints_out, rounds_out = new_results(len(seeds), options.target_wins)
    cards, _, deck, rng = new_position()
    known, counts = new_trackers()
    _play(options.target_wins, options.first_holder, np.asarray(seeds, dtype=np.uint64), lineups, agent_ints,
          agent_c, spec_seeds, match_win_chance(options.target_wins), BINOMIAL, ints_out, rounds_out,
          (cards, deck, rng), known, counts, np.zeros(NUM_SEATS, dtype=np.uint64), new_view(),
          np.zeros(NUM_ACTIONS, dtype=np.int64), *search_arrays(int(agent_ints[:, A_ITERS].max())))
    return ints_out, rounds_out


def search_arrays(iters: int) -> tuple:
    """The working arrays of ``search_decision`` for up to ``iters`` iterations: ``root, tree, work, scratch,
    search_rng`` (a tree of ``1 + iters`` nodes, which never fills)."""
    scratch = Scratch()
    tree = Tree(1 + max(iters, 1))
    return (new_position(), (tree.links, tree.stats, tree.size), scratch.position,
            (scratch.hands, scratch.rest, scratch.seen, scratch.legal, scratch.untried, scratch.path, scratch.values),
            np.zeros(1, dtype=np.uint64))


# ----- compiled ------------------------------------------------------------------------------------
@njit(**config.KERNEL)
def _play(target, first_holder, seeds, lineups, agent_ints, agent_c, spec_seeds, win_chance, binomial, ints_out,
          rounds_out, match, known, counts, streams, view, legal, root, tree, work, scratch, search_rng):
    """Every match of ``play_lineups`` in turn, with one set of working arrays."""
    cards, deck, rng = match
    tracks = np.zeros(NUM_SEATS, dtype=np.bool_)
    for g in range(seeds.shape[0]):
        ints = ints_out[g]
        new_match(cards, ints, deck, rng, target, first_holder, seeds[g])
        for s in range(NUM_SEATS):
            agent = lineups[g, s]
            tracks[s] = agent_ints[agent, A_KIND] >= TRACKER
            start_match(known[s], counts[s], s, ints)
            streams[s] = derive_seed1(agent_seed(seeds[g], s), spec_seeds[agent])
        recorded = 0
        while not is_over(ints):
            seat = to_move(ints)
            agent = lineups[g, seat]
            kind = agent_ints[agent, A_KIND]
            if kind == RANDOM:
                action = random_action(cards, ints, rng)
            else:
                n_legal = legal_actions(cards, ints, legal)
                if n_legal == 1:
                    action = legal[0]
                else:
                    table_view(cards, ints, seat, view)
                    if kind == GREEDY:
                        action = greedy_choice(ints, own_hand(cards, seat), view[1], legal, n_legal,
                                               agent_ints[agent, A_REDEAL_AUTO] == 1)
                    elif kind == TRACKER:
                        action = tracker_choice(known[seat], counts[seat], cards, ints, view, legal, n_legal)
                    else:
                        action = search_decision(cards, ints, seat, agent_ints[agent], agent_c[agent], win_chance,
                                                 binomial, root, known[seat], counts[seat], streams, view, tree, work,
                                                 scratch, search_rng)
            stage, before, trick, plays = phase(ints), lead_kind(ints, seat % 2), trick_no(ints), trick_plays(ints)
            apply_action(cards, ints, deck, rng, action)
            for s in range(NUM_SEATS):
                if tracks[s]:
                    observe(known[s], counts[s], ints, seat, stage, action, before, trick, plays)
            recorded = record_round(ints, rounds_out[g], recorded)


@njit(**config.KERNEL)
def search_decision(cards, ints, seat, agent, c, win_chance, binomial, root, known, counts, streams, view, tree, work,
                    scratch, search_rng):
    """``MCTSAgent.act`` for ``seat`` at a decision with a choice: its most visited root action (ties: lower id).

    ``agent`` is its int row, ``known, counts`` its tracker, ``streams[seat]`` its stream, ``view`` its
    ``playout.table_view``; the match ``cards, ints`` is read only through ``seat_position`` and the
    tracker's ``hidden_hands`` (what the seat sees). The other arguments are working arrays."""
    hands, rest, search_view, legal, untried, path, values = scratch
    links, stats, size = tree
    search_rng[0] = next_u64(streams, seat)
    deal = hidden_hands(known, counts, cards, ints, binomial)
    hands[:] = 0
    rest[:] = 0
    draw_hands(deal[0], deal[1], deal[2], deal[3], deal[4], deal[5], deal[6], deal[7], deal[8], deal[9], deal[10],
               deal[11], search_rng, 0, hands, rest)
    seat_position(cards, ints, seat, hands, rest, search_rng[0], root[0], root[1], root[2], root[3])
    links[0, :] = NO_NODE
    stats[0, :] = 0.0
    size[0] = 1
    search.search(root, deal, view, seat, agent[A_ITERS], c, agent[A_POLICY], agent[A_ROUND_ONLY] == 1, win_chance,
                  search_rng, links, stats, size, work, hands, rest, search_view, legal, untried, path, values)
    best, best_visits = -1, -1.0
    child = links[0, FIRST_CHILD]
    while child != NO_NODE:
        action, visits = links[child, ACTION], stats[child, VISITS]
        if visits > best_visits or (visits == best_visits and action < best):
            best, best_visits = action, visits
        child = links[child, NEXT_SIBLING]
    return best


class KortLineups:
    """Kort's compiled lineup player (registered on import; ``agents.kort`` imports it): every seat
    ``random``, ``greedy``, ``tracker`` or ``mcts`` (not ``time=``), one match per seed in ``play_lineups``, the
    columns built by the engine's ``sim.kort.adapter.lineup_columns``."""

    names = ("random", "greedy", "tracker", "mcts")
    logs_actions = False  # the kernel keeps no action log
    # The lineup kernel, with the CPU seconds compiling it takes on first use (as measured in docs/speed.md).
    CODE: dict[str, float] = {"agents.kort.lineup": 35.0}

    def accepts(self, specs: Sequence[str]) -> bool:
        """Whether every spec has a compiled twin (``compiled_agent``)."""
        return all(compiled_agent(spec) is not None for spec in specs)

    def compiled_code(self, specs: Sequence[str]) -> dict[str, float]:
        """The lineup kernel's module, with its measured compile seconds."""
        return dict(self.CODE)

    def play(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int,
             log_actions: bool, options: dict[str, Any]) -> ChunkColumns:
        """Play one match per seed, ``seatings[i]`` at the table, with ``options``."""
        return lineup_columns(n_seats, match_seeds, match_hands, log_actions, options,
                              lambda settings, seeds: play_lineups(settings, seeds, seatings))


LINEUP_PLAYER = register_lineup("kort", KortLineups())
