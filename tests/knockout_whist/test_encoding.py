"""Knockout Whist's encodings: the 59 action ids and the named options with the rulings' defaults."""

from __future__ import annotations

import pytest

from sim.errors import GameInputError
from sim.knockout_whist.encoding import (
    END_EXCHANGE,
    KNOCK,
    NO_TRUMPS,
    NO_TRUMPS_ACTION,
    NUM_ACTIONS,
    OPTION_NAMES,
    Options,
    action_text,
    cards_in_hand,
    parse_action,
    parse_options,
    trumps_action,
    trumps_of_action,
)


def test_action_space_has_59_ids_cards_knock_trumps_no_trumps_end_exchange():
    assert NUM_ACTIONS == 59
    assert [action_text(a) for a in (0, 12, 13, 51)] == ["2C", "AC", "2D", "AS"]
    assert action_text(KNOCK) == "knock" and KNOCK == 52
    assert [action_text(a) for a in range(53, 57)] == ["trumps C", "trumps D", "trumps H", "trumps S"]
    assert action_text(NO_TRUMPS_ACTION) == "no trumps" and NO_TRUMPS_ACTION == 57
    assert action_text(END_EXCHANGE) == "end exchange" and END_EXCHANGE == 58


def test_every_action_text_reads_back_to_its_id():
    assert [parse_action(action_text(a)) for a in range(NUM_ACTIONS)] == list(range(NUM_ACTIONS))
    assert parse_action("10h") == parse_action("TH") == 34
    assert parse_action(" Trumps  s ") == 56


def test_trump_actions_map_to_suits_and_no_trumps():
    assert [trumps_of_action(trumps_action(s)) for s in range(4)] == [0, 1, 2, 3]
    assert trumps_of_action(NO_TRUMPS_ACTION) == NO_TRUMPS


def test_hands_deal_seven_cards_down_to_one():
    assert [cards_in_hand(h) for h in range(1, 8)] == [7, 6, 5, 4, 3, 2, 1]


def test_option_defaults_are_the_main_rules_four_players_dogs_life_on_variants_off():
    assert Options().to_dict() == {
        "players": 4, "dogs_life": True, "safe_first_hand": False, "winner_deals": False,
        "card_exchange": False, "no_trumps_choice": False, "rainbow": False,
    }
    assert OPTION_NAMES[0] == "players"


def test_options_parse_from_name_value_pairs():
    options = parse_options(["players=7", "dogs_life=false", "rainbow=on"])
    assert (options.players, options.dogs_life, options.rainbow) == (7, False, True)
    assert options.flags() == 1 << 5  # rainbow only: bit i for FLAG_OPTIONS[i]
    assert parse_options({"card_exchange": True}).card_exchange


@pytest.mark.parametrize(("setting", "message"), [
    (["colour=red"], "unknown option 'colour': the options are players, dogs_life"),
    (["rainbow=maybe"], "option rainbow is true or false, not 'maybe'"),
    (["players=8"], "Knockout Whist is for 2 to 7 players, not 8"),
    (["players=two"], "option players is a number of seats 2 to 7, not 'two'"),
    (["rainbow"], "an option is written name=value, not 'rainbow'"),
])
def test_bad_options_are_refused_in_one_line_saying_what_is_allowed(setting, message):
    with pytest.raises(GameInputError, match=message.replace("(", r"\(")) as error:
        parse_options(setting)
    assert "\n" not in str(error.value)
