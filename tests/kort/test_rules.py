"""Kort's rules and rulings, one test per ruling section (and per case of the lead-state table), named after it.

The pure functions of ``sim/kort/rules.py`` are checked directly; the rules
that need a match in progress load scenario fixtures from
``seeds/scenarios/kort/`` (format in its README).
"""

from __future__ import annotations

import pytest

from sim.cards import parse_card, parse_cards, to_set
from sim.errors import GameInputError
from sim.kort import rules
from sim.kort.encoding import (
    FREE,
    NUM_ACTIONS,
    RESULT_WINS,
    SAR,
    TROP,
    TROP_TO_END,
    LeadKind,
    LeadState,
    Options,
    Phase,
    Result,
    TrumpLead,
    action_text,
    parse_action,
    parse_options,
    trop_state,
)
from sim.kort.reference import KortMatch
from sim.kort.scenario import build_match, load_scenario, play_case

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SAR_STATE = LeadState(LeadKind.SAR)
SAR_NEXT = LeadState(LeadKind.SAR_NEXT)
TROP_DONE = LeadState(LeadKind.TROP_DONE)


def cards(text: str) -> int:
    return to_set(parse_cards(text))


def plays(*pairs: tuple[int, str]) -> list[tuple[int, int]]:
    return [(seat, parse_card(text)) for seat, text in pairs]


def played(name: str, case_starts: str = "") -> KortMatch:
    """The match of a scenario after all its steps, which must all have matched."""
    case = next(c for c in load_scenario(name) if c.get("case", "").startswith(case_starts))
    match, failures = play_case(case)
    assert not failures, "\n".join(failures)
    return match


# ----- options, cards, seats -----------------------------------------------------------------------


def test_options_default_to_a_match_to_7_wins_with_seat_0_holding_first():
    assert Options() == parse_options([]) == Options(target_wins=7, first_holder=0)
    assert parse_options(["target_wins=3"]).target_wins == 3


def test_cards_are_knorris_ids_and_face_cards_are_jack_queen_king_not_ace():
    assert parse_cards("2C AC 2D AS") == [0, 12, 13, 51]
    assert rules.FACE_CARDS == cards("JC QC KC JD QD KD JH QH KH JS QS KS")


def test_seats_turn_counterclockwise_and_partners_sit_opposite():
    assert [rules.next_seat(s) for s in range(4)] == [1, 2, 3, 0]
    assert [rules.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [rules.partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert rules.turn_order(3) == [3, 0, 1, 2]


# ----- the trump holder ----------------------------------------------------------------------------------


def test_the_holder_keeps_the_trump_while_its_team_gets_the_wins_else_the_next_seat_holds():
    assert rules.next_holder(holder=1, winning_team=1) == 1
    assert rules.next_holder(holder=1, winning_team=0) == 2
    assert rules.next_holder(holder=3, winning_team=0) == 0
    match = played("match_end", "seed 0")
    assert [r["holder"] for r in match.rounds] == [0, 1, 1, 2]


def test_the_trump_follows_the_wins_also_after_trop_failed_and_a_failed_bavan():
    assert played("trop_to_end", "an opponent takes").holder == 1  # TROP FAILED: the opponents' win moves it
    assert played("bavan", "both yes after a Trop").holder == 0  # Bavan failed: the Bavan team's win keeps it


# ----- the deal -------------------------------------------------------------------------------------------


def test_a_deal_gives_the_holder_five_then_five_to_each_other_seat_then_two_passes_of_four_from_the_holder():
    positions = rules.deal_positions(holder=2)
    assert positions[2] == [0, 1, 2, 3, 4, 20, 21, 22, 23, 36, 37, 38, 39]
    assert positions[3] == [5, 6, 7, 8, 9, 24, 25, 26, 27, 40, 41, 42, 43]
    assert positions[0] == [10, 11, 12, 13, 14, 28, 29, 30, 31, 44, 45, 46, 47]
    assert positions[1] == [15, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51]
    played("deal_from_permutation", "the identity")
    played("deal_from_permutation", "a real permutation")


def test_the_holders_13th_card_is_deck_39():
    deck = list(range(52))
    assert rules.holders_thirteenth_card(deck) == 39
    assert rules.trump_of_choice(56, deck) == SPADES  # 39 is 2S
    assert [rules.trump_of_choice(a, deck) for a in (52, 53, 54, 55)] == [CLUBS, DIAMONDS, HEARTS, SPADES]


def test_trumps_any_suit_even_one_not_held_or_13_shown_to_everyone():
    assert played("trump_choice", "five clubs").trump == HEARTS
    match = played("trump_choice", "\"13\" when the first five")
    assert (match.trump, match.thirteenth) == (HEARTS, parse_card("9H"))
    assert match.observation(1).thirteenth == parse_card("9H") and match.observation(1).trump_13


# ----- actions and decisions -----------------------------------------------------------------------------------


def test_one_action_space_of_63_ids_for_every_decision():
    assert NUM_ACTIONS == 63
    names = [action_text(a) for a in range(NUM_ACTIONS)]
    assert names[:2] == ["2C", "3C"] and names[51] == "AS"
    assert names[52:] == ["trump C", "trump D", "trump H", "trump S", "trump 13", "sar", "trop", "trop to the end",
                          "redeal", "bavan yes", "bavan no"]
    assert [parse_action(name) for name in names] == list(range(NUM_ACTIONS))


def test_every_decision_goes_to_its_seat_even_with_one_legal_action_but_an_automatic_sar_is_none():
    match = build_match(next(c for c in load_scenario("sar") if c["case"].startswith("two trumps"))["start"])
    match.apply(parse_action("trump S"))
    match.apply(parse_action("2S"))  # Sar automatically: no decision
    assert match.decisions == [55, parse_card("2S")]
    assert (match.to_move, match.phase, match.legal_actions()) == (1, Phase.FOLLOW, [parse_card("4S")])


# ----- redeal -----------------------------------------------------------------------------------------------


def test_redeal_only_without_jack_queen_or_king_and_aces_do_not_count():
    assert rules.redeal_allowed(cards("AS TS 9S 8S 7S AH TH 9H 8H AD TD 9D 8D"))
    assert not rules.redeal_allowed(cards("AS TS 9S 8S JS AH TH 9H 8H AD TD 9D 8D"))
    assert not rules.redeal_allowed(cards("AS TS 9S 8S 7S"))  # all 13 cards held


def test_redeal_shows_the_hand_keeps_holder_round_and_wins_and_has_no_limit():
    match = played("redeal", "aces but no face card")
    assert match.rounds[0]["redeals"] == 1 and match.redeals >= 1
    assert played("redeal", "no limit").redeals == 2
    played("redeal", "one jack")
    played("redeal", "only at the first lead")


# ----- tricks ------------------------------------------------------------------------------------------------


def test_follow_suit_if_you_can_else_any_card_without_having_to_trump():
    hand = cards("2C 9C KH AS")
    assert rules.follow_cards(hand, CLUBS) == cards("2C 9C")
    assert rules.follow_cards(hand, DIAMONDS) == hand


def test_the_highest_trump_wins_else_the_highest_of_the_suit_led_and_a_third_suit_never():
    # The text's example: hearts trumps, KS led, 9S, 5H (a trump), AS: the five of hearts takes it.
    assert rules.trick_winner(plays((0, "KS"), (1, "9S"), (2, "5H"), (3, "AS")), HEARTS) == 2
    assert rules.trick_winner(plays((0, "5D"), (1, "AC"), (2, "9D"), (3, "KS")), HEARTS) == 2
    played("tricks")


# ----- leading a trump: the cases, in the rulings' order --------------------------------------------------


def test_case_1_an_all_trump_hand_declares_nothing_ends_sar_next_and_keeps_trop_done():
    hand = cards("2S 5S 9S")
    assert rules.classify_trump_lead(hand, SPADES, team_tricks=6, plays_bavan=False) == TrumpLead.ALL_TRUMPS
    led = parse_card("2S")
    assert rules.state_after_lead(SAR_NEXT, led, SPADES, TrumpLead.ALL_TRUMPS) == FREE
    assert rules.state_after_lead(TROP_DONE, led, SPADES, TrumpLead.ALL_TRUMPS) == TROP_DONE
    assert rules.state_after_lead(FREE, led, SPADES, TrumpLead.ALL_TRUMPS) == FREE
    played("sar", "the partner bound by sar_next")
    played("trop", "after a completed Trop")


def test_case_2_fewer_than_3_trumps_is_a_sar_automatically():
    assert rules.classify_trump_lead(cards("2S 3S AH"), SPADES, 0, False) == TrumpLead.SAR_FEWER_THAN_3
    assert rules.state_after_lead(FREE, parse_card("2S"), SPADES, TrumpLead.SAR_FEWER_THAN_3) == SAR_STATE
    played("sar", "two trumps")


def test_case_3_a_team_with_5_tricks_may_only_sar_unless_it_plays_bavan():
    hand = cards("2S 3S 4S AH")
    assert rules.classify_trump_lead(hand, SPADES, 5, plays_bavan=False) == TrumpLead.SAR_5_TRICKS
    assert rules.classify_trump_lead(hand, SPADES, 4, plays_bavan=False) == TrumpLead.CHOOSE
    assert rules.classify_trump_lead(hand, SPADES, 8, plays_bavan=True) == TrumpLead.CHOOSE
    played("trop", "a team with 5 tricks")
    played("bavan", "both yes and all 13")


def test_case_4_the_leader_chooses_sar_or_trop_and_trop_to_the_end_at_the_first_lead_from_7_trumps():
    seven = cards("AS KS QS JS TS 9S 8S AH")
    assert rules.declaration_choices(seven, SPADES, first_lead=True) == [SAR, TROP, TROP_TO_END]
    assert rules.declaration_choices(seven, SPADES, first_lead=False) == [SAR, TROP]
    assert rules.declaration_choices(cards("AS KS QS JS TS 9S AH"), SPADES, first_lead=True) == [SAR, TROP]
    played("sar", "four trumps")
    played("trop_to_end", "six trumps")
    played("trop_to_end", "eight trumps but")


def test_the_cases_are_checked_in_the_rulings_order():
    # All trumps beats fewer than 3; fewer than 3 beats the 5-trick rule.
    assert rules.classify_trump_lead(cards("2S 3S"), SPADES, 6, False) == TrumpLead.ALL_TRUMPS
    assert rules.classify_trump_lead(cards("2S AH"), SPADES, 6, False) == TrumpLead.SAR_FEWER_THAN_3


def test_a_trump_lead_in_a_trop_is_no_fresh_lead_it_counts_one_more():
    state = trop_state(1, 3)
    assert not rules.is_fresh_trump_lead(parse_card("5S"), SPADES, state)
    assert rules.state_after_lead(state, parse_card("5S"), SPADES, None) == trop_state(2, 3)


# ----- the state changes at a trick's end ----------------------------------------------------------------


def test_sar_passes_to_whoever_of_the_team_takes_the_trick_and_lifts_if_the_opponents_do():
    assert rules.state_after_trick(SAR_STATE, True, cards("AH"), SPADES) == (SAR_NEXT, False)
    assert rules.state_after_trick(SAR_STATE, False, cards("AH"), SPADES) == (FREE, False)
    played("sar", "the opponents take")


def test_sar_next_forbids_a_trump_lead_once_and_ends_at_the_teams_next_lead():
    assert rules.lead_cards(cards("2S AH"), SPADES, SAR_NEXT) == cards("AH")
    assert rules.lead_cards(cards("2S 3S"), SPADES, SAR_NEXT) == cards("2S 3S")  # only trumps
    assert rules.state_after_lead(SAR_NEXT, parse_card("AH"), SPADES, None) == FREE


def test_trop_goes_on_while_the_team_takes_tricks_and_its_taker_holds_a_trump():
    assert rules.state_after_trick(trop_state(1, 3), True, cards("2S AH"), SPADES) == (trop_state(1, 3), False)
    assert rules.lead_cards(cards("2S AH"), SPADES, trop_state(1, 3)) == cards("2S")
    played("trop", "three trump leads")


def test_trop_is_lifted_when_the_opponents_take_a_trick_or_the_taker_has_no_trump():
    assert rules.state_after_trick(trop_state(2, 3), False, cards("2S"), SPADES) == (FREE, False)
    assert rules.state_after_trick(trop_state(1, 3), True, cards("AH"), SPADES) == (FREE, False)
    played("trop", "an opponent takes")
    played("trop", "the partner takes the Trop trick")


def test_a_completed_trop_bars_trump_leads_until_the_team_leads_another_suit():
    assert rules.state_after_trick(trop_state(3, 3), True, cards("AH"), SPADES) == (TROP_DONE, False)
    assert rules.lead_cards(cards("2S AH"), SPADES, TROP_DONE) == cards("AH")
    assert rules.state_after_lead(TROP_DONE, parse_card("AH"), SPADES, None) == FREE


def test_a_trop_whose_third_trick_the_opponents_take_ends_free_without_the_bar():
    assert rules.state_after_trick(trop_state(3, 3), False, cards("2S AH"), SPADES) == (FREE, False)
    played("trop", "the opponents take the third")


def test_a_trop_continues_when_the_team_reaches_5_tricks():
    played("trop", "Trop declared at 4 tricks")


def test_lead_states_bind_only_their_own_team():
    match = played("trop", "three trump leads")
    assert match.lead_states[1] == FREE
    match = played("trop", "after a completed Trop")
    assert [state.text for state in match.lead_states] == ["trop_done", "free"]


def test_trop_to_the_end_fails_where_a_trop_would_be_lifted_and_succeeds_at_7_0():
    assert rules.state_after_trick(trop_state(2, 7), False, cards("2S"), SPADES) == (FREE, True)
    assert rules.state_after_trick(trop_state(2, 7), True, cards("AH"), SPADES) == (FREE, True)
    assert rules.state_after_trick(trop_state(7, 7), True, cards("AH"), SPADES) == (TROP_DONE, False)
    assert played("trop_to_end", "seven trump leads").rounds[-1]["result"] == "kort"
    assert played("trop_to_end", "the partner takes").rounds[-1]["result"] == "trop_failed"


def test_lead_states_pack_into_one_int_and_read_as_the_traces_words():
    for state in (FREE, SAR_STATE, SAR_NEXT, TROP_DONE, trop_state(2, 3), trop_state(7, 7)):
        assert LeadState.from_code(state.code) == state and 0 <= state.code < 2**15
    assert [s.text for s in (FREE, SAR_NEXT, trop_state(2, 3), TROP_DONE)] == ["free", "sar_next", "trop(2,3)",
                                                                               "trop_done"]


# ----- the end of a round ----------------------------------------------------------------------------------


def test_the_results_table():
    assert RESULT_WINS == {Result.ORDINARY: 1, Result.KORT: 5, Result.AT_KORT: 7, Result.BAVAN_MADE: 7,
                           Result.BAVAN_FAILED: 1, Result.TROP_FAILED: 1}
    assert rules.seven_nil_result(team=0, holder=2) == Result.KORT
    assert rules.seven_nil_result(team=1, holder=2) == Result.AT_KORT
    assert rules.result_team(Result.TROP_FAILED, trick_team=0, holder=2, bavan_team=None) == 1
    assert rules.result_team(Result.BAVAN_FAILED, trick_team=1, holder=2, bavan_team=0) == 0
    assert rules.result_team(Result.ORDINARY, trick_team=1, holder=2, bavan_team=None) == 1


def test_an_ordinary_win_is_first_to_7_tricks_whatever_the_losers_took():
    assert rules.round_result([7, 6], 0, None) == Result.ORDINARY
    assert rules.round_result([1, 7], 1, None) == Result.ORDINARY
    assert rules.round_result([6, 6], 0, None) is None
    assert rules.round_result([7, 0], 0, None) is None and rules.seven_nil([7, 0], 0, None)


def test_at_7_0_the_taker_of_trick_7_votes_then_its_partner_and_both_always_vote():
    assert rules.bavan_voters(3) == [3, 1]
    played("bavan", "a yes and a no")
    played("bavan", "a first no")


def test_the_first_bavan_vote_is_hidden_from_the_partner_until_both_are_cast():
    case = next(c for c in load_scenario("bavan") if c["case"].startswith("a yes and a no"))
    case = {**case, "steps": case["steps"][:-2]}
    match, failures = play_case(case)
    assert not failures and match.phase == Phase.VOTE
    match.apply(parse_action("bavan yes"))
    partner = match.observation(2)
    assert partner.own_vote is None and not any(e["kind"] == "bavan_vote" for e in partner.log)
    assert match.observation(0).own_vote == parse_action("bavan yes")
    assert match.observation(0).log == partner.log  # the first voter's vote is not in the public log yet
    match.apply(parse_action("bavan no"))
    votes = [e["votes"] for e in match.observation(2).log if e["kind"] == "bavan_vote"]
    assert votes == [[[0, parse_action("bavan yes")], [2, parse_action("bavan no")]]]


def test_bavan_made_gives_7_wins_and_bavan_failed_1_win_to_the_bavan_team_at_once():
    made = played("bavan", "both yes and all 13")
    assert (made.rounds[-1]["result"], made.rounds[-1]["wins"]) == ("bavan_made", 7)
    failed = played("bavan", "both yes after a Trop")
    assert (failed.rounds[-1]["result"], failed.rounds[-1]["wins"], failed.rounds[-1]["tricks"]) == (
        "bavan_failed", 1, [7, 1])


# ----- the match ---------------------------------------------------------------------------------------------


def test_the_match_ends_at_the_target_with_wins_added_in_full_plus_1_and_minus_1():
    assert rules.match_winner([6, 6], 7) is None
    assert rules.match_winner([1, 9], 7) == 1
    assert rules.match_winner([5, 0], 3) == 0
    assert rules.match_scores(1) == [-1, 1, -1, 1]
    assert played("match_end", "seed 0").wins == [1, 9]
    assert played("match_end", "a ranked match").done
    assert played("bavan", "the team without the trump").done  # an At-kort ends a match to 7 at once


@pytest.mark.parametrize("setting", ["target_wins=0", "target_wins=101", "first_holder=4", "holder=1"])
def test_bad_options_are_refused_in_one_line(setting):
    with pytest.raises(GameInputError) as error:
        parse_options([setting])
    assert "\n" not in str(error.value)
