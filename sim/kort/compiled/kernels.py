"""The compiled Kort engine: numba kernels over one match's rows (private; use ``batch``).

Each kernel takes one match as its rows (layout in ``state``): ``cards``
(uint64 card sets), ``ints`` (int64 scalars), ``deck`` (the current deal's
permutation) and ``rng`` (splitmix64 states). The kernels follow
``reference.KortMatch`` step for step with the rules of ``rules.py`` (the deal, lead
states, the end of a round, the holder's rotation), so both engines draw the same
decks and reach the same results.

A decision's legal ids are always "the cards of one set, ascending, then a run of
special ids" (``choices``): the whole legal-set rule lives in that one function, and
the mask, the legality check and the uniform policies all read it.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from sim import compiled_bits, config
from sim.choice_kernels import choice_kernels
from sim.compiled_bits import U64, count_decision, new_game_rows, popcount, shuffle_deck
from sim.kort import encoding
from sim.kort.compiled.state import (
    C_HAND,
    C_PLAYED,
    FACES,
    I_BAVAN_TEAM,
    I_BEST_CARD,
    I_BEST_SEAT,
    I_CHOICES,
    I_CRC,
    I_DEAL_NO,
    I_DECISIONS,
    I_DECLARED,
    I_END_REASON,
    I_FIRST_HOLDER,
    I_FIRST_VOTER,
    I_HOLDER,
    I_LAST_ROUND,
    I_LEAD_STATE,
    I_LEADER,
    I_LED_SUIT,
    I_PHASE,
    I_REDEALS,
    I_ROUND_NO,
    I_ROUNDS_PLAYED,
    I_SCORE,
    I_TARGET,
    I_THIRTEENTH,
    I_TO_MOVE,
    I_TRICK_CARD,
    I_TRICK_NO,
    I_TRICK_PLAYS,
    I_TRICKS,
    I_TRUMP,
    I_TRUMP_CHOICE,
    I_VOTE,
    I_VOTES_CAST,
    I_WINNER_TEAM,
    I_WINS,
    K_FREE,
    K_SAR,
    K_SAR_NEXT,
    K_TROP,
    K_TROP_DONE,
    P_DECLARE,
    P_FOLLOW,
    P_LEAD,
    P_OVER,
    P_TRUMP,
    P_VOTE,
    RNG_DEAL,
    SUITS,
    card_bit,
    state_kind,
    trop_code,
    write_round_record,
)
from sim.kort.encoding import (
    AUTOMATIC_BASE,
    BAVAN_NO,
    BAVAN_YES,
    CARDS_EACH,
    FIRST_PACKET,
    NUM_SEATS,
    PACKET,
    REDEAL,
    SAR,
    THIRTEENTH_POSITION,
    TRICKS_IN_ROUND,
    TROP,
    TROP_LEADS,
    TROP_TO_END_LEADS,
    TRUMP_13,
    TRUMP_BASE,
    Result,
    TrumpLead,
)

ALL_TRUMPS, SAR_FEWER_THAN_3, SAR_5_TRICKS, CHOOSE = (int(case) for case in TrumpLead)
ORDINARY, KORT, AT_KORT, BAVAN_MADE, BAVAN_FAILED, TROP_FAILED = (int(result) for result in Result)
RESULT_WINS = np.array([1, 5, 7, 7, 1, 1], dtype=np.int64)
"""Match wins by ``Result``, as ``encoding.RESULT_WINS`` (checked equal by the tests)."""
NO_CARDS = U64(0)


# ----- the legal set ------------------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def choices(cards, ints):
    """The legal ids of the seat to move as ``(card set, first special id, number of special ids)``.

    The legal ids are the set's cards ascending, then the special ids (all above 51, so the
    whole list is ascending): trumps 52..56, Sar/Trop (/Trop to the end) 57.., redeal 60 at
    the holder's first lead, or the Bavan votes 61, 62. A match that is over has none.
    """
    phase = ints[I_PHASE]
    seat = ints[I_TO_MOVE]
    if phase == P_FOLLOW:
        hand = cards[C_HAND + seat]
        same_suit = hand & SUITS[ints[I_LED_SUIT]]
        return (same_suit if same_suit != NO_CARDS else hand), np.int64(0), np.int64(0)
    if phase == P_LEAD:
        hand = cards[C_HAND + seat]
        trumps = SUITS[ints[I_TRUMP]]
        kind = state_kind(ints[I_LEAD_STATE + seat % 2])
        allowed = hand
        if kind == K_TROP and hand & trumps != NO_CARDS:
            allowed = hand & trumps
        elif (kind == K_SAR_NEXT or kind == K_TROP_DONE) and hand & ~trumps != NO_CARDS:
            allowed = hand & ~trumps
        redeal = ints[I_TRICK_NO] == 0 and popcount(hand) == CARDS_EACH and hand & FACES == NO_CARDS
        return allowed, np.int64(REDEAL), np.int64(1 if redeal else 0)
    if phase == P_DECLARE:
        return NO_CARDS, np.int64(SAR), ints[I_CHOICES]
    if phase == P_TRUMP:
        return NO_CARDS, np.int64(TRUMP_BASE), np.int64(5)
    if phase == P_VOTE:
        return NO_CARDS, np.int64(BAVAN_YES), np.int64(2)
    return NO_CARDS, np.int64(0), np.int64(0)


# The legal list, the legality check and the uniform draw, read from ``choices`` (the same in every engine
# of ``choices``: written once, in ``sim.choice_kernels``); ``legal_actions`` fills an int64[63].
legal_actions, is_legal, uniform_action = choice_kernels(sys.modules[__name__], "kort")


# ----- starting a match, a round, a deal ----------------------------------------------------------
@njit(**config.STEP_KERNEL)
def seed_streams(rng, seed):
    """Start a match's streams: its own at ``seed``, seat s's at ``agent_seed(seed, s)`` for the four seats."""
    compiled_bits.seed_streams(rng, seed, NUM_SEATS)


@njit(**config.STEP_KERNEL)
def init_match(cards, ints, deck, rng, target_wins, first_holder):
    """Start a match (``rng`` must already hold its streams): the first deal, up to the holder's trump choice."""
    new_game_rows(cards, ints, I_CRC, I_WINNER_TEAM, I_END_REASON)
    ints[I_TARGET] = target_wins
    ints[I_FIRST_HOLDER] = first_holder
    for i in range(I_LAST_ROUND, ints.shape[0]):
        ints[i] = -1
    _start_deal(cards, ints, deck, rng, np.int64(first_holder), np.int64(0))


@njit(**config.STEP_KERNEL)
def _start_deal(cards, ints, deck, rng, holder, deal_no):
    """Draw a deck, give the holder its first five cards and ask it for trumps (a round's deal or a redeal)."""
    ints[I_HOLDER] = holder
    ints[I_DEAL_NO] = deal_no
    shuffle_deck(deck, rng, RNG_DEAL)
    for s in range(NUM_SEATS):
        cards[C_HAND + s] = NO_CARDS
        ints[I_TRICK_CARD + s] = -1
        ints[I_VOTE + s] = -1
    first = NO_CARDS
    for i in range(FIRST_PACKET):
        first |= card_bit(deck[i])
    cards[C_HAND + holder] = first
    cards[C_PLAYED] = NO_CARDS
    ints[I_TRUMP] = -1
    ints[I_TRUMP_CHOICE] = -1
    ints[I_THIRTEENTH] = -1
    ints[I_LEADER] = holder
    ints[I_TRICK_NO] = 0
    ints[I_TRICK_PLAYS] = 0
    ints[I_LED_SUIT] = -1
    ints[I_BEST_CARD] = -1
    ints[I_BEST_SEAT] = -1
    ints[I_CHOICES] = 0
    ints[I_BAVAN_TEAM] = -1
    ints[I_FIRST_VOTER] = -1
    ints[I_VOTES_CAST] = 0
    for t in range(2):
        ints[I_TRICKS + t] = 0
        ints[I_LEAD_STATE + t] = K_FREE
    for i in range(TRICKS_IN_ROUND):
        ints[I_DECLARED + i] = -1
    ints[I_PHASE] = P_TRUMP
    ints[I_TO_MOVE] = holder


@njit(**config.STEP_KERNEL)
def _choose_trump(cards, ints, deck, action):
    """Fix trumps, then deal the rest: 5 to each other seat, then two passes of 4 from the holder."""
    holder = ints[I_HOLDER]
    for k in range(NUM_SEATS):
        seat = (holder + k) % NUM_SEATS
        hand = NO_CARDS
        if k == 0:
            for i in range(FIRST_PACKET):
                hand |= card_bit(deck[i])
        else:
            for i in range(FIRST_PACKET * k, FIRST_PACKET * (k + 1)):
                hand |= card_bit(deck[i])
        for start in (FIRST_PACKET * NUM_SEATS + PACKET * k, FIRST_PACKET * NUM_SEATS + PACKET * (NUM_SEATS + k)):
            for i in range(start, start + PACKET):
                hand |= card_bit(deck[i])
        cards[C_HAND + seat] = hand
    ints[I_TRUMP_CHOICE] = action
    if action == TRUMP_13:
        ints[I_THIRTEENTH] = deck[THIRTEENTH_POSITION]
        ints[I_TRUMP] = deck[THIRTEENTH_POSITION] // 13
    else:
        ints[I_TRUMP] = action - TRUMP_BASE
    ints[I_PHASE] = P_LEAD
    ints[I_TO_MOVE] = holder


# ----- tricks -----------------------------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def _put_card(cards, ints, seat, card):
    """A card from the seat's hand onto the table; the trick's best card so far follows it."""
    cards[C_HAND + seat] &= ~card_bit(card)
    cards[C_PLAYED] |= card_bit(card)
    ints[I_TRICK_CARD + seat] = card
    ints[I_TRICK_PLAYS] += 1
    best = ints[I_BEST_CARD]
    suit = card // 13
    if best < 0:
        ints[I_LED_SUIT] = suit
    if best < 0 or (suit == best // 13 and card > best) or (suit != best // 13 and suit == ints[I_TRUMP]):
        ints[I_BEST_CARD] = card
        ints[I_BEST_SEAT] = seat


@njit(**config.INLINED_KERNEL)
def _trump_lead_case(hand, trumps, team_tricks, plays_bavan):
    """The rulings' case of a fresh trump lead (``rules.classify_trump_lead``); ``hand`` holds the led card."""
    if hand & ~trumps == NO_CARDS:
        return ALL_TRUMPS
    if popcount(hand & trumps) < encoding.SAR_BELOW_TRUMPS:
        return SAR_FEWER_THAN_3
    if team_tricks >= encoding.SAR_FROM_TRICKS and not plays_bavan:
        return SAR_5_TRICKS
    return CHOOSE


@njit(**config.STEP_KERNEL)
def _lead(cards, ints, card):
    """Lead a card; a fresh trump lead declares (automatically, or by asking the leader)."""
    seat = ints[I_TO_MOVE]
    team = seat % 2
    hand = cards[C_HAND + seat]
    state = ints[I_LEAD_STATE + team]
    kind = state_kind(state)
    trump = ints[I_TRUMP]
    _put_card(cards, ints, seat, card)
    if kind == K_TROP:  # a Trop's next trump lead: counted, nothing declared
        ints[I_LEAD_STATE + team] = state + 8
    elif card // 13 != trump:
        if kind == K_SAR_NEXT or kind == K_TROP_DONE:
            ints[I_LEAD_STATE + team] = K_FREE
    else:
        trumps = SUITS[trump]
        case = _trump_lead_case(hand, trumps, ints[I_TRICKS + team], ints[I_BAVAN_TEAM] == team)
        if case == CHOOSE:
            first_lead = ints[I_TRICK_NO] == 0
            ints[I_CHOICES] = 3 if first_lead and popcount(hand & trumps) >= encoding.TROP_TO_END_TRUMPS else 2
            ints[I_PHASE] = P_DECLARE
            return
        if case == ALL_TRUMPS:
            if kind == K_SAR_NEXT:
                ints[I_LEAD_STATE + team] = K_FREE
        else:
            ints[I_LEAD_STATE + team] = K_SAR
        ints[I_DECLARED + ints[I_TRICK_NO]] = (AUTOMATIC_BASE + case) * NUM_SEATS + seat
    ints[I_PHASE] = P_FOLLOW
    ints[I_TO_MOVE] = (seat + 1) % NUM_SEATS


@njit(**config.STEP_KERNEL)
def _declare(ints, action):
    """Sar, Trop or Trop to the end, chosen right after the trump lead."""
    seat = ints[I_TO_MOVE]
    if action == SAR:
        ints[I_LEAD_STATE + seat % 2] = K_SAR
    else:
        ints[I_LEAD_STATE + seat % 2] = trop_code(1, TROP_LEADS if action == TROP else TROP_TO_END_LEADS)
    ints[I_DECLARED + ints[I_TRICK_NO]] = (action - SAR) * NUM_SEATS + seat
    ints[I_PHASE] = P_FOLLOW
    ints[I_TO_MOVE] = (seat + 1) % NUM_SEATS


@njit(**config.STEP_KERNEL)
def _follow(cards, ints, deck, rng, card):
    """A card to the trick; the fourth ends it."""
    seat = ints[I_TO_MOVE]
    _put_card(cards, ints, seat, card)
    if ints[I_TRICK_PLAYS] < NUM_SEATS:
        ints[I_TO_MOVE] = (seat + 1) % NUM_SEATS
    else:
        _end_trick(cards, ints, deck, rng)


@njit(**config.STEP_KERNEL)
def _end_trick(cards, ints, deck, rng):
    """Score the trick, move the leading team's lead state, then end the round, ask for the Bavan vote,
    or start the next trick."""
    winner = ints[I_BEST_SEAT]
    team = winner % 2
    ints[I_TRICKS + team] += 1
    leading_team = ints[I_LEADER] % 2
    state = ints[I_LEAD_STATE + leading_team]
    kind = state_kind(state)
    took_it = team == leading_team
    trop_failed = False
    if kind == K_SAR:
        ints[I_LEAD_STATE + leading_team] = K_SAR_NEXT if took_it else K_FREE
    elif kind == K_TROP:
        made, of = (state >> 3) & 7, state >> 6
        if took_it and made == of:
            ints[I_LEAD_STATE + leading_team] = K_TROP_DONE
        elif not (took_it and cards[C_HAND + winner] & SUITS[ints[I_TRUMP]] != NO_CARDS):
            ints[I_LEAD_STATE + leading_team] = K_FREE
            trop_failed = of == TROP_TO_END_LEADS
    for s in range(NUM_SEATS):
        ints[I_TRICK_CARD + s] = -1
    ints[I_TRICK_PLAYS] = 0
    ints[I_LED_SUIT] = -1
    ints[I_BEST_CARD] = -1
    ints[I_BEST_SEAT] = -1
    ints[I_TRICK_NO] += 1
    if trop_failed:
        _end_round(cards, ints, deck, rng, TROP_FAILED, team)
        return
    mine, theirs = ints[I_TRICKS + team], ints[I_TRICKS + 1 - team]
    bavan_team = ints[I_BAVAN_TEAM]
    if bavan_team >= 0:
        if team != bavan_team:
            _end_round(cards, ints, deck, rng, BAVAN_FAILED, team)
            return
        if mine == TRICKS_IN_ROUND:
            _end_round(cards, ints, deck, rng, BAVAN_MADE, team)
            return
    elif mine == encoding.TRICKS_TO_WIN:
        if theirs > 0:
            _end_round(cards, ints, deck, rng, ORDINARY, team)
            return
        ints[I_FIRST_VOTER] = winner  # 7:0: the seat that took the 7th trick votes first, then its partner
        ints[I_PHASE] = P_VOTE
        ints[I_TO_MOVE] = winner
        return
    ints[I_LEADER] = winner
    ints[I_PHASE] = P_LEAD
    ints[I_TO_MOVE] = winner


# ----- 7:0 and Bavan ------------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _vote(cards, ints, deck, rng, action):
    """Record a vote; once both are cast, Bavan starts (both yes) or the 7:0 counts as Kort or At-kort."""
    seat = ints[I_TO_MOVE]
    ints[I_VOTE + seat] = action
    ints[I_VOTES_CAST] += 1
    first = ints[I_FIRST_VOTER]
    partner = (first + 2) % NUM_SEATS
    if ints[I_VOTES_CAST] < 2:
        ints[I_TO_MOVE] = partner
        return
    team = seat % 2
    if ints[I_VOTE + first] == BAVAN_NO or ints[I_VOTE + partner] == BAVAN_NO:
        _end_round(cards, ints, deck, rng, KORT if team == ints[I_HOLDER] % 2 else AT_KORT, team)
        return
    ints[I_BAVAN_TEAM] = team
    ints[I_LEADER] = first  # the winner of trick 7 leads trick 8
    ints[I_PHASE] = P_LEAD
    ints[I_TO_MOVE] = first


# ----- the end of a round and of the match ------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def _end_round(cards, ints, deck, rng, result, trick_team):
    """Give the round's wins, write its record at ``I_LAST_ROUND``, then end the match or deal the next round."""
    holder = ints[I_HOLDER]
    team = trick_team
    if result == TROP_FAILED:
        team = 1 - holder % 2
    elif result == BAVAN_MADE or result == BAVAN_FAILED:
        team = ints[I_BAVAN_TEAM]
    gained = RESULT_WINS[result]
    ints[I_WINS + team] += gained
    write_round_record(ints, result, team, gained)
    ints[I_ROUNDS_PLAYED] += 1
    if ints[I_WINS + team] >= ints[I_TARGET]:
        ints[I_PHASE] = P_OVER
        ints[I_TO_MOVE] = -1
        ints[I_WINNER_TEAM] = team
        ints[I_END_REASON] = 0
        for s in range(NUM_SEATS):
            ints[I_SCORE + s] = 1 if s % 2 == team else -1
        return
    ints[I_ROUND_NO] += 1
    _start_deal(cards, ints, deck, rng, holder if holder % 2 == team else (holder + 1) % NUM_SEATS, np.int64(0))


# ----- the one verb -----------------------------------------------------------------------------------------
@njit(**config.STEP_KERNEL)
def apply_action(cards, ints, deck, rng, action):
    """Take ``action`` (already checked legal) for the seat to move; deals redeals and later rounds as they come."""
    count_decision(ints, I_DECISIONS, I_CRC, action)
    phase = ints[I_PHASE]
    if phase == P_FOLLOW:
        _follow(cards, ints, deck, rng, action)
    elif phase == P_LEAD:
        if action == REDEAL:
            ints[I_REDEALS] += 1
            _start_deal(cards, ints, deck, rng, ints[I_HOLDER], ints[I_DEAL_NO] + 1)
        else:
            _lead(cards, ints, action)
    elif phase == P_DECLARE:
        _declare(ints, action)
    elif phase == P_TRUMP:
        _choose_trump(cards, ints, deck, action)
    else:
        _vote(cards, ints, deck, rng, action)
