"""``mcts``: Monte Carlo tree search over the position the log reveals.

Phase 2 is a game of complete information once the tracker has read the log,
so the search is plain UCT over the exact position: a lean tree (``__slots__``
nodes, action ids as edges), one value per seat (every seat picks the child
best for itself: max-n), scores normalised to [0, 1], and a playout at every
new leaf (compiled when the fast engine is installed).

In phase 1 the stock order is hidden. Each iteration samples an order of the
unseen cards (they are known as a set), rebuilds the position from the log
with it, and runs UCB1 over the root's choices with a playout to the end: a
flat search over sampled stock orders, since the choices that follow depend on
the order.

Parameters (spec ``mcts:iters=400,c=1.4,rollout=greedy``): ``iters`` playouts
per decision; ``time`` seconds per decision instead (0 = use ``iters``); ``c``
the exploration constant; ``rollout`` the playout policy, ``greedy`` or
``random``; ``seed`` varies the search's random streams. At each hand the
streams are reseeded from the hand's seed mixed with that ``seed`` (0 unless
given), so a hand with its agents is a function of its seed and the specs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.playout import PLAYOUT_POLICIES, Playout, make_playout
from agents.tracker import KnorriTracker
from sim.cards import card_list
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64, derive_seed

DEFAULT_ITERS = 100  # with Python playouts ~0.1 s a decision at 4 seats; raise it once playouts are compiled


class Node:
    """One position of the search tree: who moves, its children by action id, visits and per-seat values."""

    __slots__ = ("to_move", "untried", "children", "visits", "values")

    def __init__(self, to_move: int, untried: list[int], n_seats: int) -> None:
        self.to_move = to_move
        self.untried = untried
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.values = [0.0] * n_seats

    def best_child(self, c: float) -> tuple[int, Node]:
        """The child with the highest UCT score for the seat to move here."""
        log_visits = math.log(self.visits)
        seat = self.to_move
        best, best_score = None, -math.inf
        for action, child in self.children.items():
            score = child.values[seat] / child.visits + c * math.sqrt(log_visits / child.visits)
            if score > best_score:
                best, best_score = (action, child), score
        return best


def normalised(scores: Sequence[float], n_seats: int) -> list[float]:
    """Scores mapped to [0, 1]: the worst possible (the loser with everyone else out first) is 0."""
    low, high = -n_seats * (n_seats - 1) / 2, n_seats - 1
    return [(s - low) / (high - low) for s in scores]


class MCTSAgent:
    """UCT over the deduced position (phase 2), flat UCB over sampled stock orders (phase 1)."""

    PARAMETERS: dict[str, type] = {"iters": int, "time": float, "c": float, "rollout": str, "seed": int}

    def __init__(self, seed: int = 0, iters: int = DEFAULT_ITERS, time: float = 0.0, c: float = 1.4,
                 rollout: str = "greedy", spec_seed: int = 0) -> None:
        if iters < 1:
            raise ValueError(f"iters={iters}: give at least 1 playout per decision")
        if time < 0:
            raise ValueError(f"time={time}: give seconds per decision, 0 to use iters")
        if c < 0:
            raise ValueError(f"c={c}: the exploration constant is 0 or more")
        if rollout not in PLAYOUT_POLICIES:
            raise ValueError(f"rollout={rollout!r} is unknown: use {' or '.join(PLAYOUT_POLICIES)}")
        self.name = f"mcts:iters={iters},c={c},rollout={rollout}" + (f",time={time}" if time else "")
        self.iters, self.time_budget, self.c, self.rollout = iters, time, c, rollout
        self._spec_seed = spec_seed
        self.seat, self.n_seats = 0, 3
        self.tracker = KnorriTracker(3)
        self._reseed(derive_seed(seed, spec_seed))

    def _reseed(self, seed: int) -> None:
        self._stream = SplitMix64(seed)
        self._playout: Playout = make_playout(self.rollout, seed)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Start a new hand at ``seat``: a fresh tracker and, given a hand seed, fresh random streams."""
        self.seat, self.n_seats = seat, n_seats
        self.tracker = KnorriTracker(n_seats)
        if seed is not None:
            self._reseed(derive_seed(seed, self._spec_seed))

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The most visited root action after the search budget."""
        self.tracker.update(observation)
        if len(legal) == 1:
            return legal[0]
        if observation.phase == 1:
            return self._search_phase1(list(legal))
        return self._search_phase2(self.tracker.position())

    # ----- budget ------------------------------------------------------------------------

    def _budget(self):
        """Yield once per iteration until the iteration or time budget is spent."""
        if self.time_budget <= 0:
            yield from range(self.iters)
            return
        deadline = time.perf_counter() + self.time_budget
        done = 0
        while done < 1 or time.perf_counter() < deadline:
            yield done
            done += 1

    # ----- phase 2: UCT over the exact position --------------------------------------------

    def _search_phase2(self, position: KnorriHand) -> int:
        n = self.n_seats
        root = Node(position.to_move, self._shuffled(position.legal_actions()), n)
        for _ in self._budget():
            game = position.clone()
            node, path = root, [root]
            while not node.untried and node.children:
                action, node = node.best_child(self.c)
                game.apply(action)
                path.append(node)
            if node.untried and not game.done:
                action = node.untried.pop()
                game.apply(action)
                child = Node(game.to_move, self._shuffled(game.legal_actions()), n)
                node.children[action] = child
                path.append(child)
            scores = game.scores if game.done else self._playout.evaluate(game)
            values = normalised(scores, n)
            for visited in path:
                visited.visits += 1
                for seat in range(n):
                    visited.values[seat] += values[seat]
        return max(root.children.items(), key=lambda item: item[1].visits)[0]

    def _shuffled(self, actions: list[int]) -> list[int]:
        for i in range(len(actions) - 1, 0, -1):
            j = self._stream.below(i + 1)
            actions[i], actions[j] = actions[j], actions[i]
        return actions

    # ----- phase 1: UCB1 over the root's choices, the stock order sampled per playout ------------

    def _search_phase1(self, legal: list[int]) -> int:
        unseen = card_list(self.tracker.unseen)
        visits = [0] * len(legal)
        totals = [0.0] * len(legal)
        for iteration in self._budget():
            if iteration < len(legal):
                pick = iteration
            else:
                log_n = math.log(iteration)
                pick = max(range(len(legal)),
                           key=lambda i: totals[i] / visits[i] + self.c * math.sqrt(log_n / visits[i]))
            game = self.tracker.rebuild(self._shuffled(list(unseen)))
            game.apply(legal[pick])
            scores = game.scores if game.done else self._playout.evaluate(game)
            visits[pick] += 1
            totals[pick] += normalised(scores, self.n_seats)[self.seat]
        return legal[max(range(len(legal)), key=lambda i: (visits[i], -i))]


register("mcts")(MCTSAgent)
