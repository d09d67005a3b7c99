"""Scenario fixtures: Kort positions written as data, with what the rules say must happen there.

A scenario file (``seeds/scenarios/kort/*.json``, format in the README there)
holds one or more cases. Each case has a ``start`` (a round's deal, or a seed),
an ``expect`` block checked at the start, and ``steps``: actions written as
text, each with its own ``expect`` block. ``build_match`` turns a start into a
``KortMatch``; ``play_case`` runs the steps and returns the match with every
way the engine disagreed with the data, so a test can simply assert the list is empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import NUM_CARDS, card_list, parse_card
from sim.errors import GameInputError
from sim.kort import rules
from sim.kort.encoding import CARDS_EACH, NUM_SEATS, Options, Phase, action_text, parse_action, suit_text
from sim.kort.reference import KortMatch, as_options
from sim.scenario import GameScenarios, cards_from, deck_source, filled_deck, normalise_hands_and_legal


def deal_deck(hands: Sequence[Any], holder: int) -> list[int]:
    """The permutation whose staged deal gives each seat the cards ``hands`` names, in the order it receives
    them: the holder's first five are the cards it chooses trumps from, its 13th the card "13" turns."""
    if len(hands) != NUM_SEATS:
        raise GameInputError(f"a deal lists {NUM_SEATS} hands, not {len(hands)}")
    deck = [-1] * NUM_CARDS
    for seat, positions in enumerate(rules.deal_positions(holder)):
        cards = cards_from(hands[seat])
        if len(cards) != CARDS_EACH:
            raise GameInputError(f"seat {seat} is dealt {CARDS_EACH} cards, not {len(cards)}")
        for position, card in zip(positions, cards, strict=True):
            deck[position] = card
    if sorted(deck) != list(range(NUM_CARDS)):
        raise GameInputError("a deal's four hands must hold every card once")
    return deck


def deck_of(entry: str | Mapping[str, Any], holder: int) -> list[int]:
    """A deck written as its first cards (the rest ascending), or as ``{"hands": [...], "holder": h}``."""
    if isinstance(entry, Mapping):
        return deal_deck(entry["hands"], int(entry.get("holder", holder)))
    return filled_deck(cards_from(entry))


def _dealt(start: Mapping[str, Any], options: Options) -> KortMatch:
    """The match a ``start`` without a seed writes out: a round's deal (and later decks), holder and wins."""
    holder = int(start.get("holder", options.first_holder))
    first = deal_deck(start["hands"], holder) if "hands" in start else filled_deck(cards_from(start.get("deck", "")))
    later = [deck_of(entry, holder) for entry in start.get("then", [])]
    return KortMatch.at_round(options, holder, deck_source([first, *later]), wins=list(start.get("wins", (0, 0))),
                              round_no=int(start.get("round", 0)))


def observed(match: KortMatch) -> dict[str, Any]:
    """Everything a scenario may expect, as plain data (cards and suits as text)."""
    return {
        "round_no": match.round_no,
        "deal_no": match.deal_no,
        "holder": match.holder,
        "phase": Phase(match.phase).word,
        "to_move": match.to_move,
        "legal": [action_text(a) for a in match.legal_actions()],
        "trump": suit_text(match.trump),
        "thirteenth": None if match.thirteenth is None else action_text(match.thirteenth),
        "hands": [card_list(cards) for cards in match.hands],
        "leader": match.leader,
        "trick_no": match.trick_no,
        "trick": [[seat, action_text(card)] for seat, card in match.trick],
        "tricks": list(match.tricks),
        "lead_states": [state.text for state in match.lead_states],
        "bavan_team": match.bavan_team,
        "wins": list(match.wins),
        "done": match.done,
        "winner_team": match.winner_team,
        "scores": list(match.scores),
        "rounds_played": match.rounds_played,
        "redeals": match.redeals,
        "decisions": len(match.decisions),
        "declarations": [d["declaration"] for d in match.declarations],
        "last_round": dict(match.rounds[-1], trump=suit_text(match.rounds[-1]["trump"])) if match.rounds else None,
    }


def _normalise(key: str, got: Any, wanted: Any) -> tuple[Any, Any]:
    """What ``observed`` reports and what was expected, in one form (cards sorted by id, actions as text,
    a round record cut to the keys written)."""
    if key == "last_round" and got is not None and wanted is not None:
        return {k: got.get(k) for k in wanted}, wanted
    return normalise_hands_and_legal(key, got, wanted, parse_action, action_text)


def _event_value(key: str, value: Any) -> Any:
    if key == "card" and isinstance(value, str):
        return parse_card(value)
    if key == "cards" and isinstance(value, str):
        return sorted(cards_from(value))
    if key == "plays" and isinstance(value, list):
        return [[seat, parse_card(card) if isinstance(card, str) else card] for seat, card in value]
    return value


SCENARIOS = GameScenarios("kort", as_options, lambda options, source: KortMatch(options, deck_source=source), _dealt,
                          observed, parse_action, action_text, _event_value, _normalise, noun="match")
"""Kort's scenario files and how its matches are built and checked against them."""
SCENARIO_DIR = SCENARIOS.directory
build_match, load_scenario, play_case = SCENARIOS.engine, SCENARIOS.load, SCENARIOS.play_case
