"""The search tree the compiled ISMCTS searches grow: its array layout and the steps that only touch the tree.

A tree is two arrays, one row per node: ``links`` (int64: parent, action, first child,
next sibling, the seat that chose the action) and ``stats`` (float64: visits, times
available, summed reward), with ``size[0]`` the nodes in use; ``SearchTree`` holds the three.
Children are linked newest first. Picking a child by UCB1 over availability counts, adding
one and backing up a playout's values do not depend on the game; each game's search inlines them
(and lists this file among those whose change drops its numba cache).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from sim import config

PARENT, ACTION, FIRST_CHILD, NEXT_SIBLING, MOVER = range(5)
VISITS, AVAILABLE, REWARD = range(3)
NO_NODE = -1
ROOT = 0  # the root's row: the decision being searched
STREAM = 0  # a search's one random stream: ``search_rng[STREAM]``


class SearchSettings(NamedTuple):
    """One decision's search as an ``mcts`` spec sets it, built alike by a game's Python agent and by its compiled
    lineup seat, so that both search with the same parameters."""

    seat: int  # the searching seat
    iterations: int
    c: float  # the exploration constant
    policy: int  # the playouts' compiled policy (the game's ``POLICY_IDS``)
    horizon: int  # where playouts stop, in the game's own ids (the end of the game, or of a hand or round)
    values: np.ndarray  # the game's table valuing a playout that stops before the game's end

    def running(self, iterations: int) -> SearchSettings:
        """These settings for a call that runs ``iterations`` (a time budget runs a decision in chunks)."""
        return self if iterations == self.iterations else self._replace(iterations=iterations)


class SearchTree(NamedTuple):
    """A search tree's rows, as the compiled searches take them (layout in the module docstring)."""

    links: np.ndarray  # int64[capacity, 5]
    stats: np.ndarray  # float64[capacity, 3]
    size: np.ndarray  # int64[1]: the nodes in use


class SearchWork(NamedTuple):
    """What one compiled decision of a lineup's ``mcts`` works in: the root position it rebuilds from what the
    seat sees, the tree, the game's search scratch (its ``search.Scratch``), and the search's stream (uint64[1])."""

    root: Any
    tree: SearchTree
    scratch: Any
    search_rng: np.ndarray


class RootChild(NamedTuple):
    """A child of the root as a search reports it."""

    action: int
    visits: float
    mean_value: float  # for the side that chose it


@njit(**config.KERNEL)
def new_tree(capacity: int) -> SearchTree:
    """An empty tree with room for ``capacity`` nodes (compiled: a lineup kernel makes one per chunk)."""
    return SearchTree(np.full((capacity, 5), NO_NODE, dtype=np.int64), np.zeros((capacity, 3), dtype=np.float64),
                      np.zeros(1, dtype=np.int64))


class TreeArrays:
    """A search tree's rows, reused decision after decision (``reset`` empties it), and its root read from Python."""

    def __init__(self, capacity: int) -> None:
        self.rows = new_tree(capacity)

    @property
    def capacity(self) -> int:
        """How many nodes fit."""
        return self.rows.links.shape[0]

    def is_full(self) -> bool:
        """Whether every node is in use (a full tree plays out from its leaves)."""
        return int(self.rows.size[0]) >= self.capacity

    def reset(self) -> None:
        """An empty tree: only the root."""
        clear_tree(self.rows)

    def most_visited(self) -> int:
        """The action the search plays (``most_visited_action``, as the compiled lineups pick)."""
        return int(most_visited_action(self.rows))

    def root_children(self) -> list[RootChild]:
        """The root's children, newest first."""
        links, stats, _ = self.rows
        children = []
        child = int(links[ROOT, FIRST_CHILD])
        while child != NO_NODE:
            visits = float(stats[child, VISITS])
            children.append(RootChild(int(links[child, ACTION]), visits,
                                      float(stats[child, REWARD]) / visits if visits else 0.0))
            child = int(links[child, NEXT_SIBLING])
        return children


@njit(**config.INLINED_KERNEL)
def clear_tree(tree):
    """Empty ``tree``: only the root, unvisited."""
    tree.links[ROOT, :] = NO_NODE
    tree.stats[ROOT, :] = 0.0
    tree.size[0] = 1


@njit(**config.INLINED_KERNEL)
def most_visited_action(tree):
    """The action of the root's most visited child (ties: the lower id): what a search plays."""
    best, best_visits = -1, -1.0
    child = tree.links[ROOT, FIRST_CHILD]
    while child != NO_NODE:
        action, visits = tree.links[child, ACTION], tree.stats[child, VISITS]
        if visits > best_visits or (visits == best_visits and action < best):
            best, best_visits = action, visits
        child = tree.links[child, NEXT_SIBLING]
    return best


@njit(**config.INLINED_KERNEL)
def child_of(links, node, action):
    """The child of ``node`` reached by ``action``, or ``NO_NODE``."""
    child = links[node, FIRST_CHILD]
    while child != NO_NODE and links[child, ACTION] != action:
        child = links[child, NEXT_SIBLING]
    return child


@njit(**config.INLINED_KERNEL)
def add_child(tree, node, action, mover):
    """A new, unvisited child of ``node`` for ``action`` chosen by seat ``mover``; returns its row."""
    links, stats, size = tree
    child = size[0]
    size[0] += 1
    links[child, PARENT] = node
    links[child, ACTION] = action
    links[child, FIRST_CHILD] = NO_NODE
    links[child, NEXT_SIBLING] = links[node, FIRST_CHILD]
    links[child, MOVER] = mover
    links[node, FIRST_CHILD] = child
    stats[child, VISITS] = 0.0
    stats[child, AVAILABLE] = 1.0
    stats[child, REWARD] = 0.0
    return child


@njit(**config.INLINED_KERNEL)
def has_room(tree):
    """Whether another node fits."""
    return tree.size[0] < tree.links.shape[0]


@njit(**config.INLINED_KERNEL)
def ucb_child(tree, node, legal, n_legal, c, untried):
    """Among the legal actions' children of ``node``, the best by UCB1 over availability counts (each counted
    available once more); the legal actions without a child go to ``untried``. Returns (best or NO_NODE, untried
    count)."""
    links, stats, _ = tree
    n_untried = 0
    best, best_score = NO_NODE, -1.0
    for k in range(n_legal):
        child = child_of(links, node, legal[k])
        if child == NO_NODE:
            untried[n_untried] = legal[k]
            n_untried += 1
            continue
        stats[child, AVAILABLE] += 1.0
        visits = stats[child, VISITS]
        ucb = stats[child, REWARD] / visits + c * np.sqrt(np.log(stats[child, AVAILABLE]) / visits)
        if ucb > best_score:
            best, best_score = child, ucb
    return best, n_untried


@njit(**config.INLINED_KERNEL)
def back_up(tree, path, depth, values):
    """Count a playout at the root and along ``path[1:depth]``; each node adds the value of the side whose seat
    chose it (``values[mover % len(values)]``: a seat's own, or its team's when there is one value per team)."""
    links, stats, _ = tree
    stats[ROOT, VISITS] += 1.0
    sides = values.shape[0]
    for k in range(1, depth):
        node = path[k]
        stats[node, VISITS] += 1.0
        stats[node, REWARD] += values[links[node, MOVER] % sides]
