"""Knockout Whist's rules, one test per rule or ruling, named after it.

The pure functions of ``sim/knockout_whist/rules.py`` are checked directly; the
rules that need a game in progress load scenario fixtures from
``seeds/scenarios/knockout_whist/`` (format in its README).
"""

from __future__ import annotations

from sim.cards import parse_card, parse_cards, to_set
from sim.knockout_whist import rules
from sim.knockout_whist.encoding import KNOCK, NO_TRUMPS, Options, Status


def cards(text: str) -> int:
    return to_set(parse_cards(text))


def plays(*pairs: tuple[int, str]) -> list[tuple[int, int]]:
    return [(seat, KNOCK if text == "knock" else parse_card(text)) for seat, text in pairs]


HEARTS, SPADES = 2, 3


# ----- pure functions ----------------------------------------------------------------------


def test_follow_suit_if_you_can_else_any_card():
    hand = cards("2C 9C KH AS")
    assert rules.playable_cards(hand, led_suit=0) == cards("2C 9C")
    assert rules.playable_cards(hand, led_suit=1) == hand  # void in diamonds
    assert rules.playable_cards(hand, led_suit=None) == hand  # the leader plays anything


def test_rules_text_example_a_little_trump_beats_every_spade():
    # Hearts are trumps. Anna leads KS, Ben plays 3S, Carla (no spades) 2H, Dan AS: Carla wins.
    assert rules.trick_winner(plays((0, "KS"), (1, "3S"), (2, "2H"), (3, "AS")), HEARTS) == 2


def test_without_a_trump_the_highest_card_of_the_suit_led_wins():
    assert rules.trick_winner(plays((0, "5D"), (1, "AS"), (2, "9D"), (3, "KC")), HEARTS) == 2


def test_no_trumps_highest_card_of_suit_led_wins_even_over_a_heart():
    assert rules.trick_winner(plays((0, "5D"), (1, "AH"), (2, "9D")), NO_TRUMPS) == 2


def test_the_first_card_played_not_a_knock_sets_the_suit_led():
    trick = plays((1, "knock"), (2, "4C"), (3, "AD"), (0, "9C"))
    assert rules.led_suit_of(trick) == 0
    assert rules.trick_winner(trick, SPADES) == 0


def test_tie_cut_highest_rank_then_spades_diamonds_hearts_clubs():
    assert rules.cut_winner([3, 0], parse_cards("QC 9S")) == (0, parse_cards("QC 9S"))  # seat 0 takes cut[0]
    assert rules.cut_winner([1, 2, 4], parse_cards("7H 7S 7D"))[0] == 2
    ranking = sorted(parse_cards("7C 7D 7H 7S"), key=rules.cut_strength)
    assert ranking == parse_cards("7C 7H 7D 7S")


def test_deal_in_rounds_from_the_dealers_left_dogs_get_one_card():
    order = rules.deal_order(dealer=3, n_seats=4, in_hand=[0, 1, 2, 3])
    assert order == [0, 1, 2, 3]
    hands, used = rules.deal(list(range(52)), order, cards_each=4, dogs=[0, 1])
    assert used == 2 + 4 + 4
    assert hands[0] == to_set([0]) and hands[1] == to_set([1])
    assert hands[2] == to_set([2, 4, 6, 8]) and hands[3] == to_set([3, 5, 7, 9])


def test_fair_leads_a_knocked_out_next_dealer_still_deals():
    options = Options()
    # Hand h: dealer 0, seats 0..3 played it; seat 1 has just gone out but still deals next.
    assert rules.next_dealer(0, 4, [0, 1, 2, 3], chooser=2, options=options) == 1
    # ... and the seat after it that is in the new hand leads.
    assert rules.first_leader(1, 4, [0, 2, 3], hand_no=3, options=options) == 2


def test_winner_deals_the_chooser_deals_and_leads_from_hand_two():
    options = Options(winner_deals=True)
    assert rules.next_dealer(0, 4, [0, 1, 2, 3], chooser=2, options=options) == 2
    assert rules.first_leader(2, 4, [0, 1, 2, 3], hand_no=2, options=options) == 2
    assert rules.first_leader(0, 4, [0, 1, 2, 3], hand_no=1, options=options) == 1


def test_a_dog_may_knock_except_on_the_last_trick():
    dog = cards("5S")
    assert rules.play_actions(dog, led_suit=3, is_dog=True, last_trick=False) == [parse_card("5S"), KNOCK]
    assert rules.play_actions(dog, led_suit=None, is_dog=True, last_trick=True) == [parse_card("5S")]


def test_card_exchange_limit_is_three_cards_held_and_stock_left():
    assert rules.exchange_limit(cards_held=7, stock_left=23) == 3
    assert rules.exchange_limit(cards_held=1, stock_left=23) == 1
    assert rules.exchange_limit(cards_held=7, stock_left=2) == 2


def test_rainbow_is_one_card_of_each_suit_in_four():
    assert rules.is_rainbow(cards("2C 9D KH AS"))
    assert not rules.is_rainbow(cards("2C 9D KH AH"))
    assert not rules.is_rainbow(cards("2C"))


def test_no_trick_means_out_or_a_dogs_life_for_every_such_seat_of_the_first_hand_that_has_one():
    statuses = [Status.IN] * 4
    new, out, dogs = rules.after_hand(statuses, [5, 0, 2, 0], 2, Options(), dogs_life_awarded_before=False)
    assert (out, dogs) == ([], [1, 3]) and new[1] == new[3] == Status.DOG
    new, out, dogs = rules.after_hand(statuses, [5, 0, 2, 0], 2, Options(), dogs_life_awarded_before=True)
    assert (out, dogs) == ([1, 3], [])


def test_a_dog_that_wins_a_trick_is_back_and_one_that_does_not_is_out():
    statuses = [Status.IN, Status.DOG, Status.DOG, Status.IN]
    new, out, dogs = rules.after_hand(statuses, [2, 1, 0, 1], 3, Options(), dogs_life_awarded_before=True)
    assert new == [Status.IN, Status.IN, Status.OUT, Status.IN] and out == [2] and dogs == []


def test_no_dogs_life_after_hand_seven_nor_without_the_option_nor_after_a_safe_first_hand():
    assert not rules.gets_dogs_life(7, Options(), dogs_life_awarded_before=False)
    assert not rules.gets_dogs_life(2, Options(dogs_life=False), dogs_life_awarded_before=False)
    assert not rules.gets_dogs_life(1, Options(safe_first_hand=True), dogs_life_awarded_before=False)
    assert rules.gets_dogs_life(2, Options(safe_first_hand=True), dogs_life_awarded_before=False)


def test_scores_winner_n_minus_one_others_minus_one():
    assert rules.game_scores(5, 2) == [-1, -1, 4, -1, -1]
