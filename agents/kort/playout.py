"""The view a Kort search keeps beside its position, so that its playouts can play ``greedy``.

The engine's compiled step API (``sim.kort.compiled``) gives a position's phase, the
seat to move, trumps, holder, tricks, wins and legal ids; its greedy policy
(``greedy_action``) also needs every seat's hand and the trick's plays. A search knows
them anyway: it dealt the hands itself and applies every action, so it keeps a *view*
beside the position (``new_view``, a ``View``: each seat's hand and the engine's trick row, the
current trick's plays and the match target) and steps it with ``apply``. When the holder
chooses trumps, the hands are read from the deal's permutation in the position's
``deck`` (the holder's first five are ``deck[0:5]``; after the choice
``rules.deal_positions`` says who got each card), which covers redeals and later rounds too.

``step`` plays one decision of a playout policy (``RANDOM`` or ``GREEDY``); ``table_view`` fills a
view from what one seat sees at a real table: how the lineups play ``greedy`` (``greedy_choice``)
and how every ``mcts`` search roots its view (``decision.start_search``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.kort.compiled import (
    RANDOM,
    T_CARD,
    T_LEN,
    T_SEAT,
    T_TARGET,
    TRICK_FIELDS,
    View,
    apply_action,
    greedy_action,
    leader,
    legal_actions,
    own_hand,
    phase,
    random_action,
    target_wins,
    to_move,
    trick_card,
    trick_plays,
)
from sim.kort.encoding import NUM_SEATS, TRUMP_BASE, Phase
from sim.kort.rules import deal_positions

P_TRUMP, P_LEAD = int(Phase.TRUMP), int(Phase.LEAD)
ONE = np.uint64(1)
NONE = np.uint64(0)
DEAL_SEAT = np.zeros((NUM_SEATS, 52), dtype=np.int64)
"""``DEAL_SEAT[holder, p]``: the seat dealt the deck's card at position p in a deal with that holder."""
for _holder in range(NUM_SEATS):
    for _seat, _positions in enumerate(deal_positions(_holder)):
        DEAL_SEAT[_holder, _positions] = _seat


# ----- the view ---------------------------------------------------------------------------------------
def new_view() -> View:
    """An empty view: each seat's hand (uint64 card sets) and the trick's plays (int64 columns)."""
    return View(np.zeros(NUM_SEATS, dtype=np.uint64), np.zeros(TRICK_FIELDS, dtype=np.int64))


@njit(**config.INLINED_KERNEL)
def start_view(root_view, view, hands, seat):
    """Copy ``root_view`` into ``view`` with the drawn ``hands`` of every seat but ``seat``."""
    for s in range(NUM_SEATS):
        view.hands[s] = root_view.hands[s] if s == seat else hands[s]
    for k in range(TRICK_FIELDS):
        view.trick[k] = root_view.trick[k]


@njit(**config.INLINED_KERNEL)
def apply(position, view, action):
    """Apply ``action`` to the position and keep the view in step (the hands dealt at a trump choice)."""
    cards, ints, deck, rng = position
    mover = to_move(ints)
    stage = phase(ints)
    apply_action(cards, ints, deck, rng, action)
    hands, trick = view
    if action < TRUMP_BASE:
        hands[mover] &= ~(ONE << np.uint64(action))
        if stage == P_LEAD:
            trick[T_LEN] = 0
        trick[T_SEAT + trick[T_LEN]] = mover
        trick[T_CARD + trick[T_LEN]] = action
        trick[T_LEN] += 1
    elif stage == P_TRUMP:
        for s in range(NUM_SEATS):
            hands[s] = NONE
        for p in range(52):
            hands[DEAL_SEAT[mover, p]] |= ONE << np.uint64(deck[p])
        trick[T_LEN] = 0


@njit(**config.INLINED_KERNEL)
def step(position, view, policy, legal):
    """One decision of ``policy`` (``RANDOM`` or ``GREEDY``) at every seat, applied."""
    cards, ints, deck, rng = position
    if policy == RANDOM:
        action = random_action(cards, ints, rng)
    else:
        action = greedy_action(ints, deck, view, legal, legal_actions(cards, ints, legal))
    apply(position, view, action)


@njit(**config.INLINED_KERNEL)
def table_view(cards, ints, seat, view):
    """The view ``seat`` has of a live match, its search's root view: its own hand (the others' 0), the
    trick's plays in order (the places past them 0, as in a new view) and the target; read through the engine's
    public accessors only."""
    hands, trick = view
    for s in range(NUM_SEATS):
        hands[s] = own_hand(cards, seat) if s == seat else NONE
    first, plays = leader(ints), trick_plays(ints)
    for k in range(NUM_SEATS):
        s = (first + k) % NUM_SEATS
        trick[T_SEAT + k], trick[T_CARD + k] = (s, trick_card(ints, s)) if k < plays else (0, 0)
    trick[T_LEN] = plays
    trick[T_TARGET] = target_wins(ints)
