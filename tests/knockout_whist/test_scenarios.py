"""Every Knockout Whist scenario fixture under seeds/scenarios/knockout_whist/ plays out exactly as its data says."""

from __future__ import annotations

import copy

import pytest
from conftest import assert_scenarios_documented, case_id, checks_something

from sim.errors import GameInputError
from sim.knockout_whist.scenario import SCENARIO_DIR, build_game, play_case
from sim.scenario import cases_in

CASES = cases_in(SCENARIO_DIR)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scenario_plays_out_as_written(case):
    _, failures = play_case(case)
    assert not failures, "\n".join(failures)


def test_every_scenario_checks_something():
    assert [case_id(case) for case in CASES if not checks_something(case)] == []


@pytest.mark.parametrize(("key", "wrong"), [
    ("to_move", 3),
    ("legal", ["KD"]),
    ("dealer", 2),
    ("hands", ["", None, None, None]),
    ("trick", [[0, "knock"]]),
    ("log", [{"kind": "end_hand", "hand": 4, "out": [2]}]),
])
def test_the_checker_reports_a_wrong_expectation(key, wrong):
    case = copy.deepcopy(next(c for c in CASES if c["file"] == "dogs_life" and c["case"].startswith("two dogs")))
    case["steps"][-1]["expect"] = {key: wrong}
    _, failures = play_case(case)
    assert len(failures) == 1 and key in failures[0]


def test_the_checker_reports_an_accepted_action_the_scenario_calls_illegal():
    case = copy.deepcopy(next(c for c in CASES if c["file"] == "follow_suit"))
    case["steps"] = [{"act": "AS", "refused": True}]
    _, failures = play_case(case)
    assert failures == ["step 0 (AS): AS was accepted but must be refused"]


@pytest.mark.parametrize(("start", "message"), [
    ({"hand": 1, "turned": "2H", "hands": ["2C", "3C", "4C", "5C"]}, "seat 0 is dealt 7 cards in hand 1, not 1"),
    ({"hand": 3, "dealer": 0, "hands": ["", "2C 3C 4C 5C 6C", "", ""], "status": ["out", "in", "out", "out"],
      "chooser": 1}, "at least two seats not knocked out"),
    ({"hand": 3, "dealer": 0, "chooser": 2, "status": ["in", "in", "out", "in"],
      "hands": ["2C 3C 4C 5C 6C", "7C 8C 9C TC JC", "", "2D 3D 4D 5D 6D"]}, "the chooser must be a seat still in"),
    ({"hand": 1, "turned": "2S", "status": ["dog", "in", "in", "in"],
      "hands": ["2C", "3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D", "2H 3H 4H 5H 6H 7H 8H"]},
     "a dog plays a hand after hand 1"),
])
def test_a_start_the_rules_could_not_reach_is_refused_in_one_line(start, message):
    with pytest.raises(GameInputError, match=message) as error:
        build_game(start)
    assert "\n" not in str(error.value)


def test_the_rules_page_and_the_format_readme_name_every_scenario():
    assert_scenarios_documented(SCENARIO_DIR, SCENARIO_DIR.parents[1] / "knockout_whist.md")
