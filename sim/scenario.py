"""What every game's scenario fixtures share: reading the files, cards written as text, and log patterns.

A scenario file (``seeds/scenarios/<game>/*.json``; Knorri's sit in ``seeds/scenarios/``
itself) holds one case, or a ``cases`` list, under one ``rule``. Each game's
``scenario`` module turns a case's ``start`` into its engine and checks the
``expect`` blocks; this module reads the files and does the parts that do not
depend on the game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.cards import NUM_CARDS, parse_card, parse_cards
from sim.errors import GameInputError

SCENARIO_ROOT = Path(__file__).resolve().parents[1] / "seeds" / "scenarios"
"""Where the scenario files live (Knorri's at the top, each other game's in a folder named after it)."""


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    """The cases of a scenario file: its ``cases`` list, or the file itself as one case.

    Each case carries the file's stem as ``file`` and the file's ``rule`` unless it has its own.
    """
    path = Path(path)
    data = json.loads(path.read_text())
    return [{"rule": data.get("rule", ""), "file": path.stem, **case} for case in data.get("cases", [data])]


def cases_in(directory: Path) -> list[dict[str, Any]]:
    """Every case of every scenario file in ``directory``, file by file in name order."""
    return [case for path in sorted(directory.glob("*.json")) for case in load_cases(path)]


def cards_from(value: str | Sequence[str] | Sequence[int]) -> list[int]:
    """Card ids from ``"2C 3C"``, ``["2C", "3C"]`` or ``[0, 1]``; ``""`` or ``"-"`` is no cards."""
    if isinstance(value, str):
        return [] if value.strip() in ("", "-") else parse_cards(value)
    return [c if isinstance(c, int) else parse_card(c) for c in value]


def filled_deck(front: Sequence[int]) -> list[int]:
    """A permutation that starts with ``front`` and continues with every other card in ascending id order."""
    named = list(front)
    if len(set(named)) != len(named):
        raise GameInputError(f"a deck names a card twice: {named}")
    return named + [c for c in range(NUM_CARDS) if c not in set(named)]


def expect_mismatches(seen: Mapping[str, Any], expect: Mapping[str, Any], log: Sequence[Mapping[str, Any]],
                      event_value: Callable[[str, Any], Any],
                      normalise: Callable[[str, Any, Any], tuple[Any, Any]]) -> list[str]:
    """Every key of an ``expect`` block that differs from what the engine shows (``seen``), one line each.

    ``log`` takes patterns matched in order (``log_mismatches``); every other key must be one of
    ``seen``'s (else a ``GameInputError``: the data is wrong), and ``normalise(key, got, wanted)``
    puts both sides in one form (cards sorted, actions as text) before they are compared.
    """
    failures = []
    for key, wanted in expect.items():
        if key == "log":
            failures += log_mismatches(log, wanted, event_value)
            continue
        if key not in seen:
            raise GameInputError(f"unknown expectation {key!r}: known keys are log, {', '.join(sorted(seen))}")
        got, normalised = normalise(key, seen[key], wanted)
        if got != normalised:
            failures.append(f"{key} is {got!r}, expected {wanted!r}")
    return failures


def log_mismatches(log: Sequence[Mapping[str, Any]], patterns: Sequence[Mapping[str, Any]],
                   event_value: Callable[[str, Any], Any]) -> list[str]:
    """Each pattern must match a later log event than the one before it (other events may come between).

    A pattern matches an event holding every key it names with the value ``event_value(key, written)``
    (the game's way to read cards written as text). Returns one line for the first pattern not found.
    """
    position = 0
    for pattern in patterns:
        wanted = {key: event_value(key, value) for key, value in pattern.items()}
        while position < len(log) and any(log[position].get(k) != v for k, v in wanted.items()):
            position += 1
        if position == len(log):
            return [f"log: no event {dict(pattern)} in order after the ones before it"]
        position += 1
    return []
