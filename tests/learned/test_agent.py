"""The learned agent plays like a built-in agent: every route, the same choice on each, only what its seat knows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.base import AgentSpecError
from agents.learned import agent as learned_agent
from experiments.cli import main
from experiments.runner.routes import BATCH, choose_route, play_matches
from sim import games
from tests.learned.helpers import random_weights

GAMES = (("knorri", 4, "greedy"), ("knorri", 3, "random"), ("knockout-whist", 4, "greedy"), ("kort", 4, "random"))


@pytest.mark.parametrize(("game", "seats", "other"), GAMES)
def test_act_and_act_batch_make_the_same_choices_so_both_routes_give_the_same_rows(tmp_path, game, seats, other):
    spec = f"learned:weights={random_weights(tmp_path, game)}"
    seatings = [[spec, "random", spec, other, spec, other][:seats]] * 6
    assert choose_route(games.adapter(game), game, seatings, False) == BATCH
    batch = play_matches(game, seats, list(range(40, 46)), seatings).hands
    reference = play_matches(game, seats, list(range(40, 46)), seatings, engine="reference").hands
    for column, values in batch.items():
        assert np.array_equal(np.asarray(values), np.asarray(reference[column])), column


@pytest.mark.parametrize(("seats", "seed"), [(3, 11), (4, 12), (5, 13), (6, 14), (4, 15)])
def test_knorris_tensor_from_an_observation_is_the_batchs_at_every_decision(seats, seed):
    adapter = games.adapter("knorri")
    hand = adapter.deal(seats, seed, {})
    encoders = [learned_agent.encoder_for("knorri", seats) for _ in range(seats)]
    rng = np.random.default_rng(5)
    checked = 0
    while not hand.done:
        seat = hand.to_move
        expected = adapter.LEARNING.acting_tensor(hand)
        assert np.array_equal(encoders[seat](hand.observation(seat)), expected), (checked, hand.phase)
        legal = hand.legal_actions()
        hand.apply(int(legal[rng.integers(len(legal))]))
        checked += 1
    assert checked > 20


def test_learned_plays_through_play_run_duel_league_and_replay(tmp_path, capsys):
    spec = f"learned:weights={random_weights(tmp_path)}"
    assert main(["play", "--seats", "4", "--seed", "3", "--agents", f"{spec};greedy;random;loginf"]) == 0
    assert "seat 0:" in capsys.readouterr().out
    assert main(["run", "--seats", "4", "--agents", spec, "--hands", "40", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "run")]) == 0
    assert main(["duel", spec, "greedy", "--seats", "4", "--max-deals", "4", "--workers", "1", "--no-progress",
                 "--json", "--out", str(tmp_path / "duel")]) == 0
    verdict = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert verdict["deals"] == 4
    assert main(["league", "--seats", "3", "--agents", f"{spec},greedy,random", "--deals", "1", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path / "league")]) == 0
    assert main(["replay", "--seed", "5", "--agents", f"{spec};greedy;random;loginf",
                 "--out", str(tmp_path / "hand.html")]) == 0
    assert (tmp_path / "hand.html").stat().st_size > 1000


def test_learned_is_deterministic_and_draws_nothing(tmp_path):
    spec = f"learned:weights={random_weights(tmp_path)}"
    seatings = [[spec] * 4] * 4
    first = play_matches("knorri", 4, [7, 8, 9, 10], seatings).hands
    again = play_matches("knorri", 4, [7, 8, 9, 10], seatings).hands
    assert np.array_equal(first["decisions_crc32"], again["decisions_crc32"])


def test_a_game_without_shipped_weights_names_the_command_that_makes_them(tmp_path, monkeypatch):
    monkeypatch.setattr(learned_agent, "WEIGHTS_DIR", tmp_path)
    with pytest.raises(AgentSpecError, match="no weights are shipped for kort yet: train some with knorri-sim train"):
        make_agent("learned", game="kort")
    with pytest.raises(AgentSpecError, match="weights file .*missing.npz' does not exist"):
        make_agent(f"learned:weights={tmp_path / 'missing.npz'}", game="kort")


def test_learned_sits_at_the_rl_interfaces_tables_and_plays_the_learner_through_its_observation(tmp_path):
    pytest.importorskip("gymnasium")
    from rl.gym_env import SingleSeatEnv

    weights = random_weights(tmp_path)
    env = SingleSeatEnv("knorri", 4, seat=1, opponents=f"learned:weights={weights}")
    observation, _ = env.reset(seed=4)
    network = learned_agent.load_network("knorri", str(weights))
    done = False
    while not done:
        action = int(network.best_actions(observation["observation"][None], observation["action_mask"][None])[0])
        observation, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert env.game.done
