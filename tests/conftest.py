"""Shared test helpers: where the data lives, scenario fixtures, and protocol play for property tests."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from sim.cards import FULL_DECK

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


# ----- scenario fixtures ---------------------------------------------------------------------------------
def case_id(case: dict) -> str:
    """A scenario case's test id: its file, then its own name in brackets when it has one."""
    return case["file"] + (f"[{case['case']}]" if "case" in case else "")


def checks_something(case: dict) -> bool:
    """Whether a case expects anything, at the start or after a step (a refusal counts)."""
    checks = [case.get("expect")] + [step.get("expect") or step.get("refused") for step in case.get("steps", [])]
    return any(checks)


def assert_scenarios_documented(scenario_dir: Path, rules_page: Path) -> None:
    """The folder's format README lists exactly its scenario files, and the game's rules page names each."""
    files = {path.stem for path in scenario_dir.glob("*.json")}
    files_table = (scenario_dir / "README.md").read_text().split("## The files")[1]
    assert set(re.findall(r"^\| `([a-z0-9_]+)` \|", files_table, flags=re.M)) == files
    assert files <= set(re.findall(r"`([a-z0-9_]+)`", rules_page.read_text()))


# ----- protocol play -------------------------------------------------------------------------------------
def protocol_decisions(game: Any, rng: Any, every: int = 1) -> Iterator[Any]:
    """Yield a reference game (or hand) at every ``every``-th decision, the first included; the protocol takes each."""
    index = 0
    while not game.done:
        if index % every == 0:
            yield game
        index += 1
        game.apply(rng.choice(game.legal_actions()))


def play_out_by_protocol(game: Any, rng: Any) -> Any:
    """Take every remaining decision of a reference game (or hand) as the protocol does; return it."""
    for _ in protocol_decisions(game, rng):
        pass
    return game


def assert_each_card_once(places: Iterable[int]) -> None:
    """The card sets hold all 52 cards between them, none twice."""
    sets = list(places)
    assert sum(cards.bit_count() for cards in sets) == 52, [cards.bit_count() for cards in sets]
    union = 0
    for cards in sets:
        union |= cards
    assert union == FULL_DECK
