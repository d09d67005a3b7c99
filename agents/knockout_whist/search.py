"""Compiled single-observer information-set MCTS (SO-ISMCTS) for Knockout Whist's ``mcts``.

One tree over the searching seat's information set: a node is a sequence of actions from the decision being made,
whatever cards lie behind them. Each iteration determinizes (a fresh sample of the hidden cards), selects by UCB1
over availability counts, expands one untried action and plays out with a compiled policy, then backs up each
seat's own value (max-n). Values are in [0, 1], each seat's expected normalised score (``hand_values`` at a hand's
end). Everything runs inside numba on the engine's compiled step API (``sim.knockout_whist.compiled``): one call
makes a whole decision's iterations. The steps in full are in docs/internals.md, ``agents.knockout_whist.search``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.knockout_whist import sampler
from agents.search_tree import ACTION, NO_NODE, TreeArrays, add_child, back_up, ucb_child
from sim import config
from sim.knockout_whist.compiled import (
    NUM_ACTIONS,
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


class Tree(TreeArrays):
    """A search tree's arrays and the scratch arrays its iterations step, reused decision after decision."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.position = new_position()
        self.hands = np.zeros(MAX_SEATS, dtype=np.uint64)
        self.rest = np.zeros(52, dtype=np.int64)
        self.legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.untried = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.path = np.zeros(4096, dtype=np.int64)
        self.values = np.zeros(MAX_SEATS, dtype=np.float64)

    def scratch(self) -> tuple:
        """The arrays ``search`` takes after ``search_rng``, in its order."""
        return (self.links, self.stats, self.size, self.position, self.hands, self.rest, self.legal, self.untried,
                self.path, self.values)

    def root_children(self) -> list[tuple[int, float, float]]:
        """The root's children as (action, visits, mean value for the searching seat), in creation order."""
        return super().root_children()[::-1]


@njit(**config.KERNEL)
def search(root, deal, seat, iterations, c, policy, horizon, hand_values, search_rng, links, stats, size, work,
           hands, rest, legal, untried, path, values):
    """Run ``iterations`` SO-ISMCTS iterations from ``root`` (the position's four arrays) for ``seat``.

    ``deal`` is the sampler's arrays (``DealSampler.arrays``); ``policy`` the playouts'
    (``compiled.POLICY_IDS``); ``horizon`` ``GAME_END`` or ``HAND_END``, the latter reading
    ``hand_values[next hand, seats left, status, is chooser, dog's life used]``. The tree is
    ``links, stats, size``, grown in place by at most one node an iteration (a full tree plays
    out from its leaves). ``search_rng`` (uint64[1]) drives every random choice, so a search
    is a function of it.
    """
    cards, ints, deck, rng = work
    stop_hand = hand_number(root[1]) + 1 if horizon == HAND_END else NO_LATER_HAND
    for _ in range(iterations):
        copy_position(root[0], root[1], root[2], root[3], cards, ints, deck, rng)
        sampler.draw_deal(deal[0], deal[1], deal[2], deal[3], deal[4], deal[5], deal[6], deal[7], deal[8],
                          deal[9], deal[10], deal[11], search_rng, 0, hands, rest)
        deal_hidden(cards, ints, deck, hands, rest, seat)
        seed_streams(rng, next_u64(search_rng, 0), seat_count(ints))
        depth = _descend(cards, ints, deck, rng, c, stop_hand, search_rng, links, stats, size, legal, untried, path)
        while not is_over(ints) and hand_number(ints) < stop_hand:
            apply_action(cards, ints, deck, rng, policy_choice(policy, cards, ints, rng))
        _values(ints, hand_values, values)
        back_up(links, stats, path, depth, values)


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
def _descend(cards, ints, deck, rng, c, stop_hand, search_rng, links, stats, size, legal, untried, path):
    """Select down the tree and expand one node, stepping the position along; returns the path's length."""
    node = 0
    path[0] = 0
    depth = 1
    while not is_over(ints) and hand_number(ints) < stop_hand and depth < path.shape[0]:
        n_legal = legal_actions(cards, ints, legal)
        best, n_untried = ucb_child(links, stats, node, legal, n_legal, c, untried)
        if n_untried > 0 and size[0] < links.shape[0]:
            action = untried[below(search_rng, 0, n_untried)]
            child = add_child(links, stats, size, node, action, to_move(ints))
            apply_action(cards, ints, deck, rng, action)
            path[depth] = child
            return depth + 1
        if best == NO_NODE:  # a full tree meets an untried action: play out from here
            return depth
        apply_action(cards, ints, deck, rng, links[best, ACTION])
        node = best
        path[depth] = node
        depth += 1
    return depth
