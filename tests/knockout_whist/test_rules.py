"""Knockout Whist's rules, one test per rule or ruling, named after it.

The pure functions of ``sim/knockout_whist/rules.py`` are checked directly; the
rules that need a game in progress load scenario fixtures from
``seeds/scenarios/knockout_whist/`` (format in its README).
"""

from __future__ import annotations

from sim.cards import parse_card, parse_cards, to_set
from sim.knockout_whist import rules
from sim.knockout_whist.encoding import KNOCK, NO_TRUMPS, EndReason, Options, Phase, Status
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knockout_whist.scenario import build_game, load_scenario, play_case


def cards(text: str) -> int:
    return to_set(parse_cards(text))


def plays(*pairs: tuple[int, str]) -> list[tuple[int, int]]:
    return [(seat, KNOCK if text == "knock" else parse_card(text)) for seat, text in pairs]


HEARTS, SPADES = 2, 3


def played(name: str, case_starts: str = "") -> KnockoutWhistGame:
    """The game of a scenario after all its steps, which must all have matched."""
    case = next(c for c in load_scenario(name) if c.get("case", "").startswith(case_starts))
    game, failures = play_case(case)
    assert not failures, "\n".join(failures)
    return game


def start_of(name: str, case_starts: str = "") -> KnockoutWhistGame:
    """The game of a scenario at its start."""
    return build_game(next(c for c in load_scenario(name) if c.get("case", "").startswith(case_starts))["start"])


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


# ----- whole-game rules on scenario fixtures -------------------------------------------------


def test_hand_one_is_dealt_from_the_dealers_left_and_the_turned_card_is_trumps():
    game = start_of("deal_from_permutation")
    assert (game.dealer, game.leader, game.trumps, game.turned) == (0, 1, HEARTS, parse_card("KH"))
    assert game.phase == Phase.PLAY and not game.decisions


def test_the_dealer_moves_one_seat_left_each_hand():
    game = played("deal_from_permutation")
    assert [(e["hand"], e["dealer"], e["leader"]) for e in game.log if e["kind"] == "hand"] == [(1, 0, 1), (2, 1, 2)]


def test_following_suit_is_required_and_a_void_seat_may_play_anything():
    played("follow_suit")


def test_the_highest_trump_wins_else_the_highest_card_of_the_suit_led():
    assert played("trick_winner", "the rules text's example").tricks == [0, 0, 0, 1]
    assert played("trick_winner", "no trump played").tricks == [0, 0, 1, 0]
    assert played("trick_winner", "two trumps").tricks == [1, 0, 0, 0]


def test_most_tricks_chooses_trumps_after_seeing_the_new_cards():
    game = played("trump_choice", "seat 1 takes two")
    assert game.chooser == 1 and game.trumps == HEARTS


def test_tied_seats_cut_for_trumps_and_the_single_trick_of_hand_seven_wins():
    game = played("trump_choice", "seats 1 and 3 tie")
    assert (game.winner, game.end_reason, game.hands_played) == (1, EndReason.LAST_TRICK, 7)


def test_no_trick_means_out_and_the_last_seat_standing_wins():
    game = played("knockouts")
    assert (game.winner, game.end_reason, game.scores) == (0, EndReason.LAST_STANDING, [2, -1, -1])


def test_fair_leads_a_knocked_out_dealers_left_still_deals_the_next_hand():
    game = played("fair_leads")
    assert game.status[1] == Status.OUT and (game.dealer, game.leader) == (1, 2)


def test_dogs_life_for_every_seat_without_a_trick_in_the_first_such_hand():
    game = played("dogs_life", "three seats")
    assert game.dog_hand == [7, None, 7, 7]


def test_a_dog_may_knock_even_when_it_would_lead():
    played("dogs_life", "a dog on the dealer's left knocks")


def test_after_a_dogs_winning_card_the_seat_to_its_left_leads_and_the_dog_is_back():
    game = played("dogs_life", "the dog's ace wins")
    assert game.dog_saved[1] and game.status[1] == Status.IN and game.card_counts()[1] == 2


def test_a_second_dog_still_holding_its_card_leads_and_may_knock():
    played("dogs_life", "two dogs")


def test_dogs_can_knock_out_every_ordinary_seat_and_play_on():
    game = played("dogs_life", "dogs can take every trick")
    assert game.status == [Status.OUT, Status.IN, Status.IN] and not game.done


def test_variant_no_dogs_life_no_trick_means_out_at_once():
    assert played("variant_no_dogs_life", "dogs_life=false").dog_hand == [None, None, None]
    assert played("variant_no_dogs_life", "the default").dog_hand == [None, None, 7]


def test_variant_safe_first_hand_nobody_goes_out_after_hand_one():
    assert played("variant_safe_first_hand", "safe_first_hand: seat 1").status == [Status.IN] * 4
    assert played("variant_safe_first_hand", "safe_first_hand from hand 2").status[2] == Status.DOG


def test_variant_winner_deals_the_chooser_deals_and_leads():
    played("variant_winner_deals", "hand 1")
    game = played("variant_winner_deals", "seat 1 takes")
    assert game.dealer == game.leader == game.chooser == 1


def test_variant_card_exchange_up_to_three_cards_from_the_leader_round():
    assert played("variant_card_exchange", "hand 1").exchanged == [0, 3, 0, 1]
    played("variant_card_exchange", "seven seats")
    played("variant_card_exchange", "hand 5")


def test_variant_no_trumps_choice_the_chooser_may_pick_no_trumps():
    assert played("variant_no_trumps_choice", "the chooser may").trumps == NO_TRUMPS
    played("variant_no_trumps_choice", "hand 1")
    played("variant_no_trumps_choice", "without the option")


def test_variant_rainbow_one_card_of_each_suit_in_hand_four_wins_at_once():
    game = played("variant_rainbow", "seat 3 is dealt")
    assert (game.winner, game.end_reason, game.hands_played) == (3, EndReason.RAINBOW, 4)
    assert played("variant_rainbow", "seats 0 and 3").winner == 3
    assert not played("variant_rainbow", "without the option").done
