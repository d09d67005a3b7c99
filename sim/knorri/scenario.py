"""Scenario fixtures: Knorri positions written as data, with what the rules say must happen there.

A scenario file (``seeds/scenarios/*.json``, format in ``seeds/scenarios/README.md``)
holds one or more cases. Each case has a ``start`` (a deal, a seed or a phase-2
position), an ``expect`` block checked at the start, and ``steps``: actions
written as text, each with its own ``expect`` block. ``build_hand`` turns a start
into a ``KnorriHand``; ``play_case`` runs the steps and returns every way the
engine disagreed with the data, so a test can simply assert the list is empty.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sim.cards import card_list, card_text, parse_card
from sim.errors import GameInputError, IllegalActionError
from sim.knorri.encoding import NUM_ACTIONS, PICK_UP, TABLE_SIZE, action_text, run_action
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64
from sim.scenario import SCENARIO_ROOT, cards_from, expect_mismatches, filled_deck, load_cases

SCENARIO_DIR = SCENARIO_ROOT  # Knorri's files; the other games' are in folders below it
_CARD_FIELDS = {"card", "took"}
_CARD_LIST_FIELDS = {"cards", "table"}


def parse_action(text: str | int) -> int:
    """The action id of an action written as text: a card (``7C``), ``pick up``, or an opening run ``2C-4C``.

    An int is taken as an id and only range-checked.
    """
    if isinstance(text, int):
        if not 0 <= text < NUM_ACTIONS:
            raise GameInputError(f"action id {text} is out of range: ids are 0 to {NUM_ACTIONS - 1}")
        return text
    cleaned = text.strip().lower()
    if cleaned in ("pick up", "pickup", "pick"):
        return PICK_UP
    if "-" in cleaned:
        low, _, high = cleaned.partition("-")
        if parse_card(low) != 0 or not 0 < parse_card(high) <= 12:
            raise GameInputError(f"{text!r} is not an opening run: write 2C-3C up to 2C-AC")
        return run_action(parse_card(high) + 1)
    return parse_card(cleaned)


def deck_from(start: Mapping[str, Any]) -> list[int]:
    """The 52-card deck of a start: ``deck`` in full, or ``table`` and the first ``stock`` cards.

    With ``table``/``stock`` the cards not named follow at the end of the stock in
    ascending id order, so a scenario only writes the cards its rule is about.
    """
    if "deck" in start:
        return cards_from(start["deck"])
    table = cards_from(start["table"])
    if len(table) != TABLE_SIZE:
        raise GameInputError(f"a scenario table has {TABLE_SIZE} cards, not {len(table)}")
    return filled_deck(table + cards_from(start.get("stock", "")))


def build_hand(start: Mapping[str, Any]) -> KnorriHand:
    """The hand a scenario ``start`` describes.

    - ``hands`` (one card list per seat), ``to_move`` and optionally ``trick`` (a list
      of plays), ``plays_needed``, ``opening``, ``scores``: a phase-2 position.
    - ``seed``: the conformance protocol's hand for that seed.
    - ``deck``, or ``table`` and ``stock``: that deal, with optional ``redeal_decks``
      used in order if nobody captures.
    Phase-1 starts take ``seats`` and ``first_seat`` (default 0). Any start may set the
    cut-off options ``cap`` and ``repeat`` (default: the rules as written).
    """
    rules = {name: start[name] for name in ("cap", "repeat") if name in start}
    if "hands" in start:
        return KnorriHand.from_position(
            [cards_from(cards) for cards in start["hands"]],
            start["to_move"],
            trick=[cards_from(play) for play in start.get("trick", [])],
            plays_needed=start.get("plays_needed"),
            opening=start.get("opening", False),
            scores=start.get("scores"),
            **rules,
        )
    seats, first_seat = start["seats"], start.get("first_seat", 0)
    if "seed" in start:
        return KnorriHand.from_seed(seats, start["seed"], first_seat, **rules)
    redeal = None
    if "redeal_decks" in start:
        decks: Iterator[list[int]] = iter([cards_from(d) for d in start["redeal_decks"]])
        redeal = decks.__next__
    return KnorriHand(seats, deck_from(start), first_seat, redeal=redeal, **rules)


def load_scenario(name: str) -> list[dict[str, Any]]:
    """The cases of ``seeds/scenarios/<name>.json``."""
    return load_cases(SCENARIO_DIR / f"{name}.json")


def play_case(case: Mapping[str, Any]) -> tuple[KnorriHand, list[str]]:
    """Build the case's hand, check ``expect``, take each step and check its ``expect``.

    Returns the hand as the last step left it and every mismatch as a line of
    text (an empty list means the engine did everything the case says).
    """
    hand = build_hand(case["start"])
    failures = [f"at the start: {f}" for f in expectation_mismatches(hand, case.get("expect", {}))]
    for index, step in enumerate(case.get("steps", [])):
        where = f"step {index + 1}"
        if step.get("play_out") == "protocol":
            _play_out_by_protocol(hand, case["start"])
            where += " (played out by the protocol)"
        elif "continue" in step:  # play a cut-off hand on past the cut, under the step's rules
            hand.continue_past_cutoff(**step["continue"])
            where += " (played on past the cut-off)"
        elif "act" in step:
            action = parse_action(step["act"])
            where += f" ({action_text(action)} by seat {hand.to_move})"
            if step.get("refused"):
                failures += [f"{where}: {f}" for f in _refusal_mismatches(hand, action)]
                continue
            hand.apply(action)
        failures += [f"{where}: {f}" for f in expectation_mismatches(hand, step.get("expect", {}))]
    return hand, failures


def expectation_mismatches(hand: KnorriHand, expect: Mapping[str, Any]) -> list[str]:
    """Every way ``hand`` differs from an ``expect`` block (keys are listed in the format README)."""
    return expect_mismatches(observed(hand), expect, hand.log, _event_value, _normalise)


def observed(hand: KnorriHand) -> dict[str, Any]:
    """The facts about a hand that a scenario may expect, in the text form scenarios use."""
    observation = hand.observation(max(hand.to_move, 0))
    return {
        "phase": hand.phase,
        "to_move": hand.to_move,
        "done": hand.done,
        "end_reason": hand.end_reason.value if hand.end_reason else None,
        "loser": hand.loser,
        "cycle_length": hand.cycle_length,
        "cycle_start": hand.cycle_start,
        "cycle_choices": hand.cycle_choices,
        "cycle_log2_paths": hand.cycle_log2_paths,
        "cycle_seats": hand.cycle_seats,
        "phase2_actions": hand.phase2_actions,
        "redeals": hand.redeals,
        "tricks_completed": hand.tricks_completed,
        "opening": hand.opening,
        "legal": [action_text(a) for a in hand.legal_actions()],
        "legal_ids": hand.legal_actions(),
        "turned": card_text(observation.turned) if observation.turned is not None else None,
        "table": _text(card_list(hand.table)),
        "trick": [_text(play) for play in hand.trick],
        "plays_in_trick": len(hand.trick),
        "plays_needed": hand.plays_needed(),
        "hands": [_text(card_list(cards)) for cards in hand.hands],
        "card_counts": hand.card_counts(),
        "scores": list(hand.scores),
        "out": [seat for seat, out in enumerate(observation.out) if out],
        "rules": {"cap": observation.cap, "repeat": observation.repeat},
    }


def _normalise(key: str, got: Any, wanted: Any) -> tuple[Any, Any]:
    """What ``observed`` reports and what was expected, in one form (cards sorted by id, runs as text)."""
    if key == "legal":
        return got, [action_text(parse_action(a)) for a in wanted]
    if key in ("table", "turned") and wanted is not None:
        return got, _text(sorted(cards_from(wanted)))
    if key == "trick":
        return got, [_text(cards_from(play)) for play in wanted]
    if key == "hands":  # a seat written as null is not checked
        got = [None if seat < len(wanted) and wanted[seat] is None else cards for seat, cards in enumerate(got)]
        return got, [None if cards is None else _text(sorted(cards_from(cards))) for cards in wanted]
    return got, wanted


def _text(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def _event_value(key: str, value: Any) -> Any:
    if key in _CARD_FIELDS and isinstance(value, str):
        return parse_card(value)
    if key in _CARD_LIST_FIELDS and isinstance(value, str):
        cards = cards_from(value)
        return sorted(cards) if key == "table" else cards  # the log lists the table by id
    return value


def _refusal_mismatches(hand: KnorriHand, action: int) -> list[str]:
    """An illegal action must raise an error naming the seat, the action and the legal ids, and change nothing."""
    before = snapshot(hand)
    try:
        hand.apply(action)
    except IllegalActionError as error:
        message = str(error)
        failures = [] if snapshot(hand) == before else ["the refused action changed the hand"]
        legal = ", ".join(map(str, hand.legal_actions()))
        if f"seat {hand.to_move}" not in message or str(action) not in message or legal not in message:
            failures.append(f"the error {message!r} does not name the seat, the action and the legal ids")
        return failures
    return [f"action {action} was accepted, but the scenario says it is illegal"]


def snapshot(hand: KnorriHand) -> dict[str, Any]:
    """A deep copy of everything a hand holds, to compare before and after.

    The redeal source is left out: it is the caller's stream (the protocol draws
    its decisions from it too), and it is only read while a deal has no capture.
    """
    return {key: copy.deepcopy(value) for key, value in vars(hand).items() if key != "_redeal_source"}


def _play_out_by_protocol(hand: KnorriHand, start: Mapping[str, Any]) -> None:
    """Take every remaining decision as the conformance protocol does, from the start's seed."""
    if "seed" not in start or hand.decisions:
        raise GameInputError("play_out: protocol needs a start with a seed and no decisions taken yet")
    rng = SplitMix64(start["seed"])
    for _ in range(hand.redeals + 1):
        rng.shuffled_deck()
    while not hand.done:
        hand.apply(rng.choice(hand.legal_actions()))
