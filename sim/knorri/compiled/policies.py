"""Compiled policies for the compiled engine's playouts, behind one dispatcher.

The playout kernels call ``choose(policy, seat, legal, n_legal, cards_row, ints_row, rng)`` at every decision
(phase-1 choices among two or more captures and every phase-2 action) and apply the id it returns. A policy is a
numba function ``policy(seat, legal, n_legal, cards_row, ints_row, rng) -> int`` returning one of the first
``n_legal`` ids of ``legal``; it reads the hand's rows (``state.C_*``, ``state.I_*``) and draws from its seat's
stream ``rng[RNG_SEAT + seat]``. The kernels never give a policy the stock order. Each argument is described in
docs/internals.md, ``sim.knorri.compiled.policies``. To add a policy: write one such function, give it the next id
in ``sim.policy_ids`` (shared by every game), add its name to ``POLICY_NAMES`` there and one branch to
``choose``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import below, nth_card, popcount
from sim.knorri.compiled.kernels import legal_actions, phase2_choices
from sim.knorri.compiled.state import I_OPENING, I_PHASE, IS_DIAMOND, RNG_DEAL, RNG_SEAT
from sim.knorri.encoding import PICK_UP
from sim.policy_ids import GREEDY, POLICY_NAMES, PROTOCOL, RANDOM  # noqa: F401  (Knorri plays all three)


@njit(**config.INLINED_KERNEL)
def protocol_policy(seat: int, legal: np.ndarray, n_legal: int, cards_row: np.ndarray,
                    ints_row: np.ndarray, rng: np.ndarray) -> int:
    """The conformance protocol's choice, drawn from the same stream as the deck."""
    return legal[below(rng, RNG_DEAL, n_legal)]


@njit(**config.INLINED_KERNEL)
def random_policy(seat: int, legal: np.ndarray, n_legal: int, cards_row: np.ndarray,
                  ints_row: np.ndarray, rng: np.ndarray) -> int:
    """A uniform choice from the seat's own stream (the same draws as ``agents.base.RandomAgent``)."""
    return legal[below(rng, RNG_SEAT + seat, n_legal)]


@njit(**config.KERNEL)
def greedy_policy(seat: int, legal: np.ndarray, n_legal: int, cards_row: np.ndarray,
                  ints_row: np.ndarray, rng: np.ndarray) -> int:
    """``agents.knorri.greedy.greedy_action`` compiled: see that module for the heuristic and its reasons."""
    if ints_row[I_PHASE] == 1:  # the highest-ranked capture, ties to the higher id
        best = legal[0]
        for i in range(1, n_legal):
            if legal[i] % 13 * 64 + legal[i] >= best % 13 * 64 + best:
                best = legal[i]
        return best
    if ints_row[I_OPENING]:  # the longest club run
        return legal[n_legal - 1]
    best, best_key = 52, 1 << 30  # the cheapest card (lead) or beater (follow); pick up if none
    for i in range(n_legal):
        card = legal[i]
        if card < 52:
            key = (card % 13 + (13 if IS_DIAMOND[card] else 0)) * 64 + card
            if key < best_key:
                best, best_key = card, key
    return best


@njit(**config.INLINED_KERNEL)
def uniform_phase2_choice(cards_row: np.ndarray, ints_row: np.ndarray, rng: np.ndarray, stream: int) -> int:
    """``legal[below(rng, stream, n_legal)]`` for an ordinary phase-2 turn, without writing the legal list.

    The legal ids are the playable cards ascending, then ``PICK_UP``: draw k and take the
    k-th playable card straight from the bit set, or pick up when k is past the cards.
    """
    playable, pick_up = phase2_choices(cards_row, ints_row)
    n_cards = popcount(playable)
    k = below(rng, stream, n_cards + pick_up)
    return PICK_UP if k == n_cards else nth_card(playable, k)


@njit(**config.INLINED_KERNEL)
def decide(policy: int, seat: int, cards_row: np.ndarray, ints_row: np.ndarray, rng: np.ndarray,
           legal: np.ndarray) -> int:
    """The action policy ``policy`` takes for ``seat`` in the hand's current state (``legal``: int64[65] scratch).

    The uniform policies skip the legal list on ordinary phase-2 turns (most decisions of a hand).
    """
    if policy != GREEDY and ints_row[I_PHASE] == 2 and ints_row[I_OPENING] == 0:
        return uniform_phase2_choice(cards_row, ints_row, rng, RNG_SEAT + seat if policy == RANDOM else RNG_DEAL)
    n_legal = legal_actions(cards_row, ints_row, legal)
    return choose(policy, seat, legal, n_legal, cards_row, ints_row, rng)


@njit(**config.INLINED_KERNEL)
def choose(policy: int, seat: int, legal: np.ndarray, n_legal: int, cards_row: np.ndarray,
           ints_row: np.ndarray, rng: np.ndarray) -> int:
    """The action the policy with id ``policy`` takes for ``seat``; see the module docstring."""
    if policy == RANDOM:
        return random_policy(seat, legal, n_legal, cards_row, ints_row, rng)
    if policy == GREEDY:
        return greedy_policy(seat, legal, n_legal, cards_row, ints_row, rng)
    return protocol_policy(seat, legal, n_legal, cards_row, ints_row, rng)
