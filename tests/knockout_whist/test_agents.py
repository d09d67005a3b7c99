"""Knockout Whist's agents: specs mean the game's own agents, greedy's rules, greedy's strength, and the tracker.

The tracker's deductions are checked against the real hands at every step of
many random games, while it sees only the observations of its seat.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents.base import AgentSpecError, RandomAgent, known_agents, make_agent
from agents.knockout_whist.greedy import GreedyAgent, best_card, greedy_action
from agents.knockout_whist.tracker import KnockoutWhistTracker, TrackerAgent
from agents.knorri.greedy import GreedyAgent as KnorriGreedy
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment
from experiments.runner.summary import summarise
from sim.cards import SUIT_MASK, parse_cards, suit_of
from sim.knockout_whist.encoding import END_EXCHANGE, KNOCK, Phase, Status, trumps_action
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knockout_whist.rules import card_beats, led_suit_of, play_actions
from sim.rng import SplitMix64, derive_seed
from sim.seating import play_with_agents

GAME = "knockout-whist"
ALL_VARIANTS = {"safe_first_hand": True, "winner_deals": True, "card_exchange": True, "no_trumps_choice": True,
                "rainbow": True}


def cards(text):
    return parse_cards(text)


def seen(phase=Phase.PLAY, hand="", trumps=3, trick=(), dog=False):
    """The few observation fields greedy reads: seat 0, its hand, trumps and the trick as (seat, card or knock)."""
    return SimpleNamespace(phase=phase, hand=tuple(cards(hand)), trumps=trumps, trick=tuple(trick), seat=0,
                           status=(Status.DOG if dog else Status.IN, Status.IN, Status.IN))


# ----- specs --------------------------------------------------------------------------------------


def test_a_spec_names_the_agent_of_the_game_being_played():
    assert known_agents(GAME) == ["greedy", "learned", "mcts", "random", "tracker"]
    assert "tracker" not in known_agents() and {"greedy", "loginf", "mcts", "random"} <= set(known_agents())
    assert isinstance(make_agent("greedy"), KnorriGreedy)
    assert isinstance(make_agent("greedy", game=GAME), GreedyAgent)
    assert isinstance(make_agent("tracker", game=GAME), TrackerAgent)
    assert type(make_agent("random", game=GAME)) is RandomAgent
    assert make_agent("runner_fixtures.agents:PythonRandom", game=GAME).name == "random"
    with pytest.raises(AgentSpecError, match="unknown agent 'loginf' for knockout-whist: known agents are greedy, "
                                             "learned, mcts, random, tracker, or module.path:ClassName"):
        make_agent("loginf", game=GAME)


def test_random_plays_every_variant_unchanged_through_the_protocol():
    for seed in range(20):
        options = {"players": 2 + seed % 6, **(ALL_VARIANTS if seed % 2 else {})}
        agents = [RandomAgent() for _ in range(options["players"])]
        game = play_with_agents(KnockoutWhistGame(options, seed=seed), agents, seed)
        assert game.done and sum(game.scores) == 0


def test_greedy_and_tracker_play_only_legal_actions_and_repeat_themselves():
    for seed in range(12):
        n = 2 + seed % 6
        options = {"players": n, **(ALL_VARIANTS if seed % 3 else {"dogs_life": seed % 2 == 0})}
        specs = [("greedy", "tracker", "random")[seat % 3] for seat in range(n)]
        first = play_with_agents(KnockoutWhistGame(options, seed=seed), [make_agent(s, game=GAME) for s in specs], seed)
        again = play_with_agents(KnockoutWhistGame(options, seed=seed), [make_agent(s, game=GAME) for s in specs], seed)
        assert first.decisions == again.decisions


# ----- greedy's rules -----------------------------------------------------------------------------


def test_greedy_chooses_its_longest_suit_as_trumps():
    legal = [trumps_action(suit) for suit in range(4)] + [57]
    assert greedy_action(seen(Phase.CHOOSE, "2C 3C 4C AS KS"), legal) == trumps_action(0)
    assert greedy_action(seen(Phase.CHOOSE, "2C 3C AS KS 5H"), legal) == trumps_action(3)  # tie: higher ranks


def test_greedy_throws_away_its_low_side_cards_in_an_exchange():
    assert greedy_action(seen(Phase.EXCHANGE, "3S 5C 9D", trumps=3), cards("3S 5C 9D") + [END_EXCHANGE]) == \
        cards("5C")[0]
    assert greedy_action(seen(Phase.EXCHANGE, "3S 9D", trumps=3), cards("3S 9D") + [END_EXCHANGE]) == END_EXCHANGE


def test_greedy_leads_its_highest_side_card():
    assert greedy_action(seen(hand="AS KH 4C 2S", trumps=3), cards("AS KH 4C 2S")) == cards("KH")[0]
    assert greedy_action(seen(hand="AS 2S", trumps=3), cards("AS 2S")) == cards("AS")[0]


def test_greedy_wins_a_trick_with_its_cheapest_winning_card():
    trick = [(1, cards("TH")[0])]
    assert greedy_action(seen(hand="QH KH AH", trick=trick), cards("QH KH AH")) == cards("QH")[0]
    assert greedy_action(seen(hand="2S 9S 3C", trick=trick), cards("2S 9S 3C")) == cards("2S")[0]  # ruffs low


def test_greedy_ducks_with_its_cheapest_card_when_the_trick_is_lost():
    trick = [(1, cards("AH")[0])]
    assert greedy_action(seen(hand="2H 9H", trick=trick), cards("2H 9H")) == cards("2H")[0]
    ruffed = [(1, cards("4H")[0]), (2, cards("AS")[0])]
    assert greedy_action(seen(hand="KS 3C 7D", trick=ruffed), cards("KS 3C 7D")) == cards("3C")[0]


def test_a_greedy_dog_plays_its_card_only_when_it_beats_the_trick():
    card = cards("QH")[0]
    assert greedy_action(seen(hand="QH", trick=[(1, cards("TH")[0])], dog=True), [card, KNOCK]) == card
    assert greedy_action(seen(hand="QH", trick=[(1, cards("KH")[0])], dog=True), [card, KNOCK]) == KNOCK
    assert greedy_action(seen(hand="QH", dog=True), [card, KNOCK]) == KNOCK  # nothing to beat yet


def test_greedy_beats_random_clearly_on_duplicate_deals(tmp_path):
    run = build_config({"game": GAME, "seats": 4, "agents": ["greedy", "random", "random", "random"],
                        "assign": "rotate", "hands": 400, "seed": 17, "workers": 1})
    run_experiment(run, tmp_path / "run")
    rows = {row.agent: row for row in summarise(tmp_path / "run")}
    greedy = rows["greedy"]
    assert greedy.seat_hands == 400 and greedy.mean_score - greedy.ci95 > 1.0  # -1 to +3; random's mean is 0
    assert greedy.outcome_rate > 0.5 > rows["random"].outcome_rate


# ----- the tracker ----------------------------------------------------------------------------------


def test_the_trackers_deductions_are_true_of_the_real_hands_at_every_step():
    voids_found = 0
    for seed in range(120):
        n = 2 + seed % 6
        options = {"players": n, **({"card_exchange": True, "winner_deals": True} if seed % 4 == 1 else {})}
        game = KnockoutWhistGame(options, seed=seed)
        trackers = [KnockoutWhistTracker(n, seat) for seat in range(n)]
        rng = SplitMix64(derive_seed(seed, 1))
        while not game.done:
            for seat, tracker in enumerate(trackers):
                tracker.update(game.observation(seat))
                _check_deductions(game, tracker)
                voids_found += sum(1 for void in tracker.voids if void)
            game.apply(rng.choice(game.legal_actions()))
    assert voids_found > 1000  # the deductions do say something


def _check_deductions(game, tracker):
    counts = game.card_counts()
    for other in range(game.n_seats):
        held = game.hands[other]
        assert held & tracker.cannot_hold(other) == 0, (other, tracker.seat)
        for suit in range(4):
            if tracker.must_hold_suit(other, suit, counts[other]):
                assert held & SUIT_MASK[suit]
    best = [action for _, action in game.trick if action != KNOCK]
    if game.phase != Phase.PLAY or not best:
        return
    led = led_suit_of(game.trick)
    top = best_card(game.trick, game.trumps)
    for other in game.trick_seats[len(game.trick):]:
        if other == tracker.seat or tracker.might_beat(other, top, led, counts[other]):
            continue
        playable = play_actions(game.hands[other], led, game.status[other] == Status.DOG, last_trick=False)
        assert not any(card != KNOCK and card_beats(card, top, game.trumps) for card in playable), (other, top)


def test_a_seat_that_fails_to_follow_suit_is_known_void_in_it():
    shown = 0
    for seed in range(30):
        game = KnockoutWhistGame({"players": 3}, seed=seed)
        trackers = [KnockoutWhistTracker(3, seat) for seat in range(3)]
        rng = SplitMix64(seed)
        while not game.done:
            mover, led, hand_no = game.to_move, game.led_suit, game.hand_no
            ordinary = game.status[mover] == Status.IN
            action = rng.choice(game.legal_actions())
            game.apply(action)
            if action < KNOCK and led is not None and suit_of(action) != led and ordinary and game.hand_no == hand_no:
                shown += 1
                for seat, tracker in enumerate(trackers):
                    tracker.update(game.observation(seat))
                    assert tracker.voids[mover] & SUIT_MASK[led] == SUIT_MASK[led]
    assert shown > 20
