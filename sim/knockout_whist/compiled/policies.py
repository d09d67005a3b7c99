"""Compiled playout policies for the Knockout Whist engine: uniform random, and greedy's heuristic (private).

``greedy_choice`` makes exactly the choice of ``agents.knockout_whist.greedy.greedy_action``
from the seat to move's cards and the trick on the table (tested decision by decision),
so a search can play its playouts with greedy at compiled speed. Public through
``sim.knockout_whist.compiled``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import U64, lowest_card, popcount
from sim.knockout_whist.compiled.kernels import apply_action, choices, uniform_action
from sim.knockout_whist.compiled.state import (
    C_HAND,
    I_BEST_CARD,
    I_END_REASON,
    I_LAST_TRICK,
    I_LED_SUIT,
    I_PHASE,
    I_STATUS,
    I_TO_MOVE,
    I_TRUMPS,
    P_CHOOSE,
    P_PLAY,
    RNG_SEAT,
    S_DOG,
    SUITS,
)
from sim.knockout_whist.encoding import END_EXCHANGE, KNOCK, NO_TRUMPS, TRUMPS_BASE
from sim.policy_ids import GREEDY, RANDOM

POLICY_IDS: dict[str, np.int64] = {"random": RANDOM, "greedy": GREEDY}
"""The policies a search or a batch seat plays by name (ids: ``sim.policy_ids``)."""

EXCHANGE_BELOW = 6  # greedy throws away side cards below an 8 (rank index 6), as agents.knockout_whist.greedy
LOW_CARDS = U64(sum(((1 << EXCHANGE_BELOW) - 1) << (13 * suit) for suit in range(4)))


@njit(**config.INLINED_KERNEL)
def _has(card_set, card):
    return (card_set >> U64(card)) & U64(1) == U64(1)


@njit(**config.INLINED_KERNEL)
def beats(card, best, trumps):
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
def greedy_trumps(hand):
    """Greedy's trump choice for a chooser holding ``hand``: its longest suit's action (never no trumps)."""
    return TRUMPS_BASE + _longest_suit(hand)


@njit(**config.INLINED_KERNEL)
def greedy_play(hand, trumps, led, best, is_dog, last_trick):
    """Greedy's card (or a dog's knock) for a seat holding ``hand`` in a trick.

    ``led`` is the suit led (-1 before a card is played), ``best`` the card winning the trick
    so far (-1 before one), ``trumps`` 0..3 or ``NO_TRUMPS``; ``last_trick`` forbids a dog's knock.
    """
    if is_dog:
        card = lowest_card(hand)
        return card if last_trick or (best >= 0 and beats(card, best, trumps)) else KNOCK
    legal = hand
    if led >= 0 and hand & SUITS[led] != U64(0):
        legal = hand & SUITS[led]
    if popcount(legal) == 1:
        return lowest_card(legal)
    trump_cards = SUITS[trumps] if trumps != NO_TRUMPS else U64(0)
    if best < 0:  # lead the highest side card (ties: the higher id), trumps only when holding nothing else
        side = legal & ~trump_cards
        pool = side if side != U64(0) else legal
        for rank in range(12, -1, -1):
            for suit in range(3, -1, -1):
                if _has(pool, suit * 13 + rank):
                    return suit * 13 + rank
    winners = U64(0)
    rest = legal
    while rest:
        card = lowest_card(rest)
        rest &= rest - U64(1)
        if beats(card, best, trumps):
            winners |= U64(1) << U64(card)
    return cheapest_card(winners if winners != U64(0) else legal, trumps)


@njit(**config.INLINED_KERNEL)
def cheapest_card(card_set, trumps):
    """The cheapest card of a non-empty set: its rank, plus 13 for a trump; ties to the lower id (greedy's)."""
    choice, cheapest = -1, 1_000
    rest = card_set
    while rest:
        card = lowest_card(rest)
        rest &= rest - U64(1)
        cost = card % 13 + (13 if card // 13 == trumps else 0)
        if cost < cheapest:
            choice, cheapest = card, cost
    return choice


@njit(**config.INLINED_KERNEL)
def greedy_choice(cards, ints):
    """Greedy's action for the seat to move (the game must not be over)."""
    seat = ints[I_TO_MOVE]
    phase = ints[I_PHASE]
    if phase == P_PLAY:
        return greedy_play(cards[C_HAND + seat], ints[I_TRUMPS], ints[I_LED_SUIT], ints[I_BEST_CARD],
                           ints[I_STATUS + seat] == S_DOG, ints[I_LAST_TRICK] != 0)
    if phase == P_CHOOSE:
        return greedy_trumps(cards[C_HAND + seat])
    card_set, _, _ = choices(cards, ints)  # the exchange: the cards still open to pick, then the end
    throwable = card_set & LOW_CARDS & ~(SUITS[ints[I_TRUMPS]] if ints[I_TRUMPS] != NO_TRUMPS else U64(0))
    for rank in range(EXCHANGE_BELOW):  # the lowest rank first, then the lower suit
        for suit in range(4):
            if _has(throwable, suit * 13 + rank):
                return suit * 13 + rank
    return END_EXCHANGE


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
