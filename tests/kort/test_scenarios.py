"""Every Kort scenario fixture under seeds/scenarios/kort/ plays out exactly as its data says."""

from __future__ import annotations

import copy

import pytest
from conftest import assert_scenarios_documented, case_id, checks_something

from sim.errors import GameInputError
from sim.kort.rules import deal_hands
from sim.kort.scenario import SCENARIO_DIR, build_match, deal_deck, play_case
from sim.scenario import cards_from, cases_in

CASES = cases_in(SCENARIO_DIR)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scenario_plays_out_as_written(case):
    _, failures = play_case(case)
    assert not failures, "\n".join(failures)


def test_every_scenario_checks_something():
    assert [case_id(case) for case in CASES if not checks_something(case)] == []


def sar_case() -> dict:
    return copy.deepcopy(next(c for c in CASES if c["file"] == "sar" and c["case"].startswith("two trumps")))


@pytest.mark.parametrize(("key", "wrong"), [
    ("to_move", 3),
    ("legal", ["KD"]),
    ("lead_states", ["sar", "free"]),
    ("hands", ["", None, None, None]),
    ("last_round", {"result": "kort"}),
    ("log", [{"kind": "declare", "declaration": "trop"}]),
])
def test_the_checker_reports_a_wrong_expectation(key, wrong):
    case = sar_case()
    case["steps"][-1]["expect"] = {key: wrong}
    _, failures = play_case(case)
    assert len(failures) == 1 and key in failures[0]


def test_the_checker_reports_an_accepted_action_the_scenario_calls_illegal():
    case = sar_case()
    case["steps"] = [{"act": "trump S"}, {"act": "2S"}, {"act": "4S", "refused": True}]
    _, failures = play_case(case)
    assert failures == ["step 2 (4S): 4S was accepted but must be refused"]


def test_a_deal_written_as_hands_gives_each_seat_those_cards_in_that_order():
    hands = sar_case()["start"]["hands"]
    for holder in range(4):
        deck = deal_deck(hands, holder)
        assert deck[:5] == cards_from(hands[holder])[:5]  # the holder's first five
        assert deck[39] == cards_from(hands[holder])[12]  # its 13th card
        assert deal_hands(deck, holder) == [sum(1 << c for c in cards_from(h)) for h in hands]


@pytest.mark.parametrize(("start", "message"), [
    ({"hands": ["2C 3C", "", "", ""]}, "seat 0 is dealt 13 cards, not 2"),
    ({"hands": ["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"] * 4}, "must hold every card once"),
    ({"deck": "2C 2C"}, "a deck names a card twice"),
    ({"holder": 4, "deck": ""}, "the holder is a seat 0 to 3, not 4"),
    ({"wins": [7, 0], "deck": ""}, "each 0 to 6"),
    ({"options": {"target_wins": 0}, "deck": ""}, "option target_wins is a number of wins"),
])
def test_a_start_the_rules_could_not_reach_is_refused_in_one_line(start, message):
    with pytest.raises(GameInputError, match=message) as error:
        build_match(start)
    assert "\n" not in str(error.value)


def test_the_rules_page_and_the_format_readme_name_every_scenario():
    assert_scenarios_documented(SCENARIO_DIR, SCENARIO_DIR.parents[1] / "kort.md")


def test_an_unknown_expectation_is_a_data_error():
    case = sar_case()
    case["expect"] = {"dealer": 0}
    with pytest.raises(GameInputError, match="unknown expectation 'dealer'"):
        play_case(case)
