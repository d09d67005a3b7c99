"""Compiled steps for search agents: one Knockout Whist position as four arrays, and the numba functions that step it.

An agent that searches inside compiled code works through this module alone; how the engine lays out a position
stays private to ``sim.knockout_whist``. A position is four arrays, ``cards, ints, deck, rng``, held together as
a ``Position`` record (``sim.compiled_api``). ``new_position`` and
``position_rows`` (from what a seat sees, completed by given hidden cards) set one up, ``copy_position`` and
``deal_hidden`` restart a search, ``seat_view`` is ``position_rows`` in compiled code, ``seen_rows`` fills the
hidden cards with stand-ins for code that reads only what the seat sees, and the readers are what an
agent playing inside a kernel may read of the game. ``rng[DEAL_STREAM]`` deals the later hands and cuts,
``rng[SEAT_STREAMS + s]`` is seat s's own. Each function's part is in docs/internals.md,
``sim.knockout_whist.compiled``. Every function but the Python ones (``position_rows``, ``seen_rows``, ``scores``)
is compiled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from sim import compiled_api, config
from sim.cards import FULL_DECK, CardSet, card_list, suit_of, to_set
from sim.compiled_api import *  # noqa: F403 (the helpers every step API re-exports: ``sim.compiled_api``)
from sim.compiled_api import Position
from sim.compiled_bits import CRC_START, popcount, row_field, row_field_at, row_flag, seed_streams
from sim.errors import GameInputError
from sim.knockout_whist.compiled import state
from sim.knockout_whist.compiled.kernels import apply_action, init_game, legal_actions
from sim.knockout_whist.compiled.policies import (
    GREEDY,
    POLICY_IDS,
    RANDOM,
    beats,
    cheapest_card,
    play_out,
    policy_choice,
)
from sim.knockout_whist.compiled.state import new_position
from sim.knockout_whist.encoding import KNOCK, NUM_ACTIONS, Options, Phase, cards_in_hand
from sim.knockout_whist.rules import card_beats

__all__ = [
    "GREEDY",
    "NUM_ACTIONS",
    "POLICY_IDS",
    "RANDOM",
    "apply_action",
    "beats",
    "best_card",
    "card_count",
    "cheapest_card",
    "chooser",
    "deal_hidden",
    "dogs_life_used",
    "exchanged",
    "hand_number",
    "is_over",
    "led_suit",
    "legal_actions",
    "new_game",
    "new_position",
    "option_flags",
    "own_hand",
    "own_thrown",
    "phase",
    "play_out",
    "policy_choice",
    "position_rows",
    "seen_rows",
    "score",
    "scores",
    "seat_count",
    "seat_status",
    "seat_view",
    "seed_streams",
    "stock_left",
    "to_move",
    "trick_action",
    "trick_seats",
    "trumps",
    "turned_card",
    "winner",
    *compiled_api.__all__,
]


# ----- Python side -----------------------------------------------------------------------------------
def position_rows(observation: Any, hands: Sequence[CardSet], stock: Sequence[int], deal_seed: int = 0) -> Position:
    """The position ``observation``'s seat sees, completed by ``hands`` and ``stock``.

    ``hands[s]`` is seat s's hand (a card set; the observing seat's own is read from the
    observation), ``stock`` the cards still to draw, top first; the other seats' thrown-away
    cards stay unknown (they never come back into play). Every stream in ``rng`` starts from
    ``deal_seed`` (``seed_streams``). The decision count is the game's; the CRC of decisions
    starts afresh. A position that cannot be (wrong counts, a card twice) is refused in one line.
    """
    obs = observation
    if obs.done:
        raise GameInputError("the game is over: there is no position to search")
    n, seat, hand_no = obs.n_seats, obs.seat, obs.hand_no
    if len(hands) != n:
        raise GameInputError(f"a {n}-seat position needs {n} hands, not {len(hands)}")
    this_hand = [event for event in obs.log if event.get("hand") == hand_no]
    deal = next(event for event in this_hand if event["kind"] == "hand")
    held = [to_set(obs.hand) if s == seat else int(hands[s]) for s in range(n)]
    played = to_set(event["card"] for event in this_hand if event["kind"] == "play")
    expected_stock = _stock_left(obs, deal)
    if len(stock) != expected_stock:
        raise GameInputError(f"the stock holds {expected_stock} cards now, not {len(stock)}")
    seen = played | to_set(obs.thrown) | (0 if obs.turned is None else 1 << obs.turned)
    for s in range(n):
        if held[s].bit_count() != obs.card_counts[s] or held[s] & seen:
            raise GameInputError(f"seat {s}'s hand does not fit the observation (count or a card seen elsewhere)")
        seen |= held[s]
    if to_set(stock) & seen or len(set(stock)) != len(stock):
        raise GameInputError("a stock card is also in a hand, played, thrown or turned (or twice in the stock)")

    cards, ints, deck, rng = new_position()
    for s in range(n):
        cards[state.C_HAND + s] = held[s]
    cards[state.C_THROWN + seat] = to_set(obs.thrown)
    cards[state.C_PICKED] = to_set(obs.picked)
    cards[state.C_PLAYED] = played
    stock_pos = 52 - len(stock)
    deck[:stock_pos] = card_list(FULL_DECK & ~to_set(stock))[:stock_pos]  # never read: the dealt part
    deck[stock_pos:] = list(stock)
    _write_public(ints, obs, deal, this_hand, stock_pos)
    seed_streams(rng, np.uint64(deal_seed), n)
    return Position(cards, ints, deck, rng)


def seen_rows(observation: Any) -> Position:
    """The position ``observation``'s seat sees, the cards hidden from it filled in card order: rows for a compiled
    reader of what a seat sees (``seat_view``, an agent's compiled search), which never reads those cards.

    Every other seat gets its public count of the cards the seat has not seen, in ascending order, and the stock
    the next ones: no deal the seat thinks likely, only one that fits the counts.
    """
    obs = observation
    if obs.done:
        raise GameInputError("the game is over: there is no position to search")
    this_hand = [event for event in obs.log if event.get("hand") == obs.hand_no]
    deal = next(event for event in this_hand if event["kind"] == "hand")
    played = to_set(event["card"] for event in this_hand if event["kind"] == "play")
    seen = played | to_set(obs.hand) | to_set(obs.thrown) | (0 if obs.turned is None else 1 << obs.turned)
    unseen = card_list(FULL_DECK & ~seen)
    hands, at = [], 0
    for s in range(obs.n_seats):
        count = 0 if s == obs.seat else obs.card_counts[s]
        hands.append(to_set(unseen[at:at + count]))
        at += count
    return position_rows(obs, hands, unseen[at:at + _stock_left(obs, deal)])


def _stock_left(obs: Any, deal: dict[str, Any]) -> int:
    dealt = cards_in_hand(obs.hand_no) * (len(deal["seats"]) - len(deal["dogs"])) + len(deal["dogs"])
    return 52 - dealt - (obs.hand_no == 1) - sum(count or 0 for count in obs.exchanged)


def _write_public(ints: np.ndarray, obs: Any, deal: dict[str, Any], this_hand: list[dict[str, Any]],
                  stock_pos: int) -> None:
    """Every public field of the ints row, from the observation and its log."""
    n = obs.n_seats
    ints[state.I_N_SEATS] = n
    ints[state.I_FLAGS] = Options(**obs.options).flags()
    ints[state.I_HAND_NO] = obs.hand_no
    ints[state.I_DEALER] = obs.dealer
    ints[state.I_LEADER] = obs.leader
    ints[state.I_CHOOSER] = -1 if deal["chooser"] is None else deal["chooser"]
    ints[state.I_PHASE] = obs.phase
    ints[state.I_TO_MOVE] = obs.to_move
    ints[state.I_TRUMPS] = -1 if obs.trumps is None else obs.trumps
    ints[state.I_TURNED] = -1 if obs.turned is None else obs.turned
    ints[state.I_STOCK_POS] = stock_pos
    ints[state.I_IN_HAND] = sum(1 << s for s in deal["seats"])
    ints[state.I_DOGS_LIFE_USED] = int(obs.dogs_life_used)
    ints[state.I_TRICK_NO] = sum(obs.tricks)
    ints[state.I_LAST_TRICK] = int(obs.phase == Phase.PLAY and sum(obs.tricks) == cards_in_hand(obs.hand_no) - 1)
    playing = obs.phase == Phase.PLAY
    ints[state.I_TRICK_LEADER] = obs.trick_seats[0] if playing else -1
    ints[state.I_TRICK_SEATS] = sum(1 << s for s in obs.trick_seats) if playing else 0
    ints[state.I_TRICK_TURNS] = len(obs.trick)
    ints[state.I_LED_SUIT] = ints[state.I_BEST_CARD] = ints[state.I_BEST_SEAT] = -1
    for s in range(7):
        ints[state.I_TRICK_ACTION + s] = ints[state.I_EXCHANGED + s] = ints[state.I_CUT + s] = -1
    for s, action in obs.trick:
        ints[state.I_TRICK_ACTION + s] = action
        if action == KNOCK:
            continue
        if ints[state.I_BEST_CARD] < 0:
            ints[state.I_LED_SUIT] = suit_of(action)
        if ints[state.I_BEST_CARD] < 0 or card_beats(action, int(ints[state.I_BEST_CARD]), obs.trumps):
            ints[state.I_BEST_CARD], ints[state.I_BEST_SEAT] = action, s
    picks_done = sum(event["count"] + 1 for event in obs.log if event["kind"] == "exchange")
    ints[state.I_DECISIONS] = (sum(1 for e in obs.log if e["kind"] in ("play", "knock")) + picks_done + len(obs.picked)
                         + sum(1 for e in obs.log if e["kind"] == "trumps" and e["seat"] is not None))
    ints[state.I_CRC] = CRC_START
    ints[state.I_WINNER] = ints[state.I_END_REASON] = -1
    for s in range(7):
        ints[state.I_STATUS + s] = obs.status[s] if s < n else state.S_OUT  # the engine's: a seat past the table is out
    for s in range(n):
        ints[state.I_TRICKS + s] = obs.tricks[s]
        ints[state.I_OUT_HAND + s] = obs.out_hand[s] or 0
        ints[state.I_SCORE + s] = 0
        if obs.exchanged[s] is not None:
            ints[state.I_EXCHANGED + s] = obs.exchanged[s]
    for event in obs.log:
        if event["kind"] == "end_hand":
            for s in event["dogs"]:
                ints[state.I_DOG_HAND + s] = event["hand"] + 1
            for s in range(n):
                if ints[state.I_DOG_HAND + s] == event["hand"] and event["tricks"][s] > 0:
                    ints[state.I_DOG_SAVED + s] = 1
    for event in this_hand:
        if event["kind"] == "cut":
            for s, card in zip(event["seats"], event["cards"], strict=True):
                ints[state.I_CUT + s] = card


def scores(ints: np.ndarray) -> list[int]:
    """Every seat's score in a position's ``ints`` (final once the game is over, else zeros), from Python."""
    return ints[state.I_SCORE:state.I_SCORE + int(ints[state.I_N_SEATS])].tolist()


# ----- compiled ------------------------------------------------------------------------------------
to_move = row_field(state.I_TO_MOVE, "The seat whose decision it is (-1 once the game is over).")
is_over = row_flag(state.I_END_REASON, "Whether the game has ended.")
seat_count = row_field(state.I_N_SEATS, "Seats at the table.")
score = row_field_at(
    state.I_SCORE, "Seat ``seat``'s score: n - 1 for the winner, -1 for the others once the game is over (0 before).")
winner = row_field(state.I_WINNER, "The game's winner (-1 while it goes on).")
hand_number = row_field(state.I_HAND_NO, "The hand being played, 1..7.")
seat_status = row_field_at(state.I_STATUS, "Seat ``seat``'s ``Status``: 0 in, 1 on its dog's life, 2 knocked out.")
chooser = row_field(state.I_CHOOSER, "This hand's trump chooser (-1 in hand 1, whose trumps are turned up).")


@njit(**config.INLINED_KERNEL)
def dogs_life_used(ints: np.ndarray) -> bool:
    """Whether a dog's life has been awarded in the game (there is only one round of them)."""
    return ints[state.I_DOGS_LIFE_USED] != 0


@njit(**config.INLINED_KERNEL)
def stock_left(ints: np.ndarray) -> int:
    """The stock's cards still to draw this hand."""
    return 52 - ints[state.I_STOCK_POS]


@njit(**config.INLINED_KERNEL)
def deal_hidden(position: Position, hands: np.ndarray, stock: np.ndarray, seat: int) -> None:
    """Give every seat but ``seat`` the hand ``hands[s]`` and make ``stock[:stock_left]`` the stock, top first.

    For a determinization: the caller keeps the counts and the cards seen (``position_rows`` checks those).
    """
    cards, ints, deck, _ = position
    for s in range(ints[state.I_N_SEATS]):
        if s != seat:
            cards[state.C_HAND + s] = hands[s]
    start = ints[state.I_STOCK_POS]
    for i in range(52 - start):
        deck[start + i] = stock[i]


@njit(**config.STEP_KERNEL)
def new_game(cards: np.ndarray, ints: np.ndarray, deck: np.ndarray, rng: np.ndarray, n_seats: int, flags: int,
             seed: int) -> None:
    """A new game in the arrays, as ``KnockoutWhistGame(options, seed)`` deals it (``flags``: ``Options.flags()``)."""
    seed_streams(rng, seed, n_seats)
    init_game(cards, ints, deck, rng, n_seats, flags)


# ----- what a seat may read of a position (compiled) -----------------------------------------------------
# An agent playing inside the compiled engine reads the position through these alone; ``own_hand`` and
# ``own_thrown`` are for the deciding seat's own cards (another seat's are hidden from it).
phase = row_field(state.I_PHASE, "The ``Phase``: 0 trump choice, 1 card exchange, 2 play, 3 over.")
trumps = row_field(state.I_TRUMPS, "This hand's trumps: a suit 0..3, ``NO_TRUMPS`` (4), or -1 before the choice.")
turned_card = row_field(state.I_TURNED, "Hand 1's card turned up for trumps (-1 in later hands).")
led_suit = row_field(
    state.I_LED_SUIT, "The suit of the current trick's first card played (-1 before one; a dog's knock leads nothing).")
best_card = row_field(
    state.I_BEST_CARD, "The card winning the current trick so far (-1 before a card is played).")
trick_seats = row_field(
    state.I_TRICK_SEATS, "Bit s set for each seat taking a turn in the current trick (0 outside play).")
trick_action = row_field_at(
    state.I_TRICK_ACTION, "Seat ``seat``'s card or ``KNOCK`` in the current trick (-1 before its turn).")
exchanged = row_field_at(
    state.I_EXCHANGED, "The cards seat ``seat`` exchanged this hand (-1 before its exchange ends).")
option_flags = row_field(state.I_FLAGS, "The game's options as ``Options.flags()``.")


@njit(**config.INLINED_KERNEL)
def card_count(cards: np.ndarray, seat: int) -> int:
    """How many cards seat ``seat`` holds (public)."""
    return popcount(cards[state.C_HAND + seat])


own_hand = row_field_at(state.C_HAND, "The deciding seat's own hand (an agent calls it for its own seat only).")
own_thrown = row_field_at(
    state.C_THROWN, "The cards the deciding seat threw away in this hand's exchange (for its own seat only).")


@njit(**config.STEP_KERNEL)
def seat_view(cards: np.ndarray, ints: np.ndarray, seat: int, hands: np.ndarray, stock: np.ndarray,
              target: Position) -> None:
    """The position ``seat`` (the seat to move) sees, completed by ``hands`` and ``stock``, into ``target``.

    The compiled twin of ``position_rows``, writing the same rows: everything public and the seat's own
    cards are read from ``cards, ints``; every other seat's hand is ``hands[s]``, its thrown-away cards
    unknown (0), the stock ``stock[:stock_left]`` top first; the dealt part of the deck holds the other
    cards ascending (never read), every stream starts from 0 and the CRC of decisions afresh. Nothing
    hidden from ``seat`` is copied, so a search from these rows cannot read it.
    """
    cards2, ints2, deck2, rng2 = target
    n = ints[state.I_N_SEATS]
    for i in range(cards2.shape[0]):
        cards2[i] = 0
    for s in range(n):
        cards2[state.C_HAND + s] = cards[state.C_HAND + seat] if s == seat else hands[s]
    cards2[state.C_THROWN + seat] = cards[state.C_THROWN + seat]
    if ints[state.I_TO_MOVE] == seat:
        cards2[state.C_PICKED] = cards[state.C_PICKED]
    cards2[state.C_PLAYED] = cards[state.C_PLAYED]
    for i in range(ints.shape[0]):
        ints2[i] = ints[i]
    ints2[state.I_CRC] = CRC_START
    start = ints[state.I_STOCK_POS]
    in_stock = np.uint64(0)
    for i in range(52 - start):
        in_stock |= np.uint64(1) << np.uint64(stock[i])
        deck2[start + i] = stock[i]
    k = 0
    for card in range(52):
        if k == start:
            break
        if (in_stock >> np.uint64(card)) & np.uint64(1) == np.uint64(0):
            deck2[k] = card
            k += 1
    seed_streams(rng2, np.uint64(0), n)
