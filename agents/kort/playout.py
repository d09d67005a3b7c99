"""Compiled playout policies for Kort's search: random, and ``greedy``'s choices made inside numba.

The engine's compiled step API (``sim.kort.compiled``) gives a position's phase, the
seat to move, trumps, holder, tricks, wins and legal ids, but not the seats' hands or
the trick's cards, which ``greedy`` decides from. A search knows them anyway: it dealt
the hands itself and applies every action, so it keeps a *view* beside the position
(``new_view``: each seat's hand and the current trick's plays, plus the match target)
and steps it with ``apply``. When the holder chooses trumps, the hands are read from
the deal's permutation in the position's ``deck`` (the holder's first five are
``deck[0:5]``; after the choice ``rules.deal_positions`` says who got each card), which
covers redeals and later rounds too.

``greedy_action`` makes exactly the choices of ``agents.kort.greedy`` (a test checks
it at every decision of many matches), with its thresholds; ``greedy_choice`` is the same
from one seat's hand and the trick, which is how the compiled lineups
(``agents.kort.lineup``) play ``greedy`` at a real table, its view filled by ``table_view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from agents.kort.greedy import (
    ACE,
    DRAW_TRUMPS_FROM,
    KING,
    REDEAL_UNLESS_ACES,
    REDEAL_UNLESS_TRUMPS,
    TROP_FROM,
    TROP_TO_END_CHANCE,
)
from agents.kort.trop_chance import count_cards, trop_to_end_chance
from sim import config
from sim.cards import SUIT_MASK, CardSet, to_set
from sim.kort.compiled import (
    apply_action,
    holder,
    leader,
    legal_actions,
    lowest_card,
    own_hand,
    phase,
    popcount,
    random_action,
    target_wins,
    to_move,
    trick_card,
    trick_plays,
    trump,
    wins,
)
from sim.kort.encoding import (
    BAVAN_NO,
    BAVAN_YES,
    NUM_SEATS,
    REDEAL,
    RESULT_WINS,
    SAR,
    TROP,
    TROP_TO_END,
    TRUMP_BASE,
    Phase,
    Result,
)
from sim.kort.rules import FACE_CARDS, deal_positions

RANDOM, GREEDY = 0, 1
POLICY_IDS = {"random": RANDOM, "greedy": GREEDY}
"""The playout policies by name."""

# view columns (int64): the trick's plays, how many, the match target
T_SEAT, T_CARD, T_LEN, T_TARGET = 0, 4, 8, 9
TRICK_FIELDS = 10
P_TRUMP, P_LEAD, P_DECLARE, P_FOLLOW, P_VOTE = (int(p) for p in (
    Phase.TRUMP, Phase.LEAD, Phase.DECLARE, Phase.FOLLOW, Phase.VOTE))
KORT_WINS = RESULT_WINS[Result.KORT]
SUITS = np.array(SUIT_MASK, dtype=np.uint64)
FACES = np.uint64(FACE_CARDS)
ONE = np.uint64(1)
NONE = np.uint64(0)
DEAL_SEAT = np.zeros((NUM_SEATS, 52), dtype=np.int64)
"""``DEAL_SEAT[holder, p]``: the seat dealt the deck's card at position p in a deal with that holder."""
for _holder in range(NUM_SEATS):
    for _seat, _positions in enumerate(deal_positions(_holder)):
        DEAL_SEAT[_holder, _positions] = _seat


# ----- the view ---------------------------------------------------------------------------------------
def new_view() -> tuple[np.ndarray, np.ndarray]:
    """Empty view arrays: each seat's hand (uint64 card sets) and the trick's plays (int64 columns)."""
    return np.zeros(NUM_SEATS, dtype=np.uint64), np.zeros(TRICK_FIELDS, dtype=np.int64)


def view_of(observation: Any, hands: Sequence[CardSet] = (0, 0, 0, 0)) -> tuple[np.ndarray, np.ndarray]:
    """The view of an observation's position: ``hands`` for the other seats, the seat's own, the trick, the target."""
    hand_row, trick_row = new_view()
    for seat in range(NUM_SEATS):
        hand_row[seat] = to_set(observation.hand) if seat == observation.seat else int(hands[seat])
    for k, (seat, card) in enumerate(observation.trick):
        trick_row[T_SEAT + k], trick_row[T_CARD + k] = seat, card
    trick_row[T_LEN] = len(observation.trick)
    trick_row[T_TARGET] = observation.options["target_wins"]
    return hand_row, trick_row


@njit(**config.INLINED_KERNEL)
def start_view(root_view, view, hands, seat):
    """Copy ``root_view`` into ``view`` with the drawn ``hands`` of every seat but ``seat``."""
    for s in range(NUM_SEATS):
        view[0][s] = root_view[0][s] if s == seat else hands[s]
    for k in range(TRICK_FIELDS):
        view[1][k] = root_view[1][k]


@njit(**config.INLINED_KERNEL)
def apply(cards, ints, deck, rng, view, action):
    """Apply ``action`` to the position and keep the view in step (the hands dealt at a trump choice)."""
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
def step(cards, ints, deck, rng, view, policy, legal):
    """One decision of ``policy`` (``RANDOM`` or ``GREEDY``) at every seat, applied."""
    if policy == RANDOM:
        action = random_action(cards, ints, rng)
    else:
        action = greedy_action(ints, deck, view, legal, legal_actions(cards, ints, legal))
    apply(cards, ints, deck, rng, view, action)


# ----- greedy, compiled -------------------------------------------------------------------------------
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
    return TRUMP_BASE + best


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
            return TROP_TO_END
    if count_cards(held) >= TROP_FROM and _top_trump(held, trump_suit):
        return TROP
    return SAR


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
    partner_takes = best_seat == (seat + 2) % NUM_SEATS
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
    if holder(ints) % 2 != team or wins(ints, team) + KORT_WINS >= target:
        return BAVAN_NO
    for card in range(52):
        if _has(hand, card) and _suit(card) != trump_suit and _rank(card) != ACE:
            return BAVAN_NO
    return BAVAN_YES


@njit(**config.INLINED_KERNEL)
def greedy_action(ints, deck, view, legal, n_legal):
    """``agents.kort.greedy``'s choice among ``legal[:n_legal]`` at the position, from the view's cards."""
    if n_legal == 1:
        return legal[0]
    hand = view[0][to_move(ints)]
    if phase(ints) == P_TRUMP:  # the holder's five: the deal's first (the view keeps no redealt hands)
        hand = NONE
        for p in range(5):
            hand |= ONE << np.uint64(deck[p])
    return greedy_choice(ints, hand, view[1], legal, n_legal, True)


@njit(**config.INLINED_KERNEL)
def greedy_choice(ints, hand, trick, legal, n_legal, redeal_auto):
    """``agents.kort.greedy``'s choice among ``legal[:n_legal]`` for the seat to move holding ``hand``, the trick
    and target in ``trick`` (a view's second array); ``redeal_auto`` False is ``greedy:redeal=never``."""
    if n_legal == 1:
        return legal[0]
    seat, stage, trump_suit = to_move(ints), phase(ints), trump(ints)
    if stage == P_TRUMP:
        return _choose_trump(hand)
    if stage == P_DECLARE:
        return _declaration(hand, trick[T_CARD], trump_suit, legal[n_legal - 1] == TROP_TO_END)
    if stage == P_VOTE:
        return _bavan_vote(ints, hand, trump_suit, seat, trick[T_TARGET])
    if redeal_auto and legal[n_legal - 1] == REDEAL:
        aces = 0
        for suit in range(4):
            aces += 1 if _has(hand, suit * 13 + ACE) else 0
        if popcount(hand & SUITS[trump_suit]) < REDEAL_UNLESS_TRUMPS and aces < REDEAL_UNLESS_ACES:
            return REDEAL
    cards = NONE
    for k in range(n_legal):
        if legal[k] < TRUMP_BASE:
            cards |= ONE << np.uint64(legal[k])
    if stage == P_LEAD:
        return _lead(hand, cards, trump_suit)
    return _follow(trick, cards, trump_suit, seat)


@njit(**config.INLINED_KERNEL)
def table_view(cards, ints, seat, view):
    """What ``view_of`` makes of ``seat``'s observation, from a live match: its own hand (the others' 0), the
    trick's plays in order and the target; read through the engine's public accessors only."""
    hands, trick = view
    for s in range(NUM_SEATS):
        hands[s] = own_hand(cards, seat) if s == seat else NONE
    first, plays = leader(ints), trick_plays(ints)
    for k in range(plays):
        s = (first + k) % NUM_SEATS
        trick[T_SEAT + k], trick[T_CARD + k] = s, trick_card(ints, s)
    trick[T_LEN] = plays
    trick[T_TARGET] = target_wins(ints)
