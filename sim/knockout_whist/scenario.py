"""Scenario fixtures: Knockout Whist positions written as data, with what the rules say must happen there.

A scenario file (``seeds/scenarios/knockout_whist/*.json``, format in the README
there) holds one or more cases. Each case has a ``start`` (the deal of a hand,
or a seed), an ``expect`` block checked at the start, and ``steps``: actions
written as text, each with its own ``expect`` block. ``build_game`` turns a start
into a ``KnockoutWhistGame``; ``play_case`` runs the steps and returns the game with every
way the engine disagreed with the data, so a test can simply assert the list is empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sim.cards import card_list, parse_card
from sim.errors import GameInputError
from sim.knockout_whist import rules
from sim.knockout_whist.encoding import (
    KNOCK,
    Options,
    Phase,
    Status,
    action_text,
    cards_in_hand,
    parse_action,
    trumps_text,
)
from sim.knockout_whist.reference import KnockoutWhistGame, as_options
from sim.scenario import GameScenarios, cards_from, deck_source, filled_deck


def deal_deck(start: Mapping[str, Any], n_seats: int) -> list[int]:
    """The permutation whose deal gives each seat the cards ``start["hands"]`` names.

    The deal goes round from the dealer's left, a dog taking one card; in hand 1
    ``turned`` comes next, then the named ``stock`` cards, then the rest ascending.
    """
    hand_no = int(start.get("hand", 1))
    status = [_status_name(s) for s in start.get("status", ["in"] * n_seats)]
    in_hand = [seat for seat in range(n_seats) if status[seat] != Status.OUT]
    dogs = [seat for seat in in_hand if status[seat] == Status.DOG]
    order = rules.deal_order(int(start.get("dealer", 0)), n_seats, in_hand)
    hands = [cards_from(cards) for cards in start["hands"]]
    if len(hands) != n_seats:
        raise GameInputError(f"a {n_seats}-seat start lists {n_seats} hands, not {len(hands)}")
    size = cards_in_hand(hand_no)
    queues: dict[int, Iterator[int]] = {}
    for seat in range(n_seats):
        wanted = 0 if seat not in in_hand else 1 if seat in dogs else size
        if len(hands[seat]) != wanted:
            raise GameInputError(f"seat {seat} is dealt {wanted} cards in hand {hand_no}, not {len(hands[seat])}")
        queues[seat] = iter(hands[seat])
    front = []
    for round_no in range(size):
        front += [next(queues[seat]) for seat in order if round_no == 0 or seat not in dogs]
    if hand_no == 1:
        front.append(parse_card(start["turned"]))
    return filled_deck(front + cards_from(start.get("stock", "")))


def _dealt(start: Mapping[str, Any], options: Options) -> KnockoutWhistGame:
    """The game a ``start`` without a seed writes out: a hand's deal (and later decks), status and chooser."""
    later = [filled_deck(cards_from(deck)) for deck in start.get("then", [])]
    source = deck_source([deal_deck(start, options.players), *later])
    status = start.get("status")
    return KnockoutWhistGame.at_hand(
        options, int(start.get("hand", 1)), int(start.get("dealer", 0)), source,
        status=None if status is None else [_status_name(s) for s in status],
        chooser=start.get("chooser"), dogs_life_used=start.get("dogs_life_used"),
    )


def observed(game: KnockoutWhistGame) -> dict[str, Any]:
    """Everything a scenario may expect, as plain data (cards as text)."""
    return {
        "hand_no": game.hand_no,
        "phase": Phase(game.phase).name.lower(),
        "to_move": game.to_move,
        "legal": [action_text(a) for a in game.legal_actions()],
        "dealer": game.dealer,
        "leader": game.leader,
        "chooser": game.chooser,
        "trumps": trumps_text(game.trumps),
        "turned": None if game.turned is None else action_text(game.turned),
        "hands": [card_list(cards) for cards in game.hands],
        "trick": [[seat, action_text(action)] for seat, action in game.trick],
        "trick_seats": list(game.trick_seats),
        "tricks": list(game.tricks),
        "card_counts": game.card_counts(),
        "status": [Status(s).name.lower() for s in game.status],
        "out_hand": list(game.out_hand),
        "dog_hand": list(game.dog_hand),
        "dog_saved": list(game.dog_saved),
        "dogs_life_used": game.dogs_life_used,
        "exchanged": list(game.exchanged),
        "stock_left": game.stock_left,
        "done": game.done,
        "winner": game.winner,
        "end_reason": None if game.end_reason is None else game.end_reason.value,
        "scores": list(game.scores),
        "hands_played": game.hands_played,
        "decisions": len(game.decisions),
    }


def _event_value(key: str, value: Any) -> Any:
    if key == "card" and isinstance(value, str):
        return parse_card(value)
    if key == "cards" and isinstance(value, str):
        return cards_from(value)
    if key == "plays" and isinstance(value, list):
        return [[seat, KNOCK if action == "knock" else parse_action(action)] for seat, action in value]
    return value


def _status_name(value: str | int) -> Status:
    if isinstance(value, int):
        return Status(value)
    return Status[value.upper()]


SCENARIOS = GameScenarios("knockout_whist", as_options,
                          lambda options, source: KnockoutWhistGame(options, deck_source=source), _dealt,
                          observed, parse_action, action_text, _event_value)
"""Knockout Whist's scenario files and how its games are built and checked against them."""
SCENARIO_DIR = SCENARIOS.directory
build_game, load_scenario, play_case = SCENARIOS.engine, SCENARIOS.load, SCENARIOS.play_case
