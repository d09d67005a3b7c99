"""Compiled single-observer information-set MCTS (SO-ISMCTS) for Knockout Whist's ``mcts``.

One tree over the searching seat's information set: a node is a sequence of actions from the decision being made,
whatever cards lie behind them. Each iteration determinizes (a fresh sample of the hidden cards), selects by UCB1
over availability counts, expands one untried action and plays out with a compiled policy, then backs up each
seat's own value (max-n). Values are in [0, 1], each seat's expected normalised score (``hand_values`` at a hand's
end). Everything runs inside numba on the engine's compiled step API (``sim.knockout_whist.compiled``): one call
makes a whole decision's iterations. The steps in full are in docs/internals.md, ``agents.knockout_whist.search``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from agents import search_tree
from agents.knockout_whist import sampler
from sim import config
from sim.knockout_whist.compiled import (
    NUM_ACTIONS,
    Position,
    apply_action,
    below,
    chooser,
    copy_position,
    deal_hidden,
    dogs_life_used,
    hand_number,
    is_over,
    legal_actions,
    new_position,
    next_u64,
    policy_choice,
    score,
    seat_count,
    seat_status,
    seed_streams,
    to_move,
)
from sim.knockout_whist.encoding import MAX_SEATS, Status

OUT = int(Status.OUT)

GAME_END, HAND_END = 0, 1
"""Where a playout stops: the end of the game, or the end of the hand being played at the root."""
NO_LATER_HAND = 99
PATH_LENGTH = 4096  # nodes on one path down the tree, at most


class Scratch(NamedTuple):
    """The working arrays one iteration steps: a position, the drawn cards, the legal ids, the path down the tree
    and the seats' values."""

    position: Position
    hands: np.ndarray  # uint64[MAX_SEATS]: the drawn hands
    rest: np.ndarray  # int64[52]: the drawn stock, top first
    legal: np.ndarray  # int64[NUM_ACTIONS]
    untried: np.ndarray  # int64[NUM_ACTIONS]
    path: np.ndarray  # int64[PATH_LENGTH]
    values: np.ndarray  # float64[MAX_SEATS]


@njit(**config.KERNEL)
def new_scratch() -> Scratch:
    """Fresh working arrays for one search (compiled: a lineup kernel makes one per chunk)."""
    return Scratch(new_position(), np.zeros(MAX_SEATS, dtype=np.uint64), np.zeros(52, dtype=np.int64),
                   np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS, dtype=np.int64),
                   np.zeros(PATH_LENGTH, dtype=np.int64), np.zeros(MAX_SEATS, dtype=np.float64))


class Tree(search_tree.TreeArrays):
    """A search tree's rows, its root position and the scratch arrays its iterations step, reused decision after
    decision."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.root = new_position()
        self.scratch = new_scratch()

    def work(self, search_rng: np.ndarray) -> search_tree.SearchWork:
        """These arrays as the ``SearchWork`` a compiled decision takes, drawing from ``search_rng``."""
        return search_tree.SearchWork(self.root, self.rows, self.scratch, search_rng)

    def root_children(self) -> list[search_tree.RootChild]:
        """The root's children, in creation order."""
        return super().root_children()[::-1]


@njit(**config.KERNEL)
def search(root, tables, settings, tree, scratch, search_rng):
    """Run ``settings.iterations`` SO-ISMCTS iterations (``search_tree.SearchSettings``) from ``root`` (a
    ``Position``) for ``settings.seat``.

    ``tables`` are the sampler's (``sampler.DealTables``); at the ``HAND_END`` horizon a seat's
    value is ``settings.values[next hand, seats left, status, is chooser, dog's life used]``
    (``hand_values.hand_values``).
    The tree (``SearchTree``) grows in place by at most one node an iteration (a full tree plays
    out from its leaves). ``search_rng`` (uint64[1]) drives every random choice, so a search
    is a function of it.
    """
    work = scratch.position
    stop_hand = hand_number(root.ints) + 1 if settings.horizon == HAND_END else NO_LATER_HAND
    for _ in range(settings.iterations):
        copy_position(root, work)
        sampler.draw_deal(tables, search_rng, search_tree.STREAM, scratch.hands, scratch.rest)
        deal_hidden(work, scratch.hands, scratch.rest, settings.seat)
        seed_streams(work.rng, next_u64(search_rng, search_tree.STREAM), seat_count(work.ints))
        depth = _descend(settings.c, stop_hand, search_rng, tree, scratch)
        cards, ints, deck, rng = work
        while not is_over(ints) and hand_number(ints) < stop_hand:
            apply_action(cards, ints, deck, rng, policy_choice(settings.policy, cards, ints, rng))
        _values(ints, settings.values, scratch.values)
        search_tree.back_up(tree, scratch.path, depth, scratch.values)


@njit(**config.INLINED_KERNEL)
def _values(ints, hand_values, values):
    """Each seat's value in [0, 1]: its normalised score at a game's end, else 0 if out or its ``hand_values``."""
    n = seat_count(ints)
    if is_over(ints):
        for s in range(n):
            values[s] = (score(ints, s) + 1.0) / n
        return
    left = 0
    for s in range(n):
        if seat_status(ints, s) != OUT:
            left += 1
    next_hand, choosing, used = hand_number(ints), chooser(ints), 1 if dogs_life_used(ints) else 0
    for s in range(n):
        status = seat_status(ints, s)
        values[s] = 0.0 if status == OUT else hand_values[next_hand, left, status, 1 if s == choosing else 0, used]


@njit(**config.INLINED_KERNEL)
def _descend(c, stop_hand, search_rng, tree, scratch):
    """Select down the tree and expand one node, stepping the scratch position along; returns the path's length."""
    cards, ints, deck, rng = scratch.position
    legal, untried, path = scratch.legal, scratch.untried, scratch.path
    node = search_tree.ROOT
    path[0] = search_tree.ROOT
    depth = 1
    while not is_over(ints) and hand_number(ints) < stop_hand and depth < path.shape[0]:
        n_legal = legal_actions(cards, ints, legal)
        best, n_untried = search_tree.ucb_child(tree, node, legal, n_legal, c, untried)
        if n_untried > 0 and search_tree.has_room(tree):
            action = untried[below(search_rng, search_tree.STREAM, n_untried)]
            child = search_tree.add_child(tree, node, action, to_move(ints))
            apply_action(cards, ints, deck, rng, action)
            path[depth] = child
            return depth + 1
        if best == search_tree.NO_NODE:  # a full tree meets an untried action: play out from here
            return depth
        apply_action(cards, ints, deck, rng, tree.links[best, search_tree.ACTION])
        node = best
        path[depth] = node
        depth += 1
    return depth
