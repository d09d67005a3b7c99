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

import numpy as np
from numba import njit

from agents.kort import playout, sampler
from agents.search_tree import ACTION, NO_NODE, TreeArrays, add_child, back_up, ucb_child
from sim import config
from sim.kort.compiled import (
    NUM_ACTIONS,
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


class Tree(TreeArrays):
    """A search tree's arrays and its iterations' working arrays, reused decision after decision."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.scratch = Scratch()


class Scratch:
    """The working arrays one iteration steps: a position, the drawn cards, what greedy tracks, the legal ids."""

    def __init__(self) -> None:
        self.position = new_position()
        self.hands = np.zeros(4, dtype=np.uint64)
        self.rest = np.zeros(52 - FIRST_PACKET, dtype=np.int64)
        self.seen = playout.new_view()
        self.legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.untried = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.path = np.zeros(PATH_LENGTH, dtype=np.int64)
        self.values = np.zeros(2, dtype=np.float64)


@njit(**config.KERNEL)
def search(root, deal, root_view, seat, iterations, c, policy, round_only, win_chance, search_rng, links, stats,
           size, work, hands, rest, view, legal, untried, path, values):
    """Run ``iterations`` SO-ISMCTS iterations from ``root`` (the position's four arrays) for ``seat``.

    ``deal`` is the sampler's arrays (``HandSampler.arrays``); ``root_view`` what the playout
    policy tracks at the root (``playout.view_of``; its hands are filled in per deal); the
    tree is ``links, stats, size`` (grown in place, at most one node an iteration; a full tree
    plays out from its leaves). ``policy`` is ``RANDOM`` or ``GREEDY`` (``sim.kort.compiled``);
    ``round_only`` stops playouts at the end of the round, valued by ``win_chance``
    (``values.match_win_chance``). ``search_rng`` (uint64[1]) drives every random choice, so
    a search is a function of it.
    """
    cards, ints, deck, rng = work
    start_round = rounds_played(root[1])
    done = 0
    while done < iterations:
        copy_position(root[0], root[1], root[2], root[3], cards, ints, deck, rng)
        sampler.draw_hands(deal[0], deal[1], deal[2], deal[3], deal[4], deal[5], deal[6], deal[7], deal[8],
                           deal[9], deal[10], deal[11], search_rng, 0, hands, rest)
        if deal[10]:  # the holder chooses trumps: the undealt deck in deal order
            for k in range(rest.shape[0]):
                deck[FIRST_PACKET + k] = rest[k]
        else:
            deal_hidden(cards, hands, seat)
        seed_streams(rng, next_u64(search_rng, 0))
        playout.start_view(root_view, view, hands, seat)
        path[0] = 0
        depth = _descend(cards, ints, deck, rng, view, c, round_only, start_round, search_rng, links, stats, size,
                         legal, untried, path)
        while not is_over(ints) and not (round_only and rounds_played(ints) > start_round):
            playout.step(cards, ints, deck, rng, view, policy, legal)
        _values(ints, win_chance, values)
        back_up(links, stats, path, depth, values)
        done += 1


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
def _descend(cards, ints, deck, rng, view, c, round_only, start_round, search_rng, links, stats, size, legal,
             untried, path):
    """Select down the tree from the root and expand one node; returns the path's length."""
    node, depth = 0, 1
    while not is_over(ints) and not (round_only and rounds_played(ints) > start_round) and depth < path.shape[0]:
        mover = to_move(ints)
        n_legal = legal_actions(cards, ints, legal)
        best, n_untried = ucb_child(links, stats, node, legal, n_legal, c, untried)
        if n_untried > 0 and size[0] < links.shape[0]:
            action = untried[below(search_rng, 0, n_untried)]
            child = add_child(links, stats, size, node, action, mover)
            playout.apply(cards, ints, deck, rng, view, action)
            path[depth] = child
            return depth + 1
        if best == NO_NODE:  # a full tree meets an untried action: play out from here
            return depth
        playout.apply(cards, ints, deck, rng, view, links[best, ACTION])
        node = best
        path[depth] = node
        depth += 1
    return depth
