"""Compiled single-observer information-set MCTS (SO-ISMCTS) for Kort's ``mcts``, with team values.

One tree over the searching seat's information set: a node is a sequence of actions from the decision being made,
whatever cards lie behind them. Each iteration determinizes (a fresh sample of the hidden hands), selects by UCB1
for the team of the seat to move over availability counts, expands one untried action and plays out with a
compiled policy, then backs up the value of the team whose seat chose each action. A team's value is its match
result in [0, 1], or at a round's end its chance to win the match (``values.match_win_chance``). Everything runs
inside numba on the engine's compiled step API (``sim.kort.compiled``): one call makes a whole decision's
iterations. The steps in full are in docs/internals.md, ``agents.kort.search``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from agents import search_tree
from agents.kort import playout, sampler
from sim import config
from sim.kort.compiled import (
    NUM_ACTIONS,
    Position,
    View,
    below,
    copy_position,
    deal_hidden,
    holder,
    is_over,
    legal_actions,
    new_position,
    next_u64,
    rounds_played,
    seed_streams,
    team_result,
    to_move,
    wins,
)
from sim.kort.encoding import FIRST_PACKET

PATH_LENGTH = 1024  # nodes on one path: a whole match has fewer decisions than this between two of a seat's
MATCH_END, ROUND_END = 0, 1
"""Where a playout stops (``SearchSettings.horizon``): the end of the match, or of the round being played, valued
by the team's chance to win the match from there (``SearchSettings.values``: ``values.match_win_chance``)."""


class Scratch(NamedTuple):
    """The working arrays one iteration steps: a position, the drawn cards, what greedy tracks, the legal ids,
    the path down the tree and the teams' values."""

    position: Position
    hands: np.ndarray  # uint64[4]: the drawn hands
    rest: np.ndarray  # int64[47]: the drawn undealt deck, while the holder chooses trumps
    seen: View  # every hand and the trick, for greedy playouts
    legal: np.ndarray  # int64[NUM_ACTIONS]
    untried: np.ndarray  # int64[NUM_ACTIONS]
    path: np.ndarray  # int64[PATH_LENGTH]
    values: np.ndarray  # float64[2]: per team


def new_scratch() -> Scratch:
    """Fresh working arrays for one search."""
    return Scratch(new_position(), np.zeros(4, dtype=np.uint64), np.zeros(52 - FIRST_PACKET, dtype=np.int64),
                   playout.new_view(), np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS, dtype=np.int64),
                   np.zeros(PATH_LENGTH, dtype=np.int64), np.zeros(2, dtype=np.float64))


class Tree(search_tree.TreeArrays):
    """A search tree's rows, its root position and view, and its iterations' working arrays, reused decision after
    decision."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.root = new_position()
        self.root_view = playout.new_view()
        self.scratch = new_scratch()

    def work(self, search_rng: np.ndarray) -> search_tree.SearchWork:
        """These arrays as the ``SearchWork`` a compiled decision takes, drawing from ``search_rng``."""
        return search_tree.SearchWork(self.root, self.rows, self.scratch, search_rng)


@njit(**config.KERNEL)
def search(root, tables, root_view, settings, tree, scratch, search_rng):
    """Run ``settings.iterations`` SO-ISMCTS iterations (``search_tree.SearchSettings``) from ``root`` (a
    ``Position``) for ``settings.seat``.

    ``tables`` are the sampler's (``sampler.DealTables``); ``root_view`` what the playout
    policy tracks at the root (``playout.table_view``; its hands are filled in per deal); the
    tree (``SearchTree``) grows in place, at most one node an iteration (a full tree plays out
    from its leaves). ``search_rng`` (uint64[1]) drives every random choice, so a search is a
    function of it.
    """
    work, hands, rest, view = scratch.position, scratch.hands, scratch.rest, scratch.seen
    start_round = rounds_played(root.ints)
    done = 0
    while done < settings.iterations:
        copy_position(root, work)
        sampler.draw_hands(tables, search_rng, search_tree.STREAM, hands, rest)
        if tables.undealt:  # the holder chooses trumps: the undealt deck in deal order
            for k in range(rest.shape[0]):
                work.deck[FIRST_PACKET + k] = rest[k]
        else:
            deal_hidden(work.cards, hands, settings.seat)
        seed_streams(work.rng, next_u64(search_rng, search_tree.STREAM))
        playout.start_view(root_view, view, hands, settings.seat)
        scratch.path[0] = search_tree.ROOT
        depth = _descend(settings, start_round, search_rng, tree, scratch)
        while not _playout_done(work.ints, settings, start_round):
            playout.step(work, view, settings.policy, scratch.legal)
        _values(work.ints, settings.values, scratch.values)
        search_tree.back_up(tree, scratch.path, depth, scratch.values)
        done += 1


@njit(**config.INLINED_KERNEL)
def _playout_done(ints, settings, start_round):
    """Whether a playout stops here: the match is over, or at the ``ROUND_END`` horizon the round it started in."""
    return is_over(ints) or (settings.horizon == ROUND_END and rounds_played(ints) > start_round)


@njit(**config.INLINED_KERNEL)
def _values(ints, win_chance, values):
    """Each team's value in [0, 1]: its match result once the match is over, else its chance to win from here."""
    if is_over(ints):
        for team in range(2):
            values[team] = (team_result(ints, team) + 1.0) / 2.0
        return
    holding = holder(ints) % 2
    for team in range(2):
        values[team] = win_chance[wins(ints, team), wins(ints, 1 - team), 1 if holding == team else 0]


@njit(**config.INLINED_KERNEL)
def _descend(settings, start_round, search_rng, tree, scratch):
    """Select down the tree from the root and expand one node, stepping the scratch position; returns the path's
    length."""
    work, view, legal, untried, path = scratch.position, scratch.seen, scratch.legal, scratch.untried, scratch.path
    node, depth = search_tree.ROOT, 1
    while not _playout_done(work.ints, settings, start_round) and depth < path.shape[0]:
        mover = to_move(work.ints)
        n_legal = legal_actions(work.cards, work.ints, legal)
        best, n_untried = search_tree.ucb_child(tree, node, legal, n_legal, settings.c, untried)
        if n_untried > 0 and search_tree.has_room(tree):
            action = untried[below(search_rng, search_tree.STREAM, n_untried)]
            child = search_tree.add_child(tree, node, action, mover)
            playout.apply(work, view, action)
            path[depth] = child
            return depth + 1
        if best == search_tree.NO_NODE:  # a full tree meets an untried action: play out from here
            return depth
        playout.apply(work, view, tree.links[best, search_tree.ACTION])
        node = best
        path[depth] = node
        depth += 1
    return depth
