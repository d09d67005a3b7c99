"""The learned agent's network: the weights file, the compiled forward pass and the greedy choice."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned.agent import WEIGHTS_DIR
from agents.learned.network import WeightsError, best_legal, load, random_network
from tests.learned.helpers import random_weights


def test_the_compiled_forward_pass_equals_the_training_librarys_on_random_inputs(tmp_path):
    pytest.importorskip("jax")
    from experiments.train.learner import Learner

    network = random_network(60, 9, (48, 24), seed=3)
    rng = np.random.default_rng(0)
    network.scale = rng.uniform(0.01, 1.0, 60).astype(np.float32)
    for name in ("b1", "b2", "b3"):
        setattr(network, name, rng.standard_normal(getattr(network, name).shape).astype(np.float32))
    inputs = np.where(rng.random((200, 60)) < 0.3, rng.integers(0, 40, (200, 60)), 0).astype(np.float32)
    expected = Learner(network, 1e-3).q_values(inputs)
    assert np.allclose(network.q_values(inputs), expected, rtol=1e-5, atol=1e-5)


def test_a_row_is_scored_alike_alone_and_in_a_batch():
    network = random_network(40, 7, (16, 8), seed=2)
    inputs = (np.random.default_rng(1).random((50, 40)) < 0.4).astype(np.float32)
    together = network.q_values(inputs)
    assert all(np.array_equal(network.q_values(inputs[i:i + 1])[0], together[i]) for i in range(50))


def test_the_choice_is_the_legal_action_of_highest_value_and_the_lowest_id_among_equals():
    q = np.array([[5.0, 1.0, 3.0, 3.0], [2.0, 2.0, 2.0, 0.0], [-1.0, -3.0, -2.0, -9.0]], dtype=np.float32)
    legal = np.array([[False, True, True, True], [False, True, True, True], [False, True, True, False]])
    assert best_legal(q, legal).tolist() == [2, 1, 2]


def test_the_weights_file_keeps_every_array_and_its_digest(tmp_path):
    path = random_weights(tmp_path)
    network = load(path)
    assert network.sha256() == load(path).sha256()
    assert network.meta["game"] == "knorri" and network.meta["format"] == 1
    network.save(tmp_path / "copy.npz")
    assert load(tmp_path / "copy.npz").sha256() == network.sha256()


def test_weights_for_another_game_or_tensor_are_refused_in_one_line(tmp_path):
    path = random_weights(tmp_path, game="kort")
    with pytest.raises(WeightsError, match="was trained for kort, not knorri"):
        load(path, game="knorri")
    with pytest.raises(WeightsError, match="reads 416 inputs; this game's observation tensor has 622"):
        load(path, observation_size=622)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(WeightsError, match="is not a learned agent's .npz"):
        load(tmp_path / "junk.npz")
    with pytest.raises(WeightsError, match="does not exist"):
        load(tmp_path / "missing.npz")


SHIPPED = sorted(WEIGHTS_DIR.glob("*.npz"))


def test_every_game_ships_weights_for_learned():
    from agents.learned.agent import shipped_weights

    assert {shipped_weights(game) for game in ("knorri", "knockout-whist", "kort")} <= set(SHIPPED)


@pytest.mark.parametrize("weights", SHIPPED, ids=lambda path: path.stem)
def test_a_shipped_model_card_gives_its_weights_file_and_array_digests(weights):
    import hashlib

    card = weights.with_suffix(".md").read_text()
    assert f"the file's sha256 `{hashlib.sha256(weights.read_bytes()).hexdigest()}`" in card
    assert f"its arrays' `{load(weights).sha256()}`" in card
