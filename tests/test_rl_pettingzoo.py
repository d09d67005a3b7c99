"""PettingZoo's own suites pass on every game at two seat counts (Kort: two match lengths), and the AEC env keeps
the engines' rules: rewards are the scores at the end, Knorri's cut-offs are truncations, the board renders as text."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from rl import pettingzoo_env  # noqa: E402

SETUPS = [("knorri", 3, None), ("knorri", 5, None), ("knockout-whist", 2, None), ("knockout-whist", 5, None),
          ("kort", 4, None), ("kort", 4, {"target_wins": 1})]


@pytest.mark.parametrize("game, n_seats, options", SETUPS)
def test_pettingzoo_api_and_seed_tests_pass(game, n_seats, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the suite warns that dict observations and all-zero masks are unusual
        api_test(pettingzoo_env.env(game=game, n_seats=n_seats, options=options), num_cycles=200)
        seed_test(functools.partial(pettingzoo_env.env, game=game, n_seats=n_seats, options=options), num_cycles=60)


def play_out(env, seed, pick=0):
    env.reset(seed=seed)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    ended = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        rewards[agent] += reward
        if termination or truncation:
            ended[agent] = "truncation" if truncation else "termination"
            env.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.any() and observation["observation"].any()
        env.step(int(np.flatnonzero(mask)[pick]))
    return rewards, ended


@pytest.mark.parametrize("game, n_seats", [("knorri", 4), ("knockout-whist", 3), ("kort", 4)])
def test_rewards_are_the_reference_scores_at_the_end(game, n_seats):
    env = pettingzoo_env.raw_env(game=game, n_seats=n_seats)
    rewards, ended = play_out(env, seed=11)
    scores = env.unwrapped.game.scores
    assert [rewards[f"player_{s}"] for s in range(n_seats)] == [float(x) for x in scores]
    assert sum(scores) == 0 and set(ended.values()) == {"termination"}


def test_knorri_cut_offs_are_truncations_with_their_scores():
    # Always taking the highest id (picking up whenever one may) repeats a position in this hand: it is cut off.
    env = pettingzoo_env.raw_env(game="knorri", n_seats=3)
    rewards, ended = play_out(env, seed=4, pick=-1)
    game = env.game
    assert game.end_reason.value == "repeat"
    assert set(ended.values()) == {"truncation"}
    assert [rewards[f"player_{s}"] for s in range(3)] == [float(x) for x in game.scores]


def test_only_the_acting_agent_sees_a_tensor_and_a_mask():
    env = pettingzoo_env.raw_env(game="knockout-whist", n_seats=4)
    env.reset(seed=2)
    for agent in env.possible_agents:
        observation = env.observe(agent)
        acting = agent == env.agent_selection
        assert observation["action_mask"].any() == acting and observation["observation"].any() == acting


def test_ansi_render_is_the_board_text():
    env = pettingzoo_env.raw_env(game="knorri", n_seats=4, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "4 seats, phase" in text and "-> seat" in text
