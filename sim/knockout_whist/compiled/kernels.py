"""The compiled Knockout Whist engine: numba kernels over one game's rows (private; use ``batch``).

Each kernel takes one game as its rows (layout in ``state``): ``cards``
(uint64 card sets), ``ints`` (int64 scalars), ``deck`` (the current hand's
permutation) and ``rng`` (splitmix64 states). The kernels follow
``reference.KnockoutWhistGame`` step for step, with the same rules as
``rules.py``, so both engines draw the same permutations and reach the same results.

A decision's legal ids are always "the cards of one set, ascending, then a run of
special ids" (``choices``): the whole legal-set rule lives in that one function,
and the mask, the legality check and the uniform policies all read it.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from sim import config
from sim.choice_kernels import choice_kernels
from sim.compiled_bits import U64, count_decision, new_game_rows, popcount, shuffle_deck
from sim.knockout_whist.compiled.state import (
    C_HAND,
    C_PICKED,
    C_PLAYED,
    C_THROWN,
    CUT_STRENGTH,
    END_LAST_STANDING,
    END_LAST_TRICK,
    END_RAINBOW,
    F_CARD_EXCHANGE,
    F_DOGS_LIFE,
    F_NO_TRUMPS_CHOICE,
    F_RAINBOW,
    F_SAFE_FIRST_HAND,
    F_WINNER_DEALS,
    I_BEST_CARD,
    I_BEST_SEAT,
    I_CHOOSER,
    I_CRC,
    I_CUT,
    I_DEALER,
    I_DECISIONS,
    I_DOG_HAND,
    I_DOG_SAVED,
    I_DOGS_LIFE_USED,
    I_END_REASON,
    I_EXCHANGED,
    I_FLAGS,
    I_HAND_NO,
    I_IN_HAND,
    I_LAST_TRICK,
    I_LEADER,
    I_LED_SUIT,
    I_N_SEATS,
    I_OUT_HAND,
    I_PHASE,
    I_SCORE,
    I_STATUS,
    I_STOCK_POS,
    I_TO_MOVE,
    I_TRICK_ACTION,
    I_TRICK_LEADER,
    I_TRICK_NO,
    I_TRICK_SEATS,
    I_TRICK_TURNS,
    I_TRICKS,
    I_TRUMPS,
    I_TURNED,
    I_WINNER,
    P_CHOOSE,
    P_EXCHANGE,
    P_OVER,
    P_PLAY,
    RNG_DEAL,
    S_DOG,
    S_IN,
    S_OUT,
    SUITS,
    card_bit,
    has_seat,
    seat_after,
)
from sim.knockout_whist.encoding import (
    END_EXCHANGE,
    FIRST_DEALER,
    KNOCK,
    LAST_HAND,
    MAX_EXCHANGE,
    MAX_SEATS,
    NO_TRUMPS,
    RAINBOW_HAND,
    TRUMPS_BASE,
)


# ----- the legal set ------------------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def choices(cards, ints):
    """The legal ids of the seat to move as ``(card set, first special id, number of special ids)``.

    The legal ids are the set's cards ascending, then the special ids (all above 51, so
    the whole list is ascending): trumps 53.. (57 with no_trumps_choice), end exchange 58,
    or knock 52 for a dog outside the hand's last trick. A game that is over has none.
    """
    phase = ints[I_PHASE]
    seat = ints[I_TO_MOVE]
    if phase == P_PLAY:
        hand = cards[C_HAND + seat]
        if ints[I_STATUS + seat] == S_DOG:
            return hand, np.int64(KNOCK), np.int64(1 - ints[I_LAST_TRICK])
        led = ints[I_LED_SUIT]
        if led >= 0:
            same_suit = hand & SUITS[led]
            if same_suit != U64(0):
                return same_suit, np.int64(KNOCK), np.int64(0)
        return hand, np.int64(KNOCK), np.int64(0)
    if phase == P_EXCHANGE:
        hand = cards[C_HAND + seat]
        picked = cards[C_PICKED]
        limit = min(MAX_EXCHANGE, popcount(hand), 52 - ints[I_STOCK_POS])
        open_cards = hand & ~picked if popcount(picked) < limit else U64(0)
        return open_cards, np.int64(END_EXCHANGE), np.int64(1)
    if phase == P_CHOOSE:
        return U64(0), np.int64(TRUMPS_BASE), np.int64(5 if (ints[I_FLAGS] & F_NO_TRUMPS_CHOICE) != 0 else 4)
    return U64(0), np.int64(0), np.int64(0)


# The legal list, the legality check and the uniform draw, read from ``choices`` (the same in every engine
# of ``choices``: written once, in ``sim.choice_kernels``); ``legal_actions`` fills an int64[59].
legal_actions, is_legal, uniform_action = choice_kernels(sys.modules[__name__], "knockout_whist")


# ----- starting a game and a hand -------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def init_game(cards, ints, deck, rng, n_seats, flags):
    """Start a game (``rng`` must already hold its streams: ``seed_streams``) and deal hand 1, up to the first
    decision."""
    new_game_rows(cards, ints, I_CRC, I_WINNER, I_END_REASON)
    ints[I_N_SEATS] = n_seats
    ints[I_FLAGS] = flags
    for s in range(MAX_SEATS):
        ints[I_STATUS + s] = S_IN if s < n_seats else S_OUT
        ints[I_CUT + s] = -1
    _start_hand(cards, ints, deck, rng, np.int64(1), np.int64(FIRST_DEALER), np.int64(-1))


@njit(**config.STEP_KERNEL)
def _start_hand(cards, ints, deck, rng, hand_no, dealer, chooser):
    """Deal hand ``hand_no`` (the cut, if any, was drawn before), check a rainbow, then trumps."""
    n = ints[I_N_SEATS]
    flags = ints[I_FLAGS]
    in_hand = 0
    for s in range(n):
        if ints[I_STATUS + s] != S_OUT:
            in_hand |= 1 << s
    ints[I_IN_HAND] = in_hand
    ints[I_HAND_NO] = hand_no
    ints[I_DEALER] = dealer
    ints[I_CHOOSER] = chooser
    for s in range(MAX_SEATS):
        cards[C_HAND + s] = U64(0)
        cards[C_THROWN + s] = U64(0)
        ints[I_TRICKS + s] = 0
        ints[I_EXCHANGED + s] = -1
        ints[I_TRICK_ACTION + s] = -1
    cards[C_PICKED] = U64(0)
    cards[C_PLAYED] = U64(0)
    shuffle_deck(deck, rng, RNG_DEAL)
    position = 0
    for round_no in range(LAST_HAND + 1 - hand_no):  # a dog takes a card in round 0 only
        seat = dealer
        for _ in range(n):
            seat = seat + 1 if seat + 1 < n else 0
            if has_seat(in_hand, seat) and (round_no == 0 or ints[I_STATUS + seat] != S_DOG):
                cards[C_HAND + seat] |= card_bit(deck[position])
                position += 1
    ints[I_TURNED] = -1
    if hand_no == 1:
        ints[I_TURNED] = deck[position]
        position += 1
    ints[I_STOCK_POS] = position
    leader = dealer if (flags & F_WINNER_DEALS) != 0 and hand_no >= 2 else seat_after(dealer, n, in_hand)
    ints[I_LEADER] = leader
    ints[I_TRUMPS] = -1
    ints[I_TRICK_NO] = 0
    ints[I_LAST_TRICK] = 0
    ints[I_TRICK_SEATS] = 0
    ints[I_TRICK_TURNS] = 0
    ints[I_TRICK_LEADER] = -1
    ints[I_LED_SUIT] = -1
    ints[I_BEST_CARD] = -1
    ints[I_BEST_SEAT] = -1
    if (flags & F_RAINBOW) != 0 and hand_no == RAINBOW_HAND:
        seat = leader
        for _ in range(n):  # clockwise from the leader: the first rainbow wins
            if has_seat(in_hand, seat) and ints[I_STATUS + seat] == S_IN and _is_rainbow(cards[C_HAND + seat]):
                _finish(ints, seat, END_RAINBOW)
                return
            seat = seat + 1 if seat + 1 < n else 0
    if hand_no == 1:
        _set_trumps(cards, ints, ints[I_TURNED] // 13)
    else:
        ints[I_PHASE] = P_CHOOSE
        ints[I_TO_MOVE] = chooser


@njit(**config.INLINED_KERNEL)
def _is_rainbow(hand):
    """Four cards, one of each suit."""
    return (popcount(hand) == 4 and hand & SUITS[0] != U64(0) and hand & SUITS[1] != U64(0)
            and hand & SUITS[2] != U64(0) and hand & SUITS[3] != U64(0))


@njit(**config.STEP_KERNEL)
def _set_trumps(cards, ints, trumps):
    ints[I_TRUMPS] = trumps
    if (ints[I_FLAGS] & F_CARD_EXCHANGE) != 0:
        ints[I_PHASE] = P_EXCHANGE
        ints[I_TO_MOVE] = ints[I_LEADER]
    else:
        ints[I_PHASE] = P_PLAY
        _start_trick(cards, ints, ints[I_LEADER])


@njit(**config.STEP_KERNEL)
def _exchange(cards, ints, deck, action):
    """Pick a card, or end the turn: the picked cards go out of play and as many come from the stock."""
    if action != END_EXCHANGE:
        cards[C_PICKED] |= card_bit(action)
        return
    seat = ints[I_TO_MOVE]
    picked = cards[C_PICKED]
    count = popcount(picked)
    drawn = U64(0)
    start = ints[I_STOCK_POS]
    for i in range(count):
        drawn |= card_bit(deck[start + i])
    ints[I_STOCK_POS] = start + count
    cards[C_HAND + seat] = (cards[C_HAND + seat] & ~picked) | drawn
    cards[C_THROWN + seat] |= picked
    ints[I_EXCHANGED + seat] = count
    cards[C_PICKED] = U64(0)
    following = seat_after(seat, ints[I_N_SEATS], ints[I_IN_HAND])
    if following == ints[I_LEADER]:  # every seat of the hand has had its turn
        ints[I_PHASE] = P_PLAY
        _start_trick(cards, ints, ints[I_LEADER])
    else:
        ints[I_TO_MOVE] = following


# ----- tricks -----------------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _start_trick(cards, ints, leader):
    """A trick among the seats of the hand holding cards, led by ``leader``."""
    n = ints[I_N_SEATS]
    in_hand = ints[I_IN_HAND]
    holding = 0
    last_trick = 1
    for s in range(n):
        if has_seat(in_hand, s) and cards[C_HAND + s] != U64(0):
            holding |= 1 << s
        if ints[I_STATUS + s] == S_IN and popcount(cards[C_HAND + s]) != 1:
            last_trick = 0
        ints[I_TRICK_ACTION + s] = -1
    ints[I_TRICK_SEATS] = holding
    ints[I_TRICK_TURNS] = 0
    ints[I_TRICK_LEADER] = leader
    ints[I_LED_SUIT] = -1
    ints[I_BEST_CARD] = -1
    ints[I_BEST_SEAT] = -1
    ints[I_LAST_TRICK] = last_trick
    ints[I_TO_MOVE] = leader


@njit(**config.STEP_KERNEL)
def _play(cards, ints, deck, rng, action):
    """A card (or a dog's knock) to the trick; a complete trick is scored and the next begins or the hand ends."""
    n = ints[I_N_SEATS]
    seat = ints[I_TO_MOVE]
    ints[I_TRICK_ACTION + seat] = action
    ints[I_TRICK_TURNS] += 1
    if action != KNOCK:
        cards[C_HAND + seat] &= ~card_bit(action)
        cards[C_PLAYED] |= card_bit(action)
        best = ints[I_BEST_CARD]
        trumps = ints[I_TRUMPS]
        suit = action // 13
        if best < 0:
            ints[I_LED_SUIT] = suit
        if best < 0 or (suit == best // 13 and action > best) or (
                suit != best // 13 and trumps != NO_TRUMPS and suit == trumps):
            ints[I_BEST_CARD] = action
            ints[I_BEST_SEAT] = seat
    trick_seats = ints[I_TRICK_SEATS]
    if ints[I_TRICK_TURNS] < popcount(U64(trick_seats)):
        ints[I_TO_MOVE] = seat_after(seat, n, trick_seats)
        return
    winner = ints[I_BEST_SEAT]
    ints[I_TRICKS + winner] += 1
    ints[I_TRICK_NO] += 1
    in_hand = ints[I_IN_HAND]
    holding = 0
    ordinary_cards = False
    for s in range(n):
        if has_seat(in_hand, s) and cards[C_HAND + s] != U64(0):
            holding |= 1 << s
            if ints[I_STATUS + s] == S_IN:
                ordinary_cards = True
    if not ordinary_cards:
        _end_hand(cards, ints, deck, rng)
        return
    leader = winner
    if ints[I_STATUS + winner] == S_DOG:  # the dog holds no card now: the next seat holding cards leads
        leader = seat_after(winner, n, holding)
    _start_trick(cards, ints, leader)


# ----- the end of a hand and of the game ------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _end_hand(cards, ints, deck, rng):
    """Knockouts and dog's lives, the end of the game, or the next chooser (a cut if tied), dealer and hand."""
    n = ints[I_N_SEATS]
    flags = ints[I_FLAGS]
    hand_no = ints[I_HAND_NO]
    in_hand = ints[I_IN_HAND]
    for s in range(n):
        ints[I_TRICK_ACTION + s] = -1
        if ints[I_STATUS + s] == S_DOG and ints[I_TRICKS + s] > 0:
            ints[I_DOG_SAVED + s] = 1
    ints[I_TRICK_SEATS] = 0
    ints[I_TRICK_TURNS] = 0
    ints[I_TRICK_LEADER] = -1
    ints[I_LED_SUIT] = -1
    if not ((flags & F_SAFE_FIRST_HAND) != 0 and hand_no == 1):
        award = (flags & F_DOGS_LIFE) != 0 and ints[I_DOGS_LIFE_USED] == 0 and hand_no < LAST_HAND
        for s in range(n):
            status = ints[I_STATUS + s]
            if status == S_OUT:
                continue
            if ints[I_TRICKS + s] > 0:
                ints[I_STATUS + s] = S_IN
            elif status == S_IN and award:
                ints[I_STATUS + s] = S_DOG
                ints[I_DOG_HAND + s] = hand_no + 1
                ints[I_DOGS_LIFE_USED] = 1
            else:
                ints[I_STATUS + s] = S_OUT
                ints[I_OUT_HAND + s] = hand_no
    if hand_no == LAST_HAND:
        for s in range(n):
            if ints[I_TRICKS + s] == 1:
                _finish(ints, s, END_LAST_TRICK)
                return
    left, last = 0, -1
    most = 0
    for s in range(n):
        if ints[I_STATUS + s] != S_OUT:
            left += 1
            last = s
        if has_seat(in_hand, s) and ints[I_TRICKS + s] > most:
            most = ints[I_TRICKS + s]
    if left == 1:
        _finish(ints, last, END_LAST_STANDING)
        return
    tied = 0
    chooser = -1
    for s in range(n):
        ints[I_CUT + s] = -1
        if has_seat(in_hand, s) and ints[I_TRICKS + s] == most:
            tied += 1
            if chooser < 0:
                chooser = s
    if tied > 1:  # the tied seats, in seat order, take the cut permutation's first cards: the highest chooses
        shuffle_deck(deck, rng, RNG_DEAL)
        taken, strongest = 0, -1
        for s in range(n):
            if has_seat(in_hand, s) and ints[I_TRICKS + s] == most:
                card = deck[taken]
                ints[I_CUT + s] = card
                taken += 1
                if CUT_STRENGTH[card] > strongest:
                    strongest = CUT_STRENGTH[card]
                    chooser = s
    dealer = chooser if (flags & F_WINNER_DEALS) != 0 else seat_after(ints[I_DEALER], n, in_hand)
    _start_hand(cards, ints, deck, rng, hand_no + 1, dealer, chooser)


@njit(**config.INLINED_KERNEL)
def _finish(ints, winner, reason):
    ints[I_PHASE] = P_OVER
    ints[I_TO_MOVE] = -1
    ints[I_WINNER] = winner
    ints[I_END_REASON] = reason
    n = ints[I_N_SEATS]
    for s in range(n):
        ints[I_SCORE + s] = n - 1 if s == winner else -1


# ----- the one verb -----------------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def apply_action(cards, ints, deck, rng, action):
    """Take ``action`` (already checked legal) for the seat to move; deals the following hands as they come."""
    count_decision(ints, I_DECISIONS, I_CRC, action)
    phase = ints[I_PHASE]
    if phase == P_PLAY:
        _play(cards, ints, deck, rng, action)
    elif phase == P_EXCHANGE:
        _exchange(cards, ints, deck, action)
    else:
        _set_trumps(cards, ints, action - TRUMPS_BASE)
