"""What every game's scenario fixtures share: reading the files, cards written as text, and log patterns.

A scenario file (``seeds/scenarios/<game>/*.json``; Knorri's sit in ``seeds/scenarios/``
itself) holds one case, or a ``cases`` list, under one ``rule``. Each game's
``scenario`` module turns a case's ``start`` into its engine and checks the
``expect`` blocks; this module reads the files and does the parts that do not
depend on the game.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.cards import NUM_CARDS, parse_card, parse_cards
from sim.errors import GameInputError, IllegalActionError
from sim.rng import SplitMix64

SCENARIO_ROOT = Path(__file__).resolve().parents[1] / "seeds" / "scenarios"
"""Where the scenario files live (Knorri's at the top, each other game's in a folder named after it)."""
FILLER_SEED = 0
"""Decks a scenario does not write come from the splitmix64 stream started here."""


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


def deck_source(decks: Sequence[list[int]], filler_seed: int = FILLER_SEED) -> Callable[[], list[int]]:
    """A source giving ``decks`` in order, then permutations from the filler stream."""
    queue = [list(deck) for deck in decks]
    filler = SplitMix64(filler_seed)

    def draw() -> list[int]:
        return queue.pop(0) if queue else filler.shuffled_deck()

    return draw


def seeded_or_built(start: Mapping[str, Any], from_seed: Callable[[Callable[[], list[int]]], Any],
                    build: Callable[[], Any]) -> tuple[Any, SplitMix64]:
    """The engine a scenario's ``start`` describes and the stream its protocol decisions come from.

    With a ``seed`` the engine is dealt by a splitmix64 stream started there
    (``from_seed(deck_source)``), which then makes the decisions too; otherwise it is
    ``build()``, a deal written out, and the decisions come from ``protocol_seed`` (default 0).
    """
    if "seed" in start:
        rng = SplitMix64(int(start["seed"]))
        return from_seed(rng.shuffled_deck), rng
    return build(), SplitMix64(int(start.get("protocol_seed", 0)))


def normalise_hands_and_legal(key: str, got: Any, wanted: Any, parse_action: Callable[[Any], int],
                              action_text: Callable[[int], str]) -> tuple[Any, Any]:
    """What an engine reports and what a scenario expects, in one form: hands as cards sorted by id (a seat
    written as null is not checked), legal actions as their text; any other key as it is."""
    if key == "hands":
        return ([None if w is None else sorted(h) for h, w in zip(got, wanted, strict=True)],
                [None if w is None else sorted(cards_from(w)) for w in wanted])
    if key == "legal":
        return got, [action_text(parse_action(a)) for a in wanted]
    return got, wanted


def play_steps(engine: Any, rng: SplitMix64, case: Mapping[str, Any], parse_action: Callable[[Any], int],
               action_text: Callable[[int], str], check_expect: Callable[[Any, Mapping[str, Any]], list[str]],
               noun: str = "game") -> list[str]:
    """Run a case's ``steps`` on a built engine (one with ``apply``, ``legal_actions`` and ``done``); return every
    disagreement with the case's ``expect`` blocks, the start's first.

    A step is ``act``, ``acts``, ``lowest`` (that many lowest legal actions) or ``play_out: protocol`` (uniform
    choices from ``rng``); a ``refused`` step must be turned down in one line naming seat and action, changing
    nothing. A step the engine rejects ends the case with that error as its last line.
    """
    problems = [f"at the start: {p}" for p in check_expect(engine, case.get("expect", {}))]
    for index, step in enumerate(case.get("steps", [])):
        where = f"step {index} ({_step_title(step)})"
        if step.get("refused"):
            refusal = _check_refused(engine, parse_action(step["act"]), action_text, noun)
            problems += [f"{where}: {p}" for p in refusal]
            continue
        try:
            _run_step(engine, step, rng, parse_action)
        except (GameInputError, ValueError) as error:
            return problems + [f"{where}: {error}"]
        problems += [f"{where}: {p}" for p in check_expect(engine, step.get("expect", {}))]
    return problems


def _run_step(engine: Any, step: Mapping[str, Any], rng: SplitMix64, parse_action: Callable[[Any], int]) -> None:
    if "act" in step:
        engine.apply(parse_action(step["act"]))
    elif "acts" in step:
        for action in step["acts"]:
            engine.apply(parse_action(action))
    elif "lowest" in step:
        for _ in range(int(step["lowest"])):
            engine.apply(engine.legal_actions()[0])
    elif step.get("play_out") == "protocol":
        while not engine.done:
            engine.apply(rng.choice(engine.legal_actions()))
    else:
        raise GameInputError(f"a step has act, acts, lowest or play_out: protocol, not {dict(step)}")


def _step_title(step: Mapping[str, Any]) -> str:
    if "act" in step:
        return str(step["act"])
    if "acts" in step:
        return ", ".join(map(str, step["acts"]))
    if "lowest" in step:
        return f"{step['lowest']} lowest legal actions"
    return f"play out {step.get('play_out')}"


def _check_refused(engine: Any, action: int, action_text: Callable[[int], str], noun: str) -> list[str]:
    before = copy.deepcopy(engine.__dict__)
    try:
        engine.apply(action)
    except GameInputError as error:
        text = str(error)
        if isinstance(error, IllegalActionError) and (str(action) not in text or f"seat {error.seat}" not in text):
            return [f"the refusal does not name the seat and action: {text}"]
        if "\n" in text:
            return [f"the refusal is not one line: {text!r}"]
        return [] if engine.__dict__ == before else [f"a refused action changed the {noun}"]
    return [f"{action_text(action)} was accepted but must be refused"]


@dataclass(frozen=True)
class GameScenarios:
    """One game's scenario files worked through its engine: where they sit, how a ``start`` becomes the engine,
    what the engine shows and how a case's steps and expectations are checked (the same for every game but
    Knorri, whose hand predates this).

    ``new_engine(options, deck_source)`` deals from a seed's stream; ``dealt(start, options)`` builds a written
    deal; ``observed(engine)`` is every key an ``expect`` block may name; ``event_value(key, value)`` reads a log
    pattern's value; ``normalise`` (``normalise_hands_and_legal`` unless given) puts got and wanted in one form.
    """

    folder: str
    as_options: Callable[[Any], Any]
    new_engine: Callable[[Any, Callable[[], list[int]]], Any]
    dealt: Callable[[Mapping[str, Any], Any], Any]
    observed: Callable[[Any], dict[str, Any]]
    parse_action: Callable[[Any], int]
    action_text: Callable[[int], str]
    event_value: Callable[[str, Any], Any]
    normalise: Callable[[str, Any, Any], tuple[Any, Any]] | None = None
    noun: str = "game"

    @property
    def directory(self) -> Path:
        """The folder of the game's scenario files."""
        return SCENARIO_ROOT / self.folder

    def load(self, name: str) -> list[dict[str, Any]]:
        """The cases of the game's scenario file ``<name>.json``."""
        return load_cases(self.directory / f"{name}.json")

    def build(self, start: Mapping[str, Any]) -> tuple[Any, SplitMix64]:
        """The engine a ``start`` describes (a written deal, or a seed) and the stream its protocol decisions
        come from (for a seed, the stream that deals too)."""
        options = self.as_options(start.get("options"))
        return seeded_or_built(start, lambda source: self.new_engine(options, source),
                               lambda: self.dealt(start, options))

    def engine(self, start: Mapping[str, Any]) -> Any:
        """The engine a scenario's ``start`` describes: a written deal, or a seed."""
        return self.build(start)[0]

    def play_case(self, case: Mapping[str, Any]) -> tuple[Any, list[str]]:
        """Build the case's engine, run its steps; return the engine and every disagreement with the expectations."""
        engine, rng = self.build(case["start"])
        return engine, play_steps(engine, rng, case, self.parse_action, self.action_text, self.check_expect,
                                  noun=self.noun)

    def check_expect(self, engine: Any, expect: Mapping[str, Any]) -> list[str]:
        """Every key of ``expect`` the engine does not match, as readable lines (an unknown key is a data error)."""
        return expect_mismatches(self.observed(engine), expect, engine.log, self.event_value, self._normalise)

    def _normalise(self, key: str, got: Any, wanted: Any) -> tuple[Any, Any]:
        if self.normalise is not None:
            return self.normalise(key, got, wanted)
        return normalise_hands_and_legal(key, got, wanted, self.parse_action, self.action_text)
