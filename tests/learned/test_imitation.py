"""Training by imitating a teacher (``knorri-sim train --teacher``): the teacher's own choices are what is kept, the
learner's cross-entropy step moves the network towards them, and a teacher's training is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import make_agent
from experiments.train import imitation
from experiments.train.loop import CHECKPOINT_FILE, Limits, Method, read_checkpoint
from sim import games
from sim.rng import derive_seed

pytest.importorskip("jax")

from experiments.train.learner import Learner, configure_threads  # noqa: E402

configure_threads(1)


def teacher_choices(seed: int, teacher: str = "greedy") -> tuple[list[np.ndarray], list[int]]:
    """The tensors and actions of every choice in one deal played by the teacher at every seat, played by hand."""
    adapter = games.adapter("knorri")
    deal = adapter.deal(4, seed, {})
    players = [make_agent(teacher, game="knorri") for _ in range(4)]
    for seat, player in enumerate(players):
        player.reset(seat, 4, derive_seed(seed, seat))
    tensors, actions = [], []
    while not deal.done:
        legal = deal.legal_actions()
        action = int(players[deal.to_move].act(deal.observation(deal.to_move), legal))
        if len(legal) > 1:
            tensors.append(adapter.LEARNING.acting_tensor(deal))
            actions.append(action)
        deal.apply(action)
    return tensors, actions


def test_a_teachers_shard_keeps_the_teachers_own_choices():
    seeds = np.array([101, 102], dtype=np.uint64)
    samples = imitation.play_teacher_shard("knorri", 4, seeds, {}, "greedy", {}, stream_seed=5)
    tensors, actions = zip(*(teacher_choices(int(seed)) for seed in seeds), strict=True)
    expected_actions = [a for deal in actions for a in deal]
    assert samples.decisions == len(expected_actions) > 0
    assert samples.actions.tolist() == expected_actions
    assert np.array_equal(samples.observations, np.array([t for deal in tensors for t in deal], dtype=np.float16))
    assert samples.masks[np.arange(samples.decisions), samples.actions].all()  # the teacher's action is legal
    assert (samples.masks.sum(axis=1) > 1).all()  # a forced move teaches nothing


def test_one_seat_of_every_deal_is_the_teachers_and_the_others_are_drawn_by_their_chances():
    roles = imitation.seat_roles(3000, 4, "mcts", {"greedy": 0.5, "random": 0.25}, np.random.default_rng(0))
    roles = np.array(roles)
    assert ((roles == "mcts").sum(axis=1) >= 1).all()
    assert 0.3 < (roles == "greedy").mean() < 0.5 and 0.15 < (roles == "random").mean() < 0.25


def test_the_imitation_step_moves_the_network_towards_the_teachers_choices():
    samples = imitation.play_teacher_shard("knorri", 4, np.arange(1, 9, dtype=np.uint64), {}, "greedy", {}, 1)
    facts = games.adapter("knorri").LEARNING
    from agents.learned.network import random_network

    network = random_network(facts.observation_size, facts.num_actions, (64, 32), seed=0,
                             scale=np.full(facts.observation_size, 0.25, dtype=np.float32))
    learner = Learner(network, 1e-3)

    def agreement() -> float:
        picks = learner.network().best_actions(samples.observations.astype(np.float32), samples.masks)
        return float((picks == samples.actions).mean())

    before = agreement()
    losses = [learner.imitate(samples.observations, samples.masks, samples.actions) for _ in range(150)]
    assert losses[-1] < losses[0] * 0.7 and agreement() > max(before + 0.2, 0.6)


@pytest.mark.parametrize("student_share, hands", [(0.0, 8), (0.5, 16)])  # the student plays from generation 2
def test_a_teachers_training_gives_the_same_first_checkpoint_bit_for_bit(tmp_path, student_share, hands):
    from experiments.train.run import train

    method = Method("knorri", (4,), {}, 3, eval_deals=2, shard_hands=2, teacher="greedy",
                    teacher_opponents={"random": 0.5}, learning_rate=1e-3, passes=2, student_share=student_share)
    for name in ("a", "b"):
        train(tmp_path / name, method, Limits(hands=hands), progress=False)
    first, counters = read_checkpoint(tmp_path / "a" / CHECKPOINT_FILE)
    second, _ = read_checkpoint(tmp_path / "b" / CHECKPOINT_FILE)
    assert counters.hands == hands and counters.decisions > 0
    assert all(first[name].tobytes() == second[name].tobytes() for name in first)


def test_a_student_seat_plays_the_networks_moves_and_keeps_the_teachers_choices_as_labels():
    from agents.learned.network import random_network

    adapter = games.adapter("knorri")
    facts = adapter.LEARNING
    network = random_network(facts.observation_size, facts.num_actions, (32, 16), seed=4,
                             scale=np.full(facts.observation_size, 0.25, dtype=np.float32))
    seed = 103
    samples = imitation.play_teacher_shard("knorri", 4, np.array([seed], dtype=np.uint64), {}, "greedy", {}, 5,
                                           network=network, student_share=1.0)
    deal = adapter.deal(4, seed, {})
    teachers = [make_agent("greedy", game="knorri") for _ in range(4)]
    for seat, teacher in enumerate(teachers):
        teacher.reset(seat, 4, derive_seed(seed, seat))
    labels, differs = [], 0
    while not deal.done:
        legal = deal.legal_actions()
        label = int(teachers[deal.to_move].act(deal.observation(deal.to_move), legal))
        action = label
        if len(legal) > 1:
            labels.append(label)
            action = network.best_of(facts.acting_tensor(deal), np.asarray(legal, dtype=np.int64))
            differs += action != label
        deal.apply(action)
    assert samples.actions.tolist() == labels and differs > 0  # the network moved; the teacher's choices are kept


def test_without_a_student_share_the_teacher_plays_every_teacher_seat():
    from agents.learned.network import random_network

    facts = games.adapter("knorri").LEARNING
    network = random_network(facts.observation_size, facts.num_actions, (32, 16), seed=4)
    seeds = np.array([101, 102], dtype=np.uint64)
    alone = imitation.play_teacher_shard("knorri", 4, seeds, {}, "greedy", {"random": 0.5}, 5)
    given = imitation.play_teacher_shard("knorri", 4, seeds, {}, "greedy", {"random": 0.5}, 5, network=network)
    assert alone.actions.tolist() == given.actions.tolist()
    assert np.array_equal(alone.observations, given.observations)
