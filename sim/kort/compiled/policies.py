"""Compiled playout policies for the Kort engine: ``greedy``'s choices made inside numba (uniform random is
``kernels.uniform_action``; the ids are ``sim.policy_ids``'). Public through ``sim.kort.compiled``.

``greedy_choice`` makes exactly the choices of ``agents.kort.greedy`` (tested at every decision of
many matches) for the seat to move from its own cards and a *trick row*: the current trick's plays
in order and the match target (columns ``T_*``, ``TRICK_FIELDS`` of them). The thresholds below are
greedy's, here once for both: the Python agent imports them. ``greedy_action`` is the same for a
search that knows every seat's hand: its *view* (``View``) is every hand and the trick row, and while the holder
chooses trumps the holder's five are the deal's first five cards in ``deck``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sim import config
from sim.cards import SUIT_MASK
from sim.compiled_bits import lowest_card, popcount
from sim.kort import encoding
from sim.kort.compiled.state import I_HOLDER, I_PHASE, I_TO_MOVE, I_TRUMP, I_WINS
from sim.kort.compiled.trop_chance import count_cards, trop_to_end_chance
from sim.kort.rules import FACE_CARDS
from sim.policy_ids import GREEDY, RANDOM

POLICY_IDS: dict[str, np.int64] = {"random": RANDOM, "greedy": GREEDY}
"""The policies a search plays its playouts with, by name (``RANDOM``: ``random_action``; ``GREEDY``)."""

ACE, KING = 12, 11
REDEAL_UNLESS_TRUMPS = 5  # a faceless hand with this many trumps is kept
REDEAL_UNLESS_ACES = 3  # or with this many aces
TROP_TO_END_CHANCE = 0.5  # the success chance that makes it declare Trop to the end
DRAW_TRUMPS_FROM = 5  # trumps that make it lead trumps; one fewer with the ace or king
TROP_FROM = 4  # trumps (the led card included) with the ace or king that make it declare Trop

# trick row columns (int64): the trick's plays (seats, cards), how many, the match target
T_SEAT, T_CARD, T_LEN, T_TARGET = 0, 4, 8, 9
TRICK_FIELDS = 10
P_TRUMP, P_LEAD, P_DECLARE, P_FOLLOW, P_VOTE = (int(p) for p in (
    encoding.Phase.TRUMP, encoding.Phase.LEAD, encoding.Phase.DECLARE, encoding.Phase.FOLLOW, encoding.Phase.VOTE))
KORT_WINS = encoding.RESULT_WINS[encoding.Result.KORT]
SUITS = np.array(SUIT_MASK, dtype=np.uint64)
FACES = np.uint64(FACE_CARDS)
ONE = np.uint64(1)
NONE = np.uint64(0)


class View(NamedTuple):
    """What a search knows beside its position, for ``greedy_action``: every seat's hand and the trick row."""

    hands: np.ndarray  # uint64[4]: each seat's cards
    trick: np.ndarray  # int64[TRICK_FIELDS]: the current trick's plays and the match target (columns T_*)

@njit(**config.INLINED_KERNEL)
def _rank(card):
    return card % 13


@njit(**config.INLINED_KERNEL)
def _suit(card):
    return card // 13


@njit(**config.INLINED_KERNEL)
def _cost(card, trump_suit):
    return card % 13 + (13 if card // 13 == trump_suit else 0)


@njit(**config.INLINED_KERNEL)
def _has(cards, card):
    return cards >> np.uint64(card) & ONE != NONE


@njit(**config.INLINED_KERNEL)
def beats(card, best, trump_suit):
    """Whether ``card`` beats ``best`` (trumps ``trump_suit``)."""
    if card // 13 == best // 13:
        return card % 13 > best % 13
    return card // 13 == trump_suit


@njit(**config.INLINED_KERNEL)
def cheapest(cards, trump_suit):
    """The cheapest card of a non-empty set (ties: the lower id)."""
    best, best_cost = -1, 99
    rest = cards
    while rest != NONE:
        card = lowest_card(rest)
        rest &= rest - ONE
        if _cost(card, trump_suit) < best_cost:
            best, best_cost = card, _cost(card, trump_suit)
    return best


@njit(**config.INLINED_KERNEL)
def _highest(cards):
    """The highest-ranked card of a non-empty set (ties: the higher id)."""
    best = -1
    rest = cards
    while rest != NONE:
        card = lowest_card(rest)
        rest &= rest - ONE
        if best < 0 or _rank(card) >= _rank(best):
            best = card
    return best


@njit(**config.INLINED_KERNEL)
def _choose_trump(five):
    best, best_count, best_sum = 0, -1, -1
    for suit in range(4):
        count, rank_sum = 0, 0
        rest = five & SUITS[suit]
        while rest != NONE:
            count += 1
            rank_sum += _rank(lowest_card(rest))
            rest &= rest - ONE
        if count > best_count or (count == best_count and rank_sum >= best_sum):
            best, best_count, best_sum = suit, count, rank_sum
    return encoding.TRUMP_BASE + best


@njit(**config.INLINED_KERNEL)
def _top_trump(cards, trump_suit):
    """Whether ``cards`` hold the ace or king of trumps."""
    return _has(cards, trump_suit * 13 + ACE) or _has(cards, trump_suit * 13 + KING)


@njit(**config.INLINED_KERNEL)
def _declaration(hand, led, trump_suit, offered_to_end):
    held = (hand & SUITS[trump_suit]) | (ONE << np.uint64(led))
    if offered_to_end:
        ranks = 0
        for card in range(trump_suit * 13, trump_suit * 13 + 13):
            if _has(held, card):
                ranks |= 1 << _rank(card)
        if trop_to_end_chance(ranks) >= TROP_TO_END_CHANCE:
            return encoding.TROP_TO_END
    if count_cards(held) >= TROP_FROM and _top_trump(held, trump_suit):
        return encoding.TROP
    return encoding.SAR


@njit(**config.INLINED_KERNEL)
def _suit_length(hand, card):
    return popcount(hand & SUITS[_suit(card)])


@njit(**config.INLINED_KERNEL)
def side_lead(hand, side, trumps_held):
    """``greedy.side_lead``: from the side cards ``side``, an ace of its shortest suit, a low singleton, or the
    longest suit's lowest."""
    ace = -1
    for suit in range(4):
        card = suit * 13 + ACE
        if _has(side, card) and (ace < 0 or _suit_length(hand, card) < _suit_length(hand, ace)):
            ace = card
    if ace >= 0:
        return ace
    if trumps_held >= 2:
        single = -1
        rest = side & ~FACES
        while rest != NONE:
            card = lowest_card(rest)
            rest &= rest - ONE
            if _suit_length(hand, card) == 1 and (single < 0 or _rank(card) < _rank(single)):
                single = card
        if single >= 0:
            return single
    pick = -1
    rest = side
    while rest != NONE:
        card = lowest_card(rest)
        rest &= rest - ONE
        if pick < 0:
            pick = card
            continue
        length, pick_length = _suit_length(hand, card), _suit_length(hand, pick)
        if length > pick_length or (length == pick_length and _rank(card) < _rank(pick)):
            pick = card
    return pick


@njit(**config.INLINED_KERNEL)
def _lead(hand, cards, trump_suit):
    trumps = cards & SUITS[trump_suit]
    side = cards & ~SUITS[trump_suit]
    if side == NONE:
        return _highest(trumps)
    held = popcount(hand & SUITS[trump_suit])
    if trumps != NONE and (held >= DRAW_TRUMPS_FROM or (held >= DRAW_TRUMPS_FROM - 1 and _top_trump(hand, trump_suit))):
        return _highest(trumps)
    return side_lead(hand, side, held)


@njit(**config.INLINED_KERNEL)
def _follow(trick, cards, trump_suit, seat):
    best_seat, best = trick[T_SEAT], trick[T_CARD]
    for k in range(1, trick[T_LEN]):
        if beats(trick[T_CARD + k], best, trump_suit):
            best_seat, best = trick[T_SEAT + k], trick[T_CARD + k]
    chosen = NONE
    partner_takes = best_seat == (seat + 2) % encoding.NUM_SEATS
    rest = cards
    while rest != NONE:
        card = lowest_card(rest)
        rest &= rest - ONE
        if beats(card, best, trump_suit) != partner_takes:
            chosen |= ONE << np.uint64(card)
    return cheapest(chosen if chosen != NONE else cards, trump_suit)


@njit(**config.INLINED_KERNEL)
def _bavan_vote(ints, hand, trump_suit, seat, target):
    team = seat % 2
    if ints[I_HOLDER] % 2 != team or ints[I_WINS + team] + KORT_WINS >= target:
        return encoding.BAVAN_NO
    for card in range(52):
        if _has(hand, card) and _suit(card) != trump_suit and _rank(card) != ACE:
            return encoding.BAVAN_NO
    return encoding.BAVAN_YES


@njit(**config.INLINED_KERNEL)
def greedy_action(ints, deck, view, legal, n_legal):
    """``agents.kort.greedy``'s choice among ``legal[:n_legal]`` at the position, from the view's cards."""
    if n_legal == 1:
        return legal[0]
    hand = view.hands[ints[I_TO_MOVE]]
    if ints[I_PHASE] == P_TRUMP:  # the holder's five: the deal's first (the view keeps no redealt hands)
        hand = NONE
        for p in range(encoding.FIRST_PACKET):
            hand |= ONE << np.uint64(deck[p])
    return greedy_choice(ints, hand, view.trick, legal, n_legal, True)


@njit(**config.INLINED_KERNEL)
def greedy_choice(ints, hand, trick, legal, n_legal, redeal_auto):
    """``agents.kort.greedy``'s choice among ``legal[:n_legal]`` for the seat to move holding ``hand``, the trick
    and target in ``trick`` (a view's trick row); ``redeal_auto`` False is ``greedy:redeal=never``."""
    if n_legal == 1:
        return legal[0]
    seat, stage, trump_suit = ints[I_TO_MOVE], ints[I_PHASE], ints[I_TRUMP]
    if stage == P_TRUMP:
        return _choose_trump(hand)
    if stage == P_DECLARE:
        return _declaration(hand, trick[T_CARD], trump_suit, legal[n_legal - 1] == encoding.TROP_TO_END)
    if stage == P_VOTE:
        return _bavan_vote(ints, hand, trump_suit, seat, trick[T_TARGET])
    if redeal_auto and legal[n_legal - 1] == encoding.REDEAL:
        aces = 0
        for suit in range(4):
            aces += 1 if _has(hand, suit * 13 + ACE) else 0
        if popcount(hand & SUITS[trump_suit]) < REDEAL_UNLESS_TRUMPS and aces < REDEAL_UNLESS_ACES:
            return encoding.REDEAL
    cards = NONE
    for k in range(n_legal):
        if legal[k] < encoding.TRUMP_BASE:
            cards |= ONE << np.uint64(legal[k])
    if stage == P_LEAD:
        return _lead(hand, cards, trump_suit)
    return _follow(trick, cards, trump_suit, seat)
