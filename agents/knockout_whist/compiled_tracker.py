"""``KnockoutWhistTracker`` and ``tracker``'s choice compiled: one seat's deductions as a row of numbers.

The compiled engine plays ``tracker`` and ``mcts`` seats with this state (``lineup.py``). A
tracker is one uint64 row (``new_tracker``) per seat, fed only what that seat sees: each public
action as it is taken (``observe``: a card played, a knock; trump choices and exchange picks
teach it nothing) and the public position when a hand starts (its number, hand 1's turned card,
the dogs). At a decision it adds the seat's own cards and thrown-away cards, read then. It keeps,
as the Python tracker does, the cards played this hand, the turned card, the seats on their dog's
life, and for each seat the suits it failed to follow this hand (a dog shows nothing), plus the
cards each seat played this hand (what the rainbow check of ``sampler`` needs). The deductions
(``possible``, ``might_beat``) and ``tracker_choice`` follow ``tracker.py`` line for line; the
tests compare them with the Python tracker at every decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.knockout_whist.tracker import KnockoutWhistTracker
from sim import config
from sim.cards import SUIT_MASK
from sim.knockout_whist.compiled import (
    GREEDY,
    beats,
    best_card,
    card_count,
    cheapest_card,
    hand_number,
    led_suit,
    legal_actions,
    lowest_card,
    own_hand,
    own_thrown,
    phase,
    policy_choice,
    popcount,
    seat_count,
    seat_status,
    to_move,
    trick_action,
    trick_seats,
    trumps,
    turned_card,
)
from sim.knockout_whist.encoding import KNOCK, MAX_SEATS, NO_TRUMPS, Phase, Status

T_HAND = 0  # the hand the row follows (0 before the first)
T_TURNED = 1  # hand 1's turned card, as a set (0 in later hands)
T_PLAYED = 2  # every card played this hand
T_DOGS = 3  # bit s for each seat on its dog's life this hand
T_VOIDS = 4  # + s: the cards of the suits seat s failed to follow this hand
T_SHOWN = T_VOIDS + MAX_SEATS  # + s: the cards seat s played this hand
TRACKER_SIZE = T_SHOWN + MAX_SEATS

FULL = np.uint64((1 << 52) - 1)
SUITS = np.array(SUIT_MASK, dtype=np.uint64)
PLAY, DOG = int(Phase.PLAY), int(Status.DOG)


def row_of(tracker: KnockoutWhistTracker) -> np.ndarray:
    """The row the compiled tracker would hold for ``tracker``'s seat, read from the Python tracker: how a Python
    agent hands what its seat has deduced to a compiled search (``decision.start_search``)."""
    row = np.zeros(TRACKER_SIZE, dtype=np.uint64)
    row[T_HAND], row[T_TURNED], row[T_PLAYED] = tracker.hand_no, tracker.turned, tracker.played
    row[T_DOGS] = sum(1 << s for s in tracker.dogs)
    row[T_VOIDS:T_VOIDS + tracker.n_seats] = tracker.voids
    row[T_SHOWN:T_SHOWN + tracker.n_seats] = tracker.shown
    return row


def new_tracker(n_seats: int = MAX_SEATS) -> np.ndarray:
    """Tracker rows for ``n_seats`` seats, one per row, knowing nothing yet."""
    return np.zeros((n_seats, TRACKER_SIZE), dtype=np.uint64)


@njit(**config.INLINED_KERNEL)
def forget(tracker):
    """A new game: the row knows nothing."""
    for i in range(TRACKER_SIZE):
        tracker[i] = np.uint64(0)


@njit(**config.INLINED_KERNEL)
def _bit(card):
    return np.uint64(1) << np.uint64(card)


@njit(**config.INLINED_KERNEL)
def catch_up(tracker, ints):
    """Start the hand being played if the row still follows an earlier one (what the hand's deal shows)."""
    hand = hand_number(ints)
    if tracker[T_HAND] == np.uint64(hand):
        return
    tracker[T_HAND] = np.uint64(hand)
    turned = turned_card(ints)
    tracker[T_TURNED] = _bit(turned) if turned >= 0 else np.uint64(0)
    tracker[T_PLAYED] = np.uint64(0)
    dogs = 0
    for s in range(seat_count(ints)):
        if seat_status(ints, s) == DOG:
            dogs |= 1 << s
    tracker[T_DOGS] = np.uint64(dogs)
    for s in range(MAX_SEATS):
        tracker[T_VOIDS + s] = np.uint64(0)
        tracker[T_SHOWN + s] = np.uint64(0)


@njit(**config.INLINED_KERNEL)
def observe(tracker, ints, action):
    """The seat to move takes ``action`` (public, seen by every seat): call it before the action is applied."""
    catch_up(tracker, ints)
    if phase(ints) != PLAY or action == KNOCK:
        return
    seat = to_move(ints)
    led = led_suit(ints)
    if led >= 0 and action // 13 != led and (tracker[T_DOGS] >> np.uint64(seat)) & np.uint64(1) == np.uint64(0):
        tracker[T_VOIDS + seat] |= SUITS[led]
    tracker[T_PLAYED] |= _bit(action)
    tracker[T_SHOWN + seat] |= _bit(action)


@njit(**config.INLINED_KERNEL)
def seen_by(tracker, cards, observer):
    """The cards ``observer`` knows are in no other seat's hand: played, turned, its own and its thrown-away."""
    return tracker[T_PLAYED] | tracker[T_TURNED] | own_hand(cards, observer) | own_thrown(cards, observer)


@njit(**config.INLINED_KERNEL)
def possible(tracker, cards, observer, seat):
    """The cards ``seat`` may hold now, as ``observer``'s tracker deduces (``KnockoutWhistTracker.possible``)."""
    if seat == observer:
        return own_hand(cards, observer)
    return FULL & ~(seen_by(tracker, cards, observer) | tracker[T_VOIDS + seat])


@njit(**config.INLINED_KERNEL)
def void_suits(tracker, seat):
    """Bit per suit that ``seat`` showed it lacks this hand."""
    voids = 0
    for suit in range(4):
        if tracker[T_VOIDS + seat] & SUITS[suit]:
            voids |= 1 << suit
    return voids


@njit(**config.INLINED_KERNEL)
def might_beat(tracker, cards, ints, observer, seat, card, led):
    """Whether ``seat`` may still beat ``card``, the best of a trick whose suit led is ``led`` (``tracker.py``)."""
    cards_possible = possible(tracker, cards, observer, seat)
    trump = trumps(ints)
    is_dog = (tracker[T_DOGS] >> np.uint64(seat)) & np.uint64(1) == np.uint64(1)
    may_discard = is_dog or not card_count(cards, seat) > popcount(cards_possible & ~SUITS[led])
    suit = card // 13
    higher = cards_possible & SUITS[suit] & ~((_bit(card) << np.uint64(1)) - np.uint64(1))
    if higher != np.uint64(0) and (suit == led or may_discard):
        return True
    if trump == NO_TRUMPS or suit == trump:
        return False
    return cards_possible & SUITS[trump] != np.uint64(0) and may_discard


@njit(**config.INLINED_KERNEL)
def _unbeatable(tracker, cards, ints, observer, card, led):
    """Whether no seat still to play in the trick might beat ``card``."""
    seats = trick_seats(ints)
    for s in range(seat_count(ints)):
        if (seats >> s) & 1 and s != observer and trick_action(ints, s) < 0 and \
                might_beat(tracker, cards, ints, observer, s, card, led):
            return False
    return True


@njit(**config.INLINED_KERNEL)
def tracker_choice(tracker, cards, ints, rng, legal):
    """``tracker``'s action for the seat to move (``tracker.tracker_action``); ``legal`` is int64[NUM_ACTIONS]."""
    catch_up(tracker, ints)
    n_legal = legal_actions(cards, ints, legal)
    if phase(ints) != PLAY or n_legal == 1:
        return policy_choice(GREEDY, cards, ints, rng)
    seat = to_move(ints)
    trump = trumps(ints)
    best = best_card(ints)
    legal_cards = np.uint64(0)
    for k in range(n_legal):
        if legal[k] < KNOCK:
            legal_cards |= _bit(legal[k])
    if seat_status(ints, seat) == DOG:
        card = lowest_card(legal_cards)
        led = card // 13 if best < 0 else led_suit(ints)
        wins_now = best < 0 or beats(card, best, trump)
        return np.int64(card) if wins_now and _unbeatable(tracker, cards, ints, seat, card, led) else np.int64(KNOCK)
    sure = np.uint64(0)
    rest = legal_cards
    while rest:
        card = lowest_card(rest)
        rest &= rest - np.uint64(1)
        if best < 0:
            if _unbeatable(tracker, cards, ints, seat, card, card // 13):
                sure |= _bit(card)
        elif beats(card, best, trump) and _unbeatable(tracker, cards, ints, seat, card, led_suit(ints)):
            sure |= _bit(card)
    if sure != np.uint64(0):
        return np.int64(cheapest_card(sure, trump))
    return policy_choice(GREEDY, cards, ints, rng)
