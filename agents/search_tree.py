"""The search tree the compiled ISMCTS searches grow: its array layout and the steps that only touch the tree.

A tree is two arrays, one row per node: ``links`` (int64: parent, action, first child,
next sibling, the seat that chose the action) and ``stats`` (float64: visits, times
available, summed reward), with ``size[0]`` the nodes in use. Children are linked
newest first. Picking a child by UCB1 over availability counts, adding one and backing
up a playout's values do not depend on the game; each game's search inlines them
(and lists this file among those whose change drops its numba cache).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config

PARENT, ACTION, FIRST_CHILD, NEXT_SIBLING, MOVER = range(5)
VISITS, AVAILABLE, REWARD = range(3)
NO_NODE = -1


class TreeArrays:
    """A search tree's arrays, reused decision after decision (``reset`` empties it)."""

    def __init__(self, capacity: int) -> None:
        self.links = np.full((capacity, 5), NO_NODE, dtype=np.int64)
        self.stats = np.zeros((capacity, 3), dtype=np.float64)
        self.size = np.zeros(1, dtype=np.int64)

    @property
    def capacity(self) -> int:
        """How many nodes fit."""
        return self.links.shape[0]

    def reset(self) -> None:
        """An empty tree: only the root."""
        self.links[0] = NO_NODE
        self.stats[0] = 0.0
        self.size[0] = 1

    def root_children(self) -> list[tuple[int, float, float]]:
        """The root's children as (action, visits, mean value for the searching side), newest first."""
        children = []
        child = int(self.links[0, FIRST_CHILD])
        while child != NO_NODE:
            visits = float(self.stats[child, VISITS])
            children.append((int(self.links[child, ACTION]), visits,
                             float(self.stats[child, REWARD]) / visits if visits else 0.0))
            child = int(self.links[child, NEXT_SIBLING])
        return children


@njit(**config.INLINED_KERNEL)
def child_of(links, node, action):
    """The child of ``node`` reached by ``action``, or ``NO_NODE``."""
    child = links[node, FIRST_CHILD]
    while child != NO_NODE and links[child, ACTION] != action:
        child = links[child, NEXT_SIBLING]
    return child


@njit(**config.INLINED_KERNEL)
def add_child(links, stats, size, node, action, mover):
    """A new, unvisited child of ``node`` for ``action`` chosen by seat ``mover``; returns its row."""
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
def ucb_child(links, stats, node, legal, n_legal, c, untried):
    """Among the legal actions' children of ``node``, the best by UCB1 over availability counts (each counted
    available once more); the legal actions without a child go to ``untried``. Returns (best or NO_NODE, untried
    count)."""
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
def back_up(links, stats, path, depth, values):
    """Count a playout at the root and along ``path[1:depth]``; each node adds the value of the side whose seat
    chose it (``values[mover % len(values)]``: a seat's own, or its team's when there is one value per team)."""
    stats[0, VISITS] += 1.0
    sides = values.shape[0]
    for k in range(1, depth):
        node = path[k]
        stats[node, VISITS] += 1.0
        stats[node, REWARD] += values[links[node, MOVER] % sides]
