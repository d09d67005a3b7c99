"""Knorri's rules, one test per rule or ruling, each on a scenario fixture from seeds/scenarios/.

Every scenario is also run whole by tests/knorri/test_scenarios.py; here each test
names the rule and asserts the fact that rule is about.
"""

from __future__ import annotations

import pytest

from sim.cards import CardParseError, card_text, parse_card, parse_cards
from sim.errors import GameInputError, GameOverError, IllegalActionError
from sim.knorri import rules
from sim.knorri.encoding import PICK_UP, action_text
from sim.knorri.reference import KnorriHand
from sim.knorri.scenario import build_hand, load_scenario, parse_action, play_case, snapshot


def played(name: str, case: str | None = None) -> KnorriHand:
    """The hand of a scenario after all its steps, which must all have matched."""
    cases = load_scenario(name)
    chosen = next(c for c in cases if case is None or c.get("case") == case)
    hand, failures = play_case(chosen)
    assert not failures, "\n".join(failures)
    return hand


def start_of(name: str, case: str | None = None) -> KnorriHand:
    """The hand of a scenario at its start."""
    cases = load_scenario(name)
    return build_hand(next(c for c in cases if case is None or c.get("case") == case)["start"])


def cards(text: str) -> list[int]:
    return parse_cards(text)


# ----- cards, ids and text ----------------------------------------------------------------------


def test_card_id_is_suit_times_thirteen_plus_rank():
    assert [parse_card(t) for t in ("2C", "AC", "2D", "AD", "2H", "AS")] == [0, 12, 13, 25, 26, 51]
    assert [card_text(c) for c in range(52)] == [r + s for s in "CDHS" for r in "23456789TJQKA"]


@pytest.mark.parametrize("text, card", [
    ("TD", 21), ("10D", 21), ("td", 21), ("10d", 21), ("q♠", 49), ("Q♠", 49), ("A♥", 38), ("2♣", 0), ("K♦", 24),
    (" 7h ", 31),
])
def test_card_text_accepts_ten_lower_case_and_suit_symbols(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "C", "1C", "11H", "ZZ", "2X", "AC5", "10", "T"])
def test_bad_card_text_is_refused_with_what_is_allowed(text):
    with pytest.raises(CardParseError, match=r"is not a card: .*(rank|ranks)"):
        parse_card(text)


def test_action_ids_are_cards_then_pick_up_then_opening_runs():
    assert [parse_action(t) for t in ("2C", "AS", "pick up", "2C-3C", "2C-4C", "2C-AC")] == [0, 51, 52, 53, 54, 64]
    assert [action_text(a) for a in (0, 52, 53, 64)] == ["2C", "pick up", "run 2C-3C", "run 2C-AC"]
    with pytest.raises(GameInputError, match="opening run"):
        parse_action("3C-5C")


# ----- phase 1 ----------------------------------------------------------------------------------


def test_a_single_candidate_is_taken_by_the_table():
    hand = start_of("chosen_vs_forced_capture", "one candidate: the table takes it, no decision")
    capture = next(e for e in hand.log if e["kind"] == "capture")
    assert (capture["card"], capture["took"], capture["chosen"]) == (parse_card("8H"), parse_card("5H"), False)


def test_a_seat_chooses_when_the_turned_card_has_several_candidates():
    start = start_of("chosen_vs_forced_capture", "two candidates: the seat chooses")
    assert start.phase == 1 and start.to_move == 0 and start.legal_actions() == cards("5H 9S")
    start.apply(parse_card("9S"))
    capture = next(e for e in start.log if e["kind"] == "capture")
    assert (capture["took"], capture["chosen"]) == (parse_card("9S"), True)


def test_diamond_takes_spade_or_heart_only_without_lower_diamond():
    hand = start_of("diamond_takes_spade_or_heart")
    first_capture = next(e for e in hand.log if e["kind"] == "capture")
    assert first_capture["took"] == parse_card("2D") and not first_capture["chosen"]
    assert hand.observation(hand.to_move).turned == parse_card("4D")
    assert hand.legal_actions() == cards("5H 9S")
    played("diamond_takes_spade_or_heart")


def test_clubs_hearts_and_spades_never_take_another_suit():
    hand = played("chosen_vs_forced_capture",
                  "clubs, hearts and spades never take another suit; a heart with two lower hearts out chooses "
                  "between them")
    assert rules.capture_candidates(parse_card("4H"), sum(1 << c for c in cards("9S 2D 3C"))) == 0
    assert rules.capture_candidates(parse_card("AC"), sum(1 << c for c in cards("2D 5H 9S"))) == 0
    first_capture = next(e for e in hand.log if e["kind"] == "capture")
    assert first_capture["card"] == parse_card("9H")  # the 4H, 8S and 7C before it stayed on the table


def test_the_last_capturer_sweeps_the_table():
    hand = start_of("sweep_to_last_capturer")
    sweep = next(e for e in hand.log if e["kind"] == "sweep")
    captures = [e for e in hand.log if e["kind"] == "capture"]
    assert sweep["seat"] == captures[-1]["seat"] == 0 and captures[0]["seat"] == 2
    assert len(sweep["cards"]) == 48 and hand.table == 0
    played("sweep_to_last_capturer")


def test_nobody_capturing_means_a_redeal_with_the_same_first_seat():
    hand = played("redeal")
    deals = [e for e in hand.log if e["kind"] == "deal"]
    first_turns = [next(e for e in hand.log[hand.log.index(d):] if e["kind"] == "turn") for d in deals]
    assert hand.redeals == 1 and [t["seat"] for t in first_turns] == [2, 2]


def test_a_seat_that_took_nothing_is_out_and_scores_one_per_seat_holding():
    hand = played("seat_out_after_phase1")
    assert hand.card_counts()[3] == 0 and hand.scores[3] == hand.seats_holding == 3


def test_a_single_seat_holding_after_phase_1_loses_at_once():
    hand = played("one_seat_holds_after_phase1")
    assert hand.done and hand.phase2_actions == 0 and hand.scores == [1, 1, -2]


# ----- phase 2 ----------------------------------------------------------------------------------


def test_opening_run_offers_an_id_for_each_run_held():
    hand = start_of("opening_run", "a run of three held, with a gap above it")
    assert hand.legal_actions() == [0, 53, 54]
    whole_suit = start_of("opening_run", "the whole club suit offers every run id up to 64")
    assert whole_suit.legal_actions() == [0, *range(53, 65)]
    played("opening_run", "the 2C without the 3C can only go alone")


def test_only_the_opening_play_may_be_a_run():
    hand = played("opening_run", "after the opening, a lead is one card even with 2C 3C in hand")
    assert all(a < PICK_UP for a in hand.legal_actions())


def test_opening_run_is_one_play_and_picked_up_leaves_three_of_four():
    hand = played("pagat_opening_run_picked_up")
    assert hand.trick[0] == [parse_card("4C")] and len(hand.trick) == 3 and hand.plays_needed() == 4


def test_going_out_does_not_shorten_the_trick():
    hand = start_of("pagat_going_out_does_not_shorten_trick")
    for action in ("8H", "KH", "pick up", "AH", "5D"):
        hand.apply(parse_action(action))
    assert hand.hands[1] == 0 and hand.seats_holding == 3
    assert len(hand.trick) == 3 and hand.plays_needed() == 4 and hand.tricks_completed == 0
    assert hand.to_move == 2 and hand.legal_actions() == [parse_card("9D"), PICK_UP]
    played("pagat_going_out_does_not_shorten_trick")


@pytest.mark.parametrize("case", [c["case"] for c in load_scenario("beat_relation")])
def test_beat_relation_clubs_by_clubs_diamonds_by_diamonds_spades_and_hearts_also_by_diamonds(case):
    hand = played("beat_relation", case)
    top = hand.top_card
    expected = [c for c in range(52) if hand.hands[0] >> c & 1 and (top is None or rules.beats(c, top))]
    assert hand.legal_actions() == expected + ([] if top is None else [PICK_UP])


def test_beats_matches_the_rulings_table():
    assert rules.beats(parse_card("9C"), parse_card("8C")) and not rules.beats(parse_card("2D"), parse_card("8C"))
    assert rules.beats(parse_card("2D"), parse_card("AH")) and rules.beats(parse_card("2D"), parse_card("AS"))
    assert not rules.beats(parse_card("AS"), parse_card("2D")) and not rules.beats(parse_card("AS"), parse_card("2H"))
    assert not rules.beats(parse_card("8C"), parse_card("8C"))


def test_a_pick_up_that_empties_the_trick_passes_the_lead_to_the_next_seat():
    hand = played("pick_up_empties_trick", "the only card is picked up: the next seat leads")
    assert hand.trick == [] and hand.to_move == 2 and PICK_UP not in hand.legal_actions()
    skipped = played("pick_up_empties_trick", "the seat after the picker is out: the one after it leads")
    assert skipped.to_move == 3


def test_a_pick_up_takes_the_bottom_card():
    hand = played("pick_up_empties_trick", "a pick-up that leaves cards in the trick passes the turn on")
    assert hand.hands[2] >> parse_card("7S") & 1 and hand.trick == [[parse_card("9S")]]


def test_going_out_on_a_tricks_last_card_passes_the_lead_to_the_next_seat():
    hand = played("going_out_on_last_card_of_trick", "going out on the trick's last card: the next seat leads")
    assert hand.to_move == 0 and hand.trick == [] and hand.scores[2] == 2


def test_the_seat_completing_a_trick_leads_the_next():
    hand = played("going_out_on_last_card_of_trick",
                  "completing a trick while still holding cards: the same seat leads")
    assert hand.to_move == 2 and hand.tricks_completed == 1


def test_the_loser_scores_minus_everyone_elses_total():
    hand = played("going_out_on_last_card_of_trick",
                  "the second last seat goes out: the hand ends and the last seat loses")
    assert hand.loser == 2 and hand.scores[2] == -(hand.scores[0] + hand.scores[1]) and sum(hand.scores) == 0


# ----- cut-offs ---------------------------------------------------------------------------------


def test_a_repeated_position_ends_the_hand_with_reason_repeat():
    hand = played("repeat_hand_made")
    assert hand.end_reason.value == "repeat" and hand.cycle_length == 12
    seeded = played("repeat_seed")
    assert seeded.end_reason.value == "repeat" and seeded.cycle_length > 0


def test_the_cap_ends_the_hand_after_1500_phase_2_actions():
    hand = played("cap_seed")
    assert hand.end_reason.value == "cap" and hand.phase2_actions == 1500 and sum(hand.scores) == 0


def test_cutoff_ranking_is_fewest_cards_first_then_turn_order_from_the_seat_to_move():
    hand = played("cutoff_ranking")
    end = hand.log[-1]
    assert end["ranking"] == [2, 1, 0]  # seat 2 holds one card; seats 1 and 0 tie, and seat 1 was to move
    assert hand.scores == [-6, 1, 2, 3]  # seat 3's three points from before stand
    assert rules.cutoff_ranking([2, 2, 1, 0], next_to_move=1) == [2, 1, 0]
    assert rules.cutoff_ranking([3, 1, 3, 3, 0], next_to_move=3) == [1, 3, 0, 2]


# ----- bad input --------------------------------------------------------------------------------


def test_an_illegal_action_names_the_seat_the_action_and_the_legal_ids_and_changes_nothing():
    hand = start_of("pagat_going_out_does_not_shorten_trick")
    for action in ("8H", "KH", "pick up", "AH", "5D"):
        hand.apply(parse_action(action))
    before = snapshot(hand)
    observations = [hand.observation(seat) for seat in range(4)]
    with pytest.raises(IllegalActionError) as refused:
        hand.apply(parse_card("2S"))  # a spade does not beat the 5D
    assert str(refused.value) == "illegal action 39 by seat 2: legal ids are 20, 52"
    assert (refused.value.seat, refused.value.action, refused.value.legal) == (2, 39, [20, 52])
    assert snapshot(hand) == before and [hand.observation(seat) for seat in range(4)] == observations


@pytest.mark.parametrize("action", [-1, 65, 100, 53, "2C", None])
def test_an_id_outside_the_legal_list_is_refused(action):
    hand = KnorriHand.from_seed(4, 0)
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(action)
    assert snapshot(hand) == before


def test_an_action_after_the_end_is_refused():
    hand = played("repeat_hand_made")
    with pytest.raises(GameOverError, match="the hand is over"):
        hand.apply(PICK_UP)


@pytest.mark.parametrize("deck, detail", [
    (list(range(51)), "got 51 cards"),
    (list(range(53)), "got 53 cards"),
    ([0] + list(range(1, 51)) + [0], "missing"),
    (list(range(1, 53)), "missing"),
    (["a"] * 52, "permutation"),
])
def test_a_deck_that_is_not_a_permutation_of_the_52_cards_is_refused(deck, detail):
    with pytest.raises(GameInputError, match="permutation of the (52 )?card ids") as refused:
        KnorriHand(4, deck)
    assert detail in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("seats", [0, 1, 2, 7, 8, -3])
def test_a_seat_count_outside_3_to_6_is_refused(seats):
    with pytest.raises(GameInputError, match=f"Knorri is for 3 to 6 seats, not {seats}"):
        KnorriHand(seats, list(range(52)))
    with pytest.raises(GameInputError, match="3 to 6 seats"):
        KnorriHand.from_seed(seats, 0)


@pytest.mark.parametrize("first", [-1, 4, 9])
def test_a_first_seat_outside_the_table_is_refused(first):
    with pytest.raises(GameInputError, match=f"first seat must be 0 to 3, not {first}"):
        KnorriHand(4, list(range(52)), first)


@pytest.mark.parametrize("position, message", [
    ({"hands": ["2C 3C", "3C", "4C"], "to_move": 0}, "3C: a card can be in one place only"),
    ({"hands": ["2C", "", ""], "to_move": 0}, "at least two seats"),
    ({"hands": ["2C", "3C", ""], "to_move": 2}, "seat to move"),
    ({"hands": ["5C", "3C", "4C"], "to_move": 0, "opening": True}, "holder of 2C"),
    ({"hands": ["5C", "3C", "4C"], "to_move": 0, "trick": ["9H", "8H"]}, "does not beat"),
    ({"hands": ["5C", "6C", "4C"], "to_move": 0, "trick": ["9H", "2C 3C"]}, "only the first play"),
    ({"hands": ["5C", "9C", "4C"], "to_move": 0, "trick": ["2C 3C", "7C"], "plays_needed": 2}, "needs 3 to 3"),
    ({"hands": ["5C", "9C", "4C"], "to_move": 0, "plays_needed": 3}, "only for a trick in progress"),
    ({"hands": ["5C", "9C", "4C"], "to_move": 0, "scores": [1, 2]}, "needs 3 scores"),
    ({"hands": ["5C", "9C", "4C", "", "", "", ""], "to_move": 0}, "3 to 6 seats"),
])
def test_a_position_the_rules_cannot_reach_is_refused(position, message):
    with pytest.raises(GameInputError, match=message):
        build_hand(position)
