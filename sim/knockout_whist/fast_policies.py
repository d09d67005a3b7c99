"""Compiled playout policies for the Knockout Whist engine: uniform random, and greedy's heuristic (private).

``greedy_choice`` makes exactly the choice of ``agents.knockout_whist.greedy.greedy_action``
from the seat to move's cards and the trick on the table (tested decision by decision),
so a search can play its playouts with greedy at compiled speed. Public through
``sim.knockout_whist.compiled``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config, fast_bits
from sim.fast_bits import U64, popcount
from sim.knockout_whist import fast, fast_state
from sim.knockout_whist.encoding import END_EXCHANGE, KNOCK, NO_TRUMPS, TRUMPS_BASE
from sim.knockout_whist.fast import apply_action, choices, uniform_action
from sim.knockout_whist.fast_state import (
    C_HAND,
    I_BEST_CARD,
    I_END_REASON,
    I_PHASE,
    I_STATUS,
    I_TO_MOVE,
    I_TRUMPS,
    P_CHOOSE,
    P_EXCHANGE,
    RNG_SEAT,
    S_DOG,
    SUITS,
)

# Kernels here inline the engine's helpers: drop this module's numba cache when one of those files changes.
config.drop_stale_cache(__file__, [m.__file__ for m in (fast, fast_state, fast_bits, config)])

RANDOM = 1
"""Uniform among the legal ids, from the seat to move's own stream (``rng[RNG_SEAT + seat]``), as ``RandomAgent``."""
GREEDY = 2
"""Greedy's heuristic (``agents.knockout_whist.greedy``); deterministic."""
POLICY_IDS: dict[str, int] = {"random": RANDOM, "greedy": GREEDY}

EXCHANGE_BELOW = 6  # greedy throws away side cards below an 8 (rank index 6), as agents.knockout_whist.greedy
LOW_CARDS = U64(sum(((1 << EXCHANGE_BELOW) - 1) << (13 * suit) for suit in range(4)))


@njit(**config.INLINED_KERNEL)
def _has(card_set, card):
    return (card_set >> U64(card)) & U64(1) == U64(1)


@njit(**config.INLINED_KERNEL)
def _beats(card, best, trumps):
    """Whether ``card`` beats ``best``, the trick's winning card so far (``rules.card_beats``)."""
    if card // 13 == best // 13:
        return card > best
    return trumps != NO_TRUMPS and card // 13 == trumps


@njit(**config.INLINED_KERNEL)
def _longest_suit(hand):
    """Greedy's trumps: the suit with most cards, ties to the higher rank sum, then the higher suit."""
    best_suit, best_key = 0, -1
    for suit in range(4):
        rank_sum = 0
        for rank in range(13):
            if _has(hand, suit * 13 + rank):
                rank_sum += rank
        key = popcount(hand & SUITS[suit]) * 10_000 + rank_sum * 10 + suit
        if key > best_key:
            best_suit, best_key = suit, key
    return best_suit


@njit(**config.INLINED_KERNEL)
def greedy_choice(cards, ints):
    """Greedy's action for the seat to move (the game must not be over)."""
    card_set, special, n_special = choices(cards, ints)
    n_cards = popcount(card_set)
    if n_cards + n_special == 1:
        return special if n_cards == 0 else fast_bits.lowest_card(card_set)
    phase = ints[I_PHASE]
    seat = ints[I_TO_MOVE]
    if phase == P_CHOOSE:
        return TRUMPS_BASE + _longest_suit(cards[C_HAND + seat])
    trumps = ints[I_TRUMPS]
    trump_cards = SUITS[trumps] if trumps != NO_TRUMPS else U64(0)
    if phase == P_EXCHANGE:
        throwable = card_set & LOW_CARDS & ~trump_cards
        for rank in range(EXCHANGE_BELOW):  # the lowest rank first, then the lower suit
            for suit in range(4):
                if _has(throwable, suit * 13 + rank):
                    return suit * 13 + rank
        return END_EXCHANGE
    best = ints[I_BEST_CARD]
    if ints[I_STATUS + seat] == S_DOG:
        card = fast_bits.lowest_card(card_set)
        return card if best >= 0 and _beats(card, best, trumps) else KNOCK
    if best < 0:  # lead the highest side card (ties: the higher id), trumps only when holding nothing else
        side = card_set & ~trump_cards
        pool = side if side != U64(0) else card_set
        for rank in range(12, -1, -1):
            for suit in range(3, -1, -1):
                if _has(pool, suit * 13 + rank):
                    return suit * 13 + rank
    winners = U64(0)
    rest = card_set
    while rest:
        card = fast_bits.lowest_card(rest)
        rest &= rest - U64(1)
        if _beats(card, best, trumps):
            winners |= U64(1) << U64(card)
    pool = winners if winners != U64(0) else card_set
    choice, cheapest = -1, 1_000
    rest = pool
    while rest:  # the cheapest card (rank, plus 13 for a trump); ties to the lower id
        card = fast_bits.lowest_card(rest)
        rest &= rest - U64(1)
        cost = card % 13 + (13 if card // 13 == trumps else 0)
        if cost < cheapest:
            choice, cheapest = card, cost
    return choice


@njit(**config.INLINED_KERNEL)
def policy_choice(policy, cards, ints, rng):
    """The action ``policy`` (``RANDOM`` or ``GREEDY``) takes for the seat to move."""
    if policy == GREEDY:
        return np.int64(greedy_choice(cards, ints))
    return uniform_action(cards, ints, rng, RNG_SEAT + ints[I_TO_MOVE])


@njit(**config.STEP_KERNEL)
def play_out(cards, ints, deck, rng, policy):
    """Play the game on to its end with ``policy`` at every seat."""
    while ints[I_END_REASON] < 0:
        apply_action(cards, ints, deck, rng, policy_choice(policy, cards, ints, rng))
