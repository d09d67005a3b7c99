"""OpenSpiel: every game registers as a Python game of the right type, passes ``pyspiel.random_sim_test``, deals the
harness's own deal for the seed its chance nodes draw, and OpenSpiel's MCTSBot plays a Knorri hand through it."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import mcts  # noqa: E402

from rl import openspiel_game  # noqa: E402
from sim.knorri.reference import KnorriHand  # noqa: E402


@pytest.mark.parametrize("name, params", [("python_knorri", {"players": 3}), ("python_knorri", {"players": 4}),
                                          ("python_knockout_whist", {"players": 2}),
                                          ("python_knockout_whist", {"players": 6}),
                                          ("python_kort", {"target_wins": 1})])
def test_random_sim_test_passes(name, params):
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_types_say_what_the_games_are():
    for name, seats in [("python_knorri", (3, 6)), ("python_knockout_whist", (2, 7)), ("python_kort", (4, 4))]:
        kind = pyspiel.load_game(name).get_type()
        assert (kind.min_num_players, kind.max_num_players) == seats
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM


def test_chance_draws_the_seed_of_the_harness_deal():
    state = pyspiel.load_game("python_knorri", {"players": 4}).new_initial_state()
    seed = 0x0123456789ABCDEF
    for byte in seed.to_bytes(openspiel_game.SEED_BYTES, "big"):
        assert state.is_chance_node() and len(state.chance_outcomes()) == 256
        state.apply_action(byte)
    assert state.game.log == KnorriHand.from_seed(4, seed, 0).log
    assert state.information_state_string(0) != state.information_state_string(1)


@pytest.mark.parametrize("name, params", [("python_knorri", {"players": 5}), ("python_knockout_whist", {"players": 5}),
                                          ("python_kort", {"target_wins": 3})])
def test_play_through_openspiel_is_the_reference_engines_play(name, params):
    import random

    from rl.games import facts

    game = pyspiel.load_game(name, params)
    rng = random.Random(1)
    for _ in range(3):
        seed = rng.getrandbits(64)
        state = game.new_initial_state()
        for byte in seed.to_bytes(openspiel_game.SEED_BYTES, "big"):
            state.apply_action(byte)
        options = {k: v for k, v in params.items() if k != "players"}
        reference = facts(name.removeprefix("python_").replace("_", "-")).new_game(game.num_players(), seed, options)
        while not state.is_terminal():
            assert state.legal_actions() == reference.legal_actions()
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            reference.apply(action)
            if rng.random() < 0.2:  # clones play on exactly as their originals
                state = state.clone()
        assert state.game.log == reference.log and state.returns() == [float(s) for s in reference.scores]


def test_openspiel_mcts_bot_plays_a_knorri_hand():
    game = pyspiel.load_game("python_knorri", {"players": 3})
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(state.legal_actions()[-1 if state.game.phase == 1 else 0])
    assert sum(state.returns()) == 0 and len(state.returns()) == 3


# ----- clone, resample, ISMCTS ------------------------------------------------------------------

GAMES = [("python_knorri", {"players": 4}), ("python_knockout_whist", {"players": 4}),
         ("python_knockout_whist", {"players": 3, "card_exchange": True, "dogs_life": True}),
         ("python_kort", {"target_wins": 2})]


def random_states(name, params, count, seed=0):
    """``count`` states of random deals, each some random number of decisions in (never terminal)."""
    import random

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for byte in rng.randbytes(openspiel_game.SEED_BYTES):
            state.apply_action(byte)
        for _ in range(rng.randint(0, 120) if rng.random() < 0.6 else rng.randint(0, 3)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            states.append(state)
    return states


@pytest.mark.parametrize("name, params", GAMES)
def test_a_clone_is_independent_of_its_original(name, params):
    for state in random_states(name, params, 6):
        before = [state.information_state_string(p) for p in range(state.num_players())]
        twin = state.clone()
        assert twin.history() == state.history() and str(twin) == str(state)
        while not twin.is_terminal():
            twin.apply_action(twin.legal_actions()[-1])
        assert [state.information_state_string(p) for p in range(state.num_players())] == before
        assert not state.is_terminal() and state.game.decisions != twin.game.decisions


@pytest.mark.parametrize("name, params", GAMES)
def test_legal_actions_answered_in_python_are_openspiels_own(name, params):
    for state in random_states(name, params, 10, seed=2):
        game = state.get_game()
        chance, finished = game.new_initial_state(), state.clone()
        while not finished.is_terminal():
            finished.apply_action(finished.legal_actions()[0])
        for probe in (chance, state, finished):
            for player in [None, *range(probe.num_players())]:
                ours = probe.legal_actions() if player is None else probe.legal_actions(player)
                theirs = (pyspiel.State.legal_actions(probe) if player is None
                          else pyspiel.State.legal_actions(probe, player))
                assert ours == theirs


def _voids_shown(game, seat, since_kind, exempt=()):
    """Suits ``seat`` failed to follow in the current deal, read from the public log (knocks ignored)."""
    events = list(game.log)
    start = max(i for i, event in enumerate(events) if event["kind"] == since_kind)
    tricks = [event["plays"] for event in events[start:] if event["kind"] == "trick"] + [list(game.trick)]
    voids = set()
    for plays in tricks:
        cards = [(s, c) for s, c in plays if c < 52]
        for s, c in cards[1:]:
            if s == seat and s not in exempt and c // 13 != cards[0][1] // 13:
                voids.add(cards[0][1] // 13)
    return voids


@pytest.mark.parametrize("name, params", GAMES)
def test_a_resampled_state_agrees_with_the_movers_information_state(name, params):
    sampler = pyspiel.UniformProbabilitySampler(11, 0.0, 1.0)
    states = random_states(name, params, 25, seed=3)
    phases = {int(state.game.phase) for state in states}  # the deals' stages (exchange, trumps), not only tricks
    assert len(phases) >= 2 or (name == "python_knockout_whist" and not params.get("card_exchange"))
    assert name != "python_kort" or 0 in phases
    for state in states:
        player = state.current_player()
        onlooker = (player + 1) % state.num_players()
        world = state.resample_from_infostate(onlooker, sampler)
        assert world.information_state_string(onlooker) == state.information_state_string(onlooker)
        for _ in range(3):
            world = state.resample_from_infostate(player, sampler)
            assert world.current_player() == player
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.observation_string(player) == state.observation_string(player)
            assert world.legal_actions() == state.legal_actions()
            game = world.game
            if name != "python_knorri":  # every card in one place, and no card of a suit a seat showed it lacks
                union = 0
                for held in game.hands:
                    assert not union & held
                    union |= held
                assert [h.bit_count() for h in game.hands] == [h.bit_count() for h in state.game.hands]
                assert game.hands[player] == state.game.hands[player]
                kind = "deal" if name == "python_kort" else "hand"
                dogs = () if name == "python_kort" else [s for s in range(game.n_seats) if game.status[s] == 1]
                for seat in range(game.n_seats):
                    for suit in _voids_shown(game, seat, kind, exempt=dogs):
                        assert not game.hands[seat] >> (13 * suit) & 0x1FFF
            while not world.is_terminal():  # the drawn world plays on by the rules
                world.apply_action(world.legal_actions()[0])


def test_a_resampled_kort_deal_replays_to_the_same_public_log_from_its_own_deck():
    """What leads and declarations revealed holds in the drawn world: its deck, dealt afresh at the deal's start by
    the engine's public constructor, replays the deal's decisions to the same public events."""
    from sim.kort.reference import KortMatch
    from sim.kort.worlds import _kort_deal_decisions

    sampler = pyspiel.UniformProbabilitySampler(6, 0.0, 1.0)
    checked = 0
    for state in random_states("python_kort", {"target_wins": 3}, 40, seed=4):
        match = state.game
        if int(match.phase) == 0 or match.deal_no:
            continue
        world = state.resample_from_infostate(state.current_player(), sampler).game
        start = max(i for i, event in enumerate(match.log) if event["kind"] == "deal")
        again = KortMatch.at_round({"target_wins": 3}, match.holder, lambda world=world: list(world.deck),
                                   wins=tuple(match.wins), round_no=match.round_no)
        for action in _kort_deal_decisions(match, match.log[start:]):
            again.apply(action)
        assert again.log[1:] == match.log[start + 1:] and again.hands == world.hands
        checked += 1
    assert checked >= 10


def test_unseen_cards_are_placed_by_matching_when_shuffles_rarely_fit():
    import random

    from sim.worlds import place_cards

    hearts, spades = list(range(26, 39)), list(range(39, 52))
    sets = place_cards(hearts + spades + [0], [13, 1, 13], [0b1000, 0b0001, 0b0100], random.Random(0))
    assert sets == [sum(1 << c for c in spades), 1, sum(1 << c for c in hearts)]


def test_knorri_resamples_the_stock_uniformly_and_reproducibly():
    state = next(s for s in random_states("python_knorri", {"players": 3}, 20, seed=5) if s.game.phase == 1)
    hand = state.game
    unseen = sorted(hand._stock[hand._turn:])
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    draws = 3000
    counts = {card: 0 for card in unseen}
    for _ in range(draws):
        world = state.resample_from_infostate(state.current_player(), sampler).game
        assert sorted(world._stock[world._turn:]) == unseen and world.table == hand.table
        counts[world._stock[world._turn]] += 1
    expected = draws / len(unseen)
    assert all(abs(count - expected) < 5 * np.sqrt(expected) for count in counts.values())
    again = [state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(9, 0.0, 1.0))
             .game._stock for _ in range(2)]
    assert again[0] == again[1]


def test_knockout_whist_deals_unseen_cards_in_proportion_to_hand_sizes():
    game = pyspiel.load_game("python_knockout_whist", {"players": 4})
    state = game.new_initial_state()
    for byte in (5).to_bytes(openspiel_game.SEED_BYTES, "big"):
        state.apply_action(byte)
    player = state.current_player()
    card = next(c for c in range(52) if not state.game.hands[player] >> c & 1 and c != state.game.turned)
    sampler = pyspiel.UniformProbabilitySampler(2, 0.0, 1.0)
    draws = 2000
    where = np.zeros(5)
    for _ in range(draws):
        world = state.resample_from_infostate(player, sampler).game
        seats = [s for s in range(4) if world.hands[s] >> card & 1]
        where[seats[0] if seats else 4] += 1
    unseen = 52 - 7 - 1
    expected = np.array([0 if s == player else 7 / unseen for s in range(4)] + [state.game.stock_left / unseen])
    assert np.all(np.abs(where / draws - expected) < 5 * np.sqrt(expected * (1 - expected) / draws) + 1e-9)


@pytest.mark.parametrize("name, params", [("python_knorri", {"players": 3}), ("python_knockout_whist", {"players": 3}),
                                          ("python_kort", {"target_wins": 1})])
def test_openspiel_ismcts_bot_plays_a_whole_game(name, params):
    from open_spiel.python.algorithms import ismcts

    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 4, random_state=rng)
    state = game.new_initial_state()
    decided = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.randint(256)))
        elif state.current_player() == 0:
            decided += len(state.legal_actions()) > 1
            state.apply_action(int(bot.step(state)))
        else:
            state.apply_action(state.legal_actions()[0])
    assert decided > 0 and sum(state.returns()) == 0


@pytest.mark.parametrize("name, params", GAMES)
def test_states_and_resampled_states_round_trip_through_serialization(name, params):
    game = pyspiel.load_game(name, params)
    sampler = pyspiel.UniformProbabilitySampler(4, 0.0, 1.0)
    for state in random_states(name, params, 3, seed=8):
        for original in (state, state.resample_from_infostate(state.current_player(), sampler)):
            copy = game.deserialize_state(original.serialize())
            assert copy.history() == original.history() and str(copy) == str(original)
            assert [copy.information_state_string(p) for p in range(copy.num_players())] == \
                [original.information_state_string(p) for p in range(original.num_players())]
            assert copy.legal_actions() == original.legal_actions()


def test_a_game_that_draws_no_worlds_refuses_resampling_in_one_line():
    """A game's ``LearningFacts.resample`` is optional: without it, ``resample_from_infostate`` says so and names
    the missing fact, rather than failing inside a search."""
    import dataclasses

    from rl.games import facts
    from sim.errors import GameInputError

    unresampled = dataclasses.replace(facts("knorri"), resample=None)
    blind = type("BlindGame", (openspiel_game.CardGame,), {"FACTS": unresampled})
    state = blind({"players": 3}).new_initial_state()
    for byte in range(openspiel_game.SEED_BYTES):
        state.apply_action(byte)
    with pytest.raises(GameInputError, match=r"^Knorri draws no hidden cards afresh: .*LearningFacts give no resample"):
        state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0, 0.0, 1.0))
