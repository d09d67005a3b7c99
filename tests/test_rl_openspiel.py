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
