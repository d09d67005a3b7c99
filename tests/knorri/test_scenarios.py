"""Every scenario fixture under seeds/scenarios/ plays out exactly as its data says."""

from __future__ import annotations

import copy

import pytest
from conftest import assert_scenarios_documented, case_id, checks_something

from sim.knorri.scenario import SCENARIO_DIR, play_case
from sim.scenario import cases_in

CASES = cases_in(SCENARIO_DIR)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scenario_plays_out_as_written(case):
    _, failures = play_case(case)
    assert not failures, "\n".join(failures)


def test_every_scenario_checks_something():
    assert [case_id(case) for case in CASES if not checks_something(case)] == []


@pytest.mark.parametrize("key, wrong", [
    ("to_move", 3),
    ("legal", ["9D"]),
    ("trick", ["KH", "AH"]),
    ("plays_needed", 3),
    ("scores", [0, 3, 0, 1]),
    ("hands", ["5D 3C", "", "8H KH 2S 9D", "4S"]),
    ("log", [{"kind": "pickup", "seat": 0}]),
])
def test_the_checker_reports_a_wrong_expectation(key, wrong):
    case = copy.deepcopy(next(c for c in CASES if c["file"] == "pagat_going_out_does_not_shorten_trick"))
    case["steps"][4]["expect"] = {key: wrong}
    _, failures = play_case(case)
    assert len(failures) == 1 and key in failures[0]


def test_the_checker_reports_an_accepted_action_the_scenario_calls_illegal():
    case = copy.deepcopy(next(c for c in CASES if c["file"] == "pagat_going_out_does_not_shorten_trick"))
    case["steps"] = [{"act": "8H", "refused": True}]
    _, failures = play_case(case)
    assert failures == ["step 1 (8H by seat 0): action 32 was accepted, but the scenario says it is illegal"]


def test_the_rules_page_and_the_format_readme_name_every_scenario():
    assert_scenarios_documented(SCENARIO_DIR, SCENARIO_DIR.parent / "knorri.md")
