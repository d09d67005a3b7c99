"""Kort's rules as pure functions over seats, teams, card ids, card sets and lead states.

Nothing here holds state, draws a random number or prints: the engines call
these to deal, to decide what may be led or played, who takes a trick, what a
trump lead declares, how a team's lead state moves at a trick's end, how a
round ended and who holds the trump next. Seats are ``0 .. 3`` in turn order
(counterclockwise); team 0 is seats 0 and 2, team 1 seats 1 and 3.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.cards import SUIT_MASK, CardSet, rank_of, suit_of, to_set
from sim.kort.encoding import (
    CARDS_EACH,
    FIRST_PACKET,
    FREE,
    NUM_SEATS,
    PACKET,
    RESULT_WINS,
    SAR,
    SAR_BELOW_TRUMPS,
    SAR_FROM_TRICKS,
    THIRTEENTH_POSITION,
    TRICKS_IN_ROUND,
    TRICKS_TO_WIN,
    TROP,
    TROP_LEADS,
    TROP_TO_END,
    TROP_TO_END_LEADS,
    TROP_TO_END_TRUMPS,
    TRUMP_13,
    TRUMP_BASE,
    LeadKind,
    LeadState,
    Result,
    TrumpLead,
    trop_state,
)

FACE_CARDS: CardSet = to_set(suit * 13 + rank for suit in range(4) for rank in (9, 10, 11))  # J, Q, K

# ----- seats and teams ---------------------------------------------------------------------


def team_of(seat: int) -> int:
    """The team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def partner_of(seat: int) -> int:
    """The seat opposite: a seat's partner."""
    return (seat + 2) % NUM_SEATS


def next_seat(seat: int) -> int:
    """The seat after ``seat`` in turn order (counterclockwise)."""
    return (seat + 1) % NUM_SEATS


def turn_order(first: int) -> list[int]:
    """The four seats in turn order starting at ``first``."""
    return [(first + step) % NUM_SEATS for step in range(NUM_SEATS)]


# ----- the deal ------------------------------------------------------------------------------


def deal_positions(holder: int) -> list[list[int]]:
    """For each seat, the deck positions it is dealt, in the order it receives them.

    The holder gets 0..4 before choosing trumps; then the others 5 each in turn
    order (5..19); then two passes of four each from the holder (20..35, 36..51).
    """
    positions: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    positions[holder] = list(range(FIRST_PACKET))
    start = FIRST_PACKET
    for seat in turn_order(holder)[1:]:
        positions[seat] += range(start, start + FIRST_PACKET)
        start += FIRST_PACKET
    for _ in range(2):
        for seat in turn_order(holder):
            positions[seat] += range(start, start + PACKET)
            start += PACKET
    return positions


def holders_first_cards(deck: Sequence[int]) -> CardSet:
    """The five cards the holder sees before choosing trumps: ``deck[0:5]``."""
    return to_set(deck[:FIRST_PACKET])


def deal_hands(deck: Sequence[int], holder: int) -> list[CardSet]:
    """Each seat's 13 cards once the deal is complete."""
    return [to_set(deck[p] for p in positions) for positions in deal_positions(holder)]


def holders_thirteenth_card(deck: Sequence[int]) -> int:
    """The holder's 13th card (``deck[39]``): its suit is trumps when the holder chose "13"."""
    return deck[THIRTEENTH_POSITION]


def trump_of_choice(action: int, deck: Sequence[int]) -> int:
    """The trump suit an action 52..56 makes: the suit named, or for "13" the suit of the holder's 13th card."""
    if action == TRUMP_13:
        return suit_of(holders_thirteenth_card(deck))
    return action - TRUMP_BASE


def redeal_allowed(hand: CardSet) -> bool:
    """Whether the holder's 13 cards allow a redeal: no jack, queen or king (aces do not count)."""
    return hand.bit_count() == CARDS_EACH and not hand & FACE_CARDS


# ----- leads, follows, tricks ------------------------------------------------------------------


def trumps_in(hand: CardSet, trump: int) -> CardSet:
    """The trumps of a hand."""
    return hand & SUIT_MASK[trump]


def holds_only_trumps(hand: CardSet, trump: int) -> bool:
    """Whether every card of a (non-empty) hand is a trump."""
    return hand != 0 and not hand & ~SUIT_MASK[trump]


def lead_cards(hand: CardSet, trump: int, state: LeadState) -> CardSet:
    """The cards a seat may lead, given its team's lead state.

    ``free``: any card. ``trop``: a trump. ``sar_next`` and ``trop_done``: a
    non-trump, unless the leader holds only trumps.
    """
    if state.kind == LeadKind.TROP:
        return trumps_in(hand, trump) or hand
    if state.kind in (LeadKind.SAR_NEXT, LeadKind.TROP_DONE):
        return (hand & ~SUIT_MASK[trump]) or hand
    return hand


def follow_cards(hand: CardSet, led_suit: int) -> CardSet:
    """The cards a seat may play to a trick: one of the suit led if it has any, else any card."""
    return (hand & SUIT_MASK[led_suit]) or hand


def card_beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` beats ``best``, the trick's winning card so far (which set or followed the suit led)."""
    if suit_of(card) == suit_of(best):
        return rank_of(card) > rank_of(best)
    return suit_of(card) == trump


def trick_winner(plays: Sequence[tuple[int, int]], trump: int) -> int:
    """The seat that takes a trick of ``(seat, card)`` plays: the highest trump, else the highest of the suit led."""
    winner, best = plays[0]
    for seat, card in plays[1:]:
        if card_beats(card, best, trump):
            winner, best = seat, card
    return winner


# ----- trump leads: Sar, Trop, Trop to the end ------------------------------------------------------


def is_fresh_trump_lead(card: int, trump: int, state: LeadState) -> bool:
    """Whether leading ``card`` is a fresh trump lead: a trump led by a team not in a Trop.

    (A team in ``sar_next`` or ``trop_done`` can lead a trump only from an all-trump hand.)
    """
    return suit_of(card) == trump and state.kind != LeadKind.TROP


def classify_trump_lead(hand: CardSet, trump: int, team_tricks: int, plays_bavan: bool) -> TrumpLead:
    """The rulings' cases for a fresh trump lead, checked in their order; ``hand`` includes the led card.

    1. all trumps: nothing declared; 2. fewer than 3 trumps: Sar; 3. the team has
    5 or more tricks and is not playing Bavan: Sar; 4. otherwise the leader chooses.
    """
    if holds_only_trumps(hand, trump):
        return TrumpLead.ALL_TRUMPS
    if trumps_in(hand, trump).bit_count() < SAR_BELOW_TRUMPS:
        return TrumpLead.SAR_FEWER_THAN_3
    if team_tricks >= SAR_FROM_TRICKS and not plays_bavan:
        return TrumpLead.SAR_5_TRICKS
    return TrumpLead.CHOOSE


def declaration_choices(hand: CardSet, trump: int, first_lead: bool) -> list[int]:
    """The ids of a declaration decision: Sar and Trop, and Trop to the end at the round's first lead
    with 7 or more trumps (``hand`` includes the led card)."""
    choices = [SAR, TROP]
    if first_lead and trumps_in(hand, trump).bit_count() >= TROP_TO_END_TRUMPS:
        choices.append(TROP_TO_END)
    return choices


def state_after_declaration(action: int) -> LeadState:
    """The team's state once a trump lead has declared ``action`` (Sar, Trop or Trop to the end)."""
    if action == SAR:
        return LeadState(LeadKind.SAR)
    return trop_state(1, TROP_LEADS if action == TROP else TROP_TO_END_LEADS)


def state_after_lead(state: LeadState, card: int, trump: int, case: TrumpLead | None) -> LeadState:
    """The leading team's state once ``card`` is led, before any declaration decision.

    ``case`` is the fresh trump lead's case (None for any other lead). A Trop's
    next trump lead adds one; a non-trump lead ends ``sar_next`` and ``trop_done``;
    an all-trump lead ends ``sar_next`` and keeps ``trop_done``; an automatic Sar
    is a Sar. A lead that needs a choice leaves the state to ``state_after_declaration``.
    """
    if state.kind == LeadKind.TROP:
        return trop_state(state.made + 1, state.of)
    if suit_of(card) != trump:
        return FREE if state.kind in (LeadKind.SAR_NEXT, LeadKind.TROP_DONE) else state
    if case == TrumpLead.ALL_TRUMPS:
        return FREE if state.kind == LeadKind.SAR_NEXT else state
    if case in (TrumpLead.SAR_FEWER_THAN_3, TrumpLead.SAR_5_TRICKS):
        return LeadState(LeadKind.SAR)
    return state


def state_after_trick(state: LeadState, took_it: bool, winner_hand: CardSet, trump: int) -> tuple[LeadState, bool]:
    """The leading team's state at the end of its trick, and whether Trop to the end failed there.

    ``took_it``: whether the team took the trick; ``winner_hand``: the taker's cards after the trick.
    A Sar becomes ``sar_next`` if the team took it, else ``free``. A Trop: lifted
    (``free``) when the opponents take the trick or the team's taker holds no
    trump, done (``trop_done``) when the team takes the last committed lead, else
    it goes on; for Trop to the end, ``free`` in those two cases means TROP FAILED.
    """
    if state.kind == LeadKind.SAR:
        return (LeadState(LeadKind.SAR_NEXT) if took_it else FREE), False
    if state.kind != LeadKind.TROP:
        return state, False
    if took_it and state.made == state.of:
        return LeadState(LeadKind.TROP_DONE), False
    if took_it and trumps_in(winner_hand, trump):
        return state, False
    return FREE, state.of == TROP_TO_END_LEADS


# ----- the end of a round, the holder, the match ---------------------------------------------------


def round_result(tricks: Sequence[int], winner_team: int, bavan_team: int | None) -> Result | None:
    """The result decided by a trick ``winner_team`` just took (``tricks``: both teams' counts after it).

    None while the round goes on, including at 7:0 before the Bavan vote (``seven_nil``
    says when that vote is due). In Bavan: failed on an opponent's trick, made at 13:0.
    """
    if bavan_team is not None:
        if winner_team != bavan_team:
            return Result.BAVAN_FAILED
        return Result.BAVAN_MADE if tricks[bavan_team] == TRICKS_IN_ROUND else None
    if tricks[winner_team] == TRICKS_TO_WIN and tricks[1 - winner_team] > 0:
        return Result.ORDINARY
    return None


def seven_nil(tricks: Sequence[int], winner_team: int, bavan_team: int | None) -> bool:
    """Whether ``winner_team`` has just reached 7:0 outside Bavan: its seats vote on Bavan."""
    return bavan_team is None and tricks[winner_team] == TRICKS_TO_WIN and tricks[1 - winner_team] == 0


def bavan_voters(seventh_trick_winner: int) -> list[int]:
    """Who votes on Bavan, in order: the seat that took the 7th trick, then its partner."""
    return [seventh_trick_winner, partner_of(seventh_trick_winner)]


def seven_nil_result(team: int, holder: int) -> Result:
    """What a 7:0 without Bavan counts as: Kort for the holder's team, At-kort for the other."""
    return Result.KORT if team == team_of(holder) else Result.AT_KORT


def result_team(result: Result, trick_team: int, holder: int, bavan_team: int | None) -> int:
    """The team that gets the round's wins: the holder's opponents after TROP FAILED, the Bavan team
    after Bavan (made or failed), else the team with 7 tricks (``trick_team``)."""
    if result == Result.TROP_FAILED:
        return 1 - team_of(holder)
    if result in (Result.BAVAN_MADE, Result.BAVAN_FAILED):
        assert bavan_team is not None
        return bavan_team
    return trick_team


def result_wins(result: Result) -> int:
    """The match wins a result gives: 1, Kort 5, At-kort 7, Bavan made 7, Bavan failed 1, TROP FAILED 1."""
    return RESULT_WINS[result]


def next_holder(holder: int, winning_team: int) -> int:
    """The next round's holder: the same seat if its team got the wins, else the next seat in turn order."""
    return holder if team_of(holder) == winning_team else next_seat(holder)


def match_winner(wins: Sequence[int], target_wins: int) -> int | None:
    """The team that has reached ``target_wins`` (only one can: a round gives wins to one team), else None."""
    for team in (0, 1):
        if wins[team] >= target_wins:
            return team
    return None


def match_scores(winner_team: int) -> list[int]:
    """Each seat's match result: +1 for the winning team's seats, -1 for the others."""
    return [1 if team_of(seat) == winner_team else -1 for seat in range(NUM_SEATS)]
