"""Compiled steps for search agents: one Kort position as four arrays, and the numba functions that step it.

An agent that searches inside compiled code works through this module alone; how the engine lays out a position
stays private to ``sim.kort``. A position is four arrays, ``cards, ints, deck, rng``, held together as a
``Position`` record (``sim.compiled_api``). ``new_position`` and
``position_rows`` (from what a seat sees, completed by given hidden cards) set one up, ``seat_position`` is its
compiled twin for an agent playing inside compiled code, ``seen_rows`` fills the hidden cards with stand-ins for
code that reads only what the seat sees, ``copy_position`` and ``deal_hidden`` restart a search;
the accessors read the public state and the seat's own hand, and the engine's playout policies (``RANDOM``,
``GREEDY``, ``greedy_choice``, ``trop_to_end_chance``, ...) are public here too. Results are per team
(``team_result``, ``wins``, ``tricks``). Every function but ``position_rows`` and ``seen_rows`` is compiled.
Each function's part is in docs/internals.md, ``sim.kort.compiled``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from sim import compiled_api, config
from sim.cards import FULL_DECK, CardSet, bit, card_list, suit_of, to_set
from sim.compiled_api import *  # noqa: F403 (the helpers every step API re-exports: ``sim.compiled_api``)
from sim.compiled_api import Position
from sim.compiled_bits import CRC_START, popcount, row_field, row_field_at, row_flag
from sim.errors import GameInputError
from sim.kort.compiled import state
from sim.kort.compiled.kernels import apply_action, init_match, is_legal, legal_actions, seed_streams, uniform_action
from sim.kort.compiled.playout import copy_round_record
from sim.kort.compiled.policies import (
    ACE,
    DRAW_TRUMPS_FROM,
    GREEDY,
    KING,
    POLICY_IDS,
    RANDOM,
    REDEAL_UNLESS_ACES,
    REDEAL_UNLESS_TRUMPS,
    SUITS,
    T_CARD,
    T_LEN,
    T_SEAT,
    T_TARGET,
    TRICK_FIELDS,
    TROP_FROM,
    TROP_TO_END_CHANCE,
    View,
    beats,
    cheapest,
    greedy_action,
    greedy_choice,
    side_lead,
)
from sim.kort.compiled.state import new_position
from sim.kort.compiled.trop_chance import trop_to_end_chance
from sim.kort.encoding import (
    BAVAN_YES,
    DECLARATION_KINDS,
    FIRST_PACKET,
    NUM_ACTIONS,
    NUM_SEATS,
    TROP_TO_END_TRUMPS,
    VOTE_ACTIONS,
    LeadState,
    Phase,
)
from sim.kort.rules import card_beats

__all__ = [
    "ACE",
    "DRAW_TRUMPS_FROM",
    "GREEDY",
    "KING",
    "NUM_ACTIONS",
    "POLICY_IDS",
    "RANDOM",
    "REDEAL_UNLESS_ACES",
    "REDEAL_UNLESS_TRUMPS",
    "SUITS",
    "TRICK_FIELDS",
    "TROP_FROM",
    "TROP_TO_END_CHANCE",
    "T_CARD",
    "T_LEN",
    "T_SEAT",
    "T_TARGET",
    "View",
    "beats",
    "cheapest",
    "greedy_action",
    "greedy_choice",
    "side_lead",
    "trop_to_end_chance",
    "apply_action",
    "card_count",
    "deal_hidden",
    "declared",
    "holder",
    "is_legal",
    "is_over",
    "lead_kind",
    "leader",
    "legal_actions",
    "new_match",
    "new_position",
    "new_results",
    "own_hand",
    "phase",
    "play_out",
    "played",
    "position_rows",
    "seen_rows",
    "random_action",
    "record_round",
    "round_no",
    "rounds_played",
    "seat_position",
    "seed_streams",
    "target_wins",
    "team_result",
    "thirteenth",
    "to_move",
    "trick_card",
    "trick_no",
    "trick_plays",
    "tricks",
    "trump",
    "winner_team",
    "wins",
    *compiled_api.__all__,
]


# ----- Python side -----------------------------------------------------------------------------------
def position_rows(observation: Any, hands: Sequence[CardSet], undealt: Sequence[int] = (), deal_seed: int = 0,
                  first_vote: int = BAVAN_YES) -> Position:
    """The position ``observation``'s seat sees, completed by the hidden rest.

    ``hands[s]`` is seat s's hand (a card set; the observing seat's own is read from the
    observation). While the holder chooses trumps (only it holds cards, its first five),
    ``undealt`` is the rest of the deck in deal order (``deck[5:52]``, 47 cards); otherwise it
    stays empty. ``first_vote`` is the first Bavan vote when the observing seat has not seen
    it (the partner's turn to vote, or another team's vote): the default, yes, is the only
    vote under which the partner's own decides anything. Every stream in ``rng`` starts
    from ``deal_seed`` (``seed_streams``). The decision count is the match's; the CRC of
    decisions starts afresh. A position that cannot be (wrong counts, a card twice) is
    refused in one line.
    """
    obs = observation
    if obs.done:
        raise GameInputError("the match is over: there is no position to search")
    if len(hands) != NUM_SEATS:
        raise GameInputError(f"a Kort position needs {NUM_SEATS} hands, not {len(hands)}")
    deal_start = max(i for i, event in enumerate(obs.log) if event["kind"] == "deal")
    this_deal = obs.log[deal_start:]
    held = [to_set(obs.hand) if s == obs.seat else int(hands[s]) for s in range(NUM_SEATS)]
    played = to_set(event["card"] for event in this_deal if event["kind"] == "play")
    seen = played
    for s in range(NUM_SEATS):
        if held[s].bit_count() != obs.card_counts[s] or held[s] & seen:
            raise GameInputError(f"seat {s}'s hand does not fit the observation (count or a card seen elsewhere)")
        seen |= held[s]
    choosing = obs.phase == Phase.TRUMP
    if choosing != (len(undealt) == 52 - FIRST_PACKET) or to_set(undealt) & seen or len(set(undealt)) != len(undealt):
        raise GameInputError(f"the undealt cards are the deck's last {52 - FIRST_PACKET} in deal order while the "
                             "holder chooses trumps (none of them held), and none otherwise")

    cards, ints, deck, rng = new_position()
    for s in range(NUM_SEATS):
        cards[state.C_HAND + s] = held[s]
    cards[state.C_PLAYED] = played
    deck[:] = card_list(held[obs.holder]) + list(undealt) if choosing else card_list(FULL_DECK)
    _write_public(ints, obs, held, this_deal, first_vote)
    seed_streams(rng, np.uint64(deal_seed))
    return Position(cards, ints, deck, rng)


def seen_rows(observation: Any) -> Position:
    """The position ``observation``'s seat sees, the cards hidden from it filled in card order: rows for a compiled
    reader of what a seat sees (``seat_position``, an agent's compiled search), which never reads those cards.

    Every other seat gets its public count of the cards the seat has not seen played or in its hand, in ascending
    order, and while the holder chooses trumps the undealt deck the rest: no deal the seat thinks likely, only
    one that fits the counts.
    """
    obs = observation
    if obs.done:
        raise GameInputError("the match is over: there is no position to search")
    deal_start = max(i for i, event in enumerate(obs.log) if event["kind"] == "deal")
    played = to_set(event["card"] for event in obs.log[deal_start:] if event["kind"] == "play")
    unseen = card_list(FULL_DECK & ~(played | to_set(obs.hand)))
    hands, at = [], 0
    for s in range(NUM_SEATS):
        count = 0 if s == obs.seat else obs.card_counts[s]
        hands.append(to_set(unseen[at:at + count]))
        at += count
    return position_rows(obs, hands, unseen[at:] if obs.phase == Phase.TRUMP else ())


def _write_public(ints: np.ndarray, obs: Any, held: list[CardSet], this_deal: Sequence[dict[str, Any]],
                  first_vote: int) -> None:
    """Every public field of the ints row, from the observation and its log (the last round's record stays -1)."""
    ints[:] = 0
    ints[state.I_LAST_ROUND:] = -1
    ints[state.I_TARGET] = obs.options["target_wins"]
    ints[state.I_FIRST_HOLDER] = obs.options["first_holder"]
    ints[state.I_ROUND_NO], ints[state.I_DEAL_NO], ints[state.I_HOLDER] = obs.round_no, obs.deal_no, obs.holder
    ints[state.I_REDEALS] = sum(1 for event in obs.log if event["kind"] == "redeal")
    ints[state.I_ROUNDS_PLAYED] = sum(1 for event in obs.log if event["kind"] == "round_end")
    ints[state.I_PHASE], ints[state.I_TO_MOVE] = obs.phase, obs.to_move
    ints[state.I_TRUMP] = -1 if obs.trump is None else obs.trump
    choice = [event["action"] for event in this_deal if event["kind"] == "trump"]
    ints[state.I_TRUMP_CHOICE] = choice[0] if choice else -1
    ints[state.I_THIRTEENTH] = -1 if obs.thirteenth is None else obs.thirteenth
    ints[state.I_LEADER], ints[state.I_TRICK_NO], ints[state.I_TRICK_PLAYS] = obs.leader, obs.trick_no, len(obs.trick)
    ints[state.I_LED_SUIT] = ints[state.I_BEST_CARD] = ints[state.I_BEST_SEAT] = -1
    ints[state.I_TRICK_CARD:state.I_TRICK_CARD + NUM_SEATS] = -1
    for seat, card in obs.trick:
        ints[state.I_TRICK_CARD + seat] = card
        if ints[state.I_BEST_CARD] < 0:
            ints[state.I_LED_SUIT] = suit_of(card)
        if ints[state.I_BEST_CARD] < 0 or card_beats(card, int(ints[state.I_BEST_CARD]), obs.trump):
            ints[state.I_BEST_CARD], ints[state.I_BEST_SEAT] = card, seat
    if obs.phase == Phase.DECLARE:
        leader_before = held[obs.to_move] | bit(obs.trick[0][1])
        trumps = sum(1 for card in card_list(leader_before) if suit_of(card) == obs.trump)
        ints[state.I_CHOICES] = 3 if obs.trick_no == 0 and trumps >= TROP_TO_END_TRUMPS else 2
    ints[state.I_BAVAN_TEAM] = -1 if obs.bavan_team is None else obs.bavan_team
    ints[state.I_VOTE:state.I_VOTE + NUM_SEATS] = -1
    ints[state.I_FIRST_VOTER] = -1
    votes_cast = 0
    for event in this_deal:
        if event["kind"] == "bavan_vote":
            for seat, vote in event["votes"]:
                ints[state.I_VOTE + seat] = vote
    if obs.phase == Phase.VOTE:
        first = [event["winner"] for event in this_deal if event["kind"] == "trick"][-1]
        ints[state.I_FIRST_VOTER] = first
        if obs.to_move != first:  # the first vote is cast: the observer's own, or the one given
            votes_cast = 1
            ints[state.I_VOTE + first] = obs.own_vote if obs.seat == first else first_vote
            if ints[state.I_VOTE + first] not in VOTE_ACTIONS:
                raise GameInputError(f"a Bavan vote is {VOTE_ACTIONS[0]} or {VOTE_ACTIONS[1]}, not {first_vote}")
    ints[state.I_VOTES_CAST] = votes_cast
    ints[state.I_DECISIONS] = votes_cast + sum(
        1 if event["kind"] in ("trump", "play", "redeal") else 2 if event["kind"] == "bavan_vote" else
        int(event["kind"] == "declare" and not event["automatic"]) for event in obs.log)
    ints[state.I_CRC] = CRC_START
    ints[state.I_WINNER_TEAM] = ints[state.I_END_REASON] = -1
    ints[state.I_SCORE:state.I_SCORE + NUM_SEATS] = 0
    for team in range(2):
        ints[state.I_TRICKS + team] = obs.tricks[team]
        ints[state.I_LEAD_STATE + team] = LeadState.from_text(obs.lead_states[team]).code
        ints[state.I_WINS + team] = obs.wins[team]
    ints[state.I_DECLARED:state.I_DECLARED + 13] = -1
    for event in this_deal:
        if event["kind"] == "declare":
            kind = DECLARATION_KINDS.index(event["declaration"])
            ints[state.I_DECLARED + event["trick"]] = kind * NUM_SEATS + event["seat"]


def new_results(count: int, target_wins: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed result rows for ``count`` matches to ``target_wins``: each match's final ints row, and its rounds'
    records (``record_round`` fills them; ``sim.kort.compiled.batch.results_of_rows`` reads both)."""
    return (np.zeros((count, state.NUM_INT_FIELDS), dtype=np.int64),
            np.zeros((count, state.max_rounds(target_wins), state.ROUND_FIELDS), dtype=np.int16))


# ----- compiled: the match and its rounds (public) ---------------------------------------------------
to_move = row_field(state.I_TO_MOVE, "The seat whose decision it is (-1 once the match is over).")
is_over = row_flag(state.I_END_REASON, "Whether the match has ended.")
winner_team = row_field(state.I_WINNER_TEAM, "The team that won the match (-1 while it goes on).")


@njit(**config.INLINED_KERNEL)
def team_result(ints: np.ndarray, team: int) -> int:
    """``team``'s match result: +1 if it won, -1 if it lost, 0 while the match goes on (each seat scores its team's)."""
    if ints[state.I_WINNER_TEAM] < 0:
        return 0
    return 1 if ints[state.I_WINNER_TEAM] == team else -1


phase = row_field(
    state.I_PHASE, "What the seat to move decides, as ``Phase``: 0 trump, 1 lead, 2 declare, 3 follow, 4 vote, 5 over.")
target_wins = row_field(state.I_TARGET, "The match's target in wins.")
wins = row_field_at(state.I_WINS, "``team``'s match wins so far.")
tricks = row_field_at(state.I_TRICKS, "Tricks ``team`` has taken in the current round.")


@njit(**config.INLINED_KERNEL)
def lead_kind(ints: np.ndarray, team: int) -> int:
    """``team``'s lead state as a ``LeadKind`` (free, sar, sar_next, trop, trop_done)."""
    return state.state_kind(ints[state.I_LEAD_STATE + team])


holder = row_field(state.I_HOLDER, "The current round's trump holder.")
trump = row_field(state.I_TRUMP, "The trump suit 0..3, -1 before the holder's choice.")
thirteenth = row_field(state.I_THIRTEENTH, 'The holder\'s 13th card, shown to all after "13", else -1.')
round_no = row_field(state.I_ROUND_NO, "The round being played, from 0.")
rounds_played = row_field(
    state.I_ROUNDS_PLAYED,
    "Rounds finished in the match so far (it grows by one as a round ends: a search can stop there).")
declared = row_field_at(
    state.I_DECLARED,
    "The declaration on trick ``trick``'s lead this round as ``kind * 4 + seat`` (kind indexes "
    "``DECLARATION_KINDS``), -1 for none.")


# ----- compiled: the current trick, and a seat's own cards ------------------------------------------
trick_no = row_field(state.I_TRICK_NO, "Tricks completed in this round.")
leader = row_field(state.I_LEADER, "The seat that led (or leads) the current trick.")
trick_plays = row_field(
    state.I_TRICK_PLAYS,
    "Cards on the table in the current trick (played by ``leader`` and the seats after it, in turn).")
trick_card = row_field_at(state.I_TRICK_CARD, "``seat``'s card in the current trick, -1 before its turn.")
played = row_field(state.C_PLAYED, "The cards played in this deal, the current trick's included (public).")
own_hand = row_field_at(
    state.C_HAND, "``seat``'s own cards (a uint64 set): for that seat's agent only, never another seat's.")


@njit(**config.INLINED_KERNEL)
def card_count(cards: np.ndarray, seat: int) -> int:
    """How many cards ``seat`` holds (public)."""
    return popcount(cards[state.C_HAND + seat])


# ----- compiled: stepping a position ------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def deal_hidden(cards: np.ndarray, hands: np.ndarray, seat: int) -> None:
    """Give every seat but ``seat`` the hand ``hands[s]`` (uint64 card sets), for a determinization.

    The caller keeps the counts and the cards seen (``position_rows`` checks those). While the
    holder chooses trumps the undealt cards are in the deck: write those into ``deck[5:]``.
    """
    for s in range(NUM_SEATS):
        if s != seat:
            cards[state.C_HAND + s] = hands[s]


@njit(**config.INLINED_KERNEL)
def random_action(cards: np.ndarray, ints: np.ndarray, rng: np.ndarray) -> int:
    """A uniform legal action from the seat to move's own stream, as ``RandomAgent`` picks (the match not over)."""
    return uniform_action(cards, ints, rng, state.RNG_SEAT + ints[state.I_TO_MOVE])


@njit(**config.STEP_KERNEL)
def play_out(cards: np.ndarray, ints: np.ndarray, deck: np.ndarray, rng: np.ndarray, round_only: bool) -> None:
    """Play on with ``random_action`` at every seat: to the match's end, or with ``round_only`` to the round's."""
    start = ints[state.I_ROUNDS_PLAYED]
    while ints[state.I_END_REASON] < 0 and not (round_only and ints[state.I_ROUNDS_PLAYED] > start):
        apply_action(cards, ints, deck, rng, random_action(cards, ints, rng))


@njit(**config.STEP_KERNEL)
def new_match(cards: np.ndarray, ints: np.ndarray, deck: np.ndarray, rng: np.ndarray, target_wins: int,
              first_holder: int, seed: int) -> None:
    """A new match in the arrays, as ``KortMatch(options, seed=seed)`` deals it."""
    seed_streams(rng, seed)
    init_match(cards, ints, deck, rng, target_wins, first_holder)


@njit(**config.INLINED_KERNEL)
def record_round(ints: np.ndarray, rounds: np.ndarray, recorded: int) -> int:
    """Copy the round finished since ``recorded`` rounds into ``rounds`` (a match's row of ``new_results``);
    returns the rounds recorded now. Call it after every action, starting from 0."""
    return copy_round_record(ints, rounds, recorded)


@njit(**config.STEP_KERNEL)
def seat_position(cards: np.ndarray, ints: np.ndarray, seat: int, hands: np.ndarray, undealt: np.ndarray,
                  deal_seed: np.uint64, target: Position) -> None:
    """The position ``seat`` sees in a live match (``cards, ints``), completed by the hidden rest, into
    ``target``: exactly what ``position_rows`` makes of the seat's observation.

    The other seats' hands are ``hands[s]``; while the holder chooses trumps the deck is the
    holder's cards ascending, then ``undealt`` (47 cards in deal order), else the cards in id
    order. A first Bavan vote the seat has not seen is taken as yes. Every stream starts from
    ``deal_seed``; the CRC of decisions starts afresh. Nothing hidden from the seat is read.
    """
    cards2, ints2, deck2, rng2 = target
    for s in range(NUM_SEATS):
        cards2[state.C_HAND + s] = cards[state.C_HAND + s] if s == seat else hands[s]
    cards2[state.C_PLAYED] = cards[state.C_PLAYED]
    for i in range(ints.shape[0]):
        ints2[i] = ints[i]
    for i in range(state.I_LAST_ROUND, ints2.shape[0]):
        ints2[i] = -1
    ints2[state.I_CRC] = CRC_START
    stage = ints[state.I_PHASE]
    if stage != state.P_DECLARE:
        ints2[state.I_CHOICES] = 0
    ints2[state.I_VOTES_CAST] = 0
    ints2[state.I_FIRST_VOTER] = -1
    if stage == state.P_VOTE:
        first = ints[state.I_FIRST_VOTER]
        ints2[state.I_FIRST_VOTER] = first
        if ints[state.I_TO_MOVE] != first:  # the first vote is cast, by the partner: unseen, taken as yes
            ints2[state.I_VOTES_CAST] = 1
            if first != seat:
                ints2[state.I_VOTE + first] = BAVAN_YES
    if stage == state.P_TRUMP:
        k = 0
        for card in range(52):
            if cards2[state.C_HAND + ints[state.I_HOLDER]] >> np.uint64(card) & np.uint64(1):
                deck2[k] = card
                k += 1
        for i in range(undealt.shape[0]):
            deck2[k + i] = undealt[i]
    else:
        for card in range(52):
            deck2[card] = card
    seed_streams(rng2, deal_seed)
