"""Gymnasium: the single-learner env passes check_env on every game, and the vector env on the compiled engine plays
exactly the runner's deals: with the learner drawing as ``random`` does, every episode's scores are
``play_matches``'s for the same match seeds."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from rl.games import deal_seed  # noqa: E402
from rl.gym_env import SingleSeatEnv  # noqa: E402
from rl.vector_env import BatchVectorEnv  # noqa: E402
from sim.errors import GameInputError, IllegalActionError  # noqa: E402
from sim.games import adapter  # noqa: E402
from sim.knorri.compiled import batch as knorri_batch  # noqa: E402
from sim.rng import SplitMix64, agent_seed  # noqa: E402


@pytest.mark.parametrize("game, n_seats, opponents", [("knorri", 4, "greedy;loginf;random"),
                                                      ("knockout-whist", 3, "greedy"),
                                                      ("kort", 4, "random;greedy;tracker")])
def test_single_seat_env_passes_check_env(game, n_seats, opponents):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbounded Box, no registered spec: warnings, not failures
        check_env(SingleSeatEnv(game, n_seats, seat=1, opponents=opponents))


def test_single_seat_env_rewards_the_learners_score_and_ends_an_illegal_action():
    env = SingleSeatEnv("knockout-whist", 3, seat=2, opponents="greedy")
    observation, _ = env.reset(seed=4)
    done, reward, info = False, 0.0, {}
    while not done:
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        done = terminated or truncated
    assert reward == info["scores"][2] and sum(info["scores"]) == 0
    observation, _ = env.reset()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -2.0 and info["illegal_action"] == illegal


def random_learner_episodes(game, n_seats, seat, steps, options):
    """Every episode's scores by match seed, and which ended truncated, the learner drawing from its own stream as
    RandomAgent does."""
    env = BatchVectorEnv(game, num_envs=8, n_seats=n_seats, seat=seat, opponents="random", options=options)
    observation, info = env.reset(seed=7)
    finished, truncations = {}, {}

    def note(info):
        for match_seed, scores in zip(info.get("skipped_match_seeds", []), info.get("skipped_scores", []), strict=True):
            finished[int(match_seed)] = scores.tolist()

    def stream(match_seed):
        return SplitMix64(agent_seed(deal_seed(int(match_seed)), seat))

    note(info)
    streams = [stream(s) for s in info["match_seed"]]
    for _ in range(steps):
        np.testing.assert_array_equal(observation["observation"], env.batch.observation_tensor())
        np.testing.assert_array_equal(observation["action_mask"], env.batch.legal_mask())
        legal = [np.flatnonzero(row).tolist() for row in observation["action_mask"]]
        actions = np.array([streams[b].choice(legal[b]) for b in range(env.num_envs)])
        observation, rewards, terminated, truncated, info = env.step(actions)
        assert not (terminated & truncated).any()
        for b in np.flatnonzero(terminated | truncated):
            scores = info["final_scores"][b].tolist()
            assert rewards[b] == scores[seat]
            finished[int(info["final_match_seed"][b])] = scores
            truncations[int(info["final_match_seed"][b])] = bool(truncated[b])
            streams[b] = stream(info["match_seed"][b])
        note(info)
    return finished, truncations


@pytest.mark.parametrize("game, n_seats, steps, options", [("knorri", 3, 120, None), ("knockout-whist", 4, 40, None),
                                                            ("kort", 4, 100, {"target_wins": 1})])
def test_vector_env_episodes_score_as_the_runner_when_the_learner_plays_random(game, n_seats, steps, options):
    finished, _ = random_learner_episodes(game, n_seats, 1, steps, options)
    seeds = sorted(finished)
    assert len(seeds) >= 8
    columns = adapter(game).play_matches(n_seats, seeds, [["random"] * n_seats] * len(seeds), 1, options=options,
                                         engine="compiled")
    assert columns.hands["score"].tolist() == [finished[s] for s in seeds]


def test_vector_env_scores_as_the_runner_when_its_hands_outgrow_their_own_history_rows(monkeypatch):
    monkeypatch.setattr(knorri_batch, "_OWN_HISTORY", 4)  # nearly every hand moves to the spill pool
    finished, _ = random_learner_episodes("knorri", 4, 2, 80, None)
    seeds = sorted(finished)
    columns = adapter("knorri").play_matches(4, seeds, [["random"] * 4] * len(seeds), 1, engine="compiled")
    assert columns.hands["score"].tolist() == [finished[s] for s in seeds]


def test_vector_env_refuses_an_illegal_action_and_changes_nothing():
    env = BatchVectorEnv("knorri", num_envs=6, n_seats=4, seat=1, opponents="random")
    observation, _ = env.reset(seed=3)
    for _ in range(20):
        observation, *_ = env.step(observation["action_mask"].argmax(axis=1))
    actions = observation["action_mask"].argmax(axis=1)
    actions[4] = int(np.flatnonzero(observation["action_mask"][4] == 0)[0])
    before = {name: value.copy() for name, value in vars(env.batch).items() if isinstance(value, np.ndarray)}
    with pytest.raises(IllegalActionError, match=f"illegal action {actions[4]} by batch index 4 "):
        env.step(actions)
    with pytest.raises(GameInputError, match="one integer action per hand"):
        env.step(actions[:5])
    for name, value in before.items():
        np.testing.assert_array_equal(value, getattr(env.batch, name), err_msg=name)
    actions[4] = observation["action_mask"][4].argmax()
    env.step(actions)


def test_vector_env_truncates_exactly_the_knorri_hands_the_runner_records_as_cut_off():
    finished, truncations = random_learner_episodes("knorri", 3, 0, 150, None)
    seeds = sorted(truncations)
    columns = adapter("knorri").play_matches(3, seeds, [["random"] * 3] * len(seeds), 1, engine="compiled")
    reasons = [adapter("knorri").END_REASONS[code] for code in columns.hands["end_reason"]]
    assert [truncations[s] for s in seeds] == [reason in ("repeat", "cap") for reason in reasons]
    assert any(truncations.values()) and not all(truncations.values())


def test_vector_env_plays_greedy_opponents_and_refuses_uncompiled_ones():
    env = BatchVectorEnv("knorri", num_envs=4, n_seats=4, seat=0, opponents="greedy;random;greedy")
    observation, _ = env.reset(seed=1)
    assert observation["observation"].shape == (4, env.setup.facts.observation_size)
    assert (observation["action_mask"].sum(axis=1) > 0).all()
    with pytest.raises(GameInputError, match="compiled random, greedy of Knorri, not 'loginf'"):
        BatchVectorEnv("knorri", num_envs=4, n_seats=4, opponents="loginf")
    with pytest.raises(GameInputError, match="compiled random of Kort, not 'greedy'"):
        BatchVectorEnv("kort", num_envs=4, opponents="greedy")
