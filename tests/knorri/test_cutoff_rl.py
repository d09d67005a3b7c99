"""The RL environments take Knorri's cut-off options (as each library passes game parameters) and truncate a hand
by the table's cap and repeat rule."""

from __future__ import annotations

import numpy as np
import pytest

from rl.gym_env import SingleSeatEnv
from rl.pettingzoo_env import raw_env
from sim.errors import GameInputError


def test_pettingzoo_hands_are_truncated_at_the_tables_cap():
    env = raw_env(game="knorri", n_seats=4, options={"cap": 6})
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        assert (env.game.cap, env.game.repeat) == (6, 2)
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        if env.game.end_reason == "cap":
            assert env.game.phase2_actions == 6 and all(env.truncations.values())
            assert env.infos["player_0"]["end_reason"] == "cap"


def test_gym_single_seat_env_truncates_at_the_tables_cap():
    env = SingleSeatEnv(game="knorri", n_seats=3, seat=0, opponents="greedy", options={"cap": "8", "repeat": "0"})
    observation, _ = env.reset(seed=1)
    assert (env.game.cap, env.game.repeat) == (8, 0)
    rng = np.random.default_rng(1)
    truncated = terminated = False
    while not (truncated or terminated):
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, _, terminated, truncated, _ = env.step(action)
    assert env.game.phase2_actions <= 8
    assert truncated == (env.game.end_reason == "cap")


def test_environments_refuse_out_of_range_options_in_one_line():
    with pytest.raises(GameInputError, match="repeat must be 0 .* from 2 to 10, not 1"):
        raw_env(game="knorri", n_seats=4, options={"repeat": 1})
    with pytest.raises(GameInputError, match="cap must be .* from 1 to 1,000,000, not 0"):
        SingleSeatEnv(game="knorri", n_seats=4, options={"cap": 0})


def test_openspiel_takes_the_options_as_game_parameters():
    pyspiel = pytest.importorskip("pyspiel")
    from rl import openspiel_game  # noqa: F401  (registers the games)

    default = pyspiel.load_game("python_knorri", {"players": 3})
    game = pyspiel.load_game("python_knorri", {"players": 3, "cap": 12, "repeat": 3})
    assert default.get_parameters()["cap"] == 1500 and default.get_parameters()["repeat"] == 2
    assert game.get_parameters()["cap"] == 12 and game.get_parameters()["repeat"] == 3
    assert game.max_game_length() == openspiel_game.SEED_BYTES + 43 + 12
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(256)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert (state.game.cap, state.game.repeat) == (12, 3) and state.game.phase2_actions <= 12
    with pytest.raises(Exception, match="cap must be"):
        pyspiel.load_game("python_knorri", {"players": 3, "cap": 0})
