"""Every game's batch says why each entry ended by name (``end_reason``), as the reference engine does, and the
batch results' integer codes have names (``KnorriBatch.end_reason`` is documented in docs/engines.md)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.knockout_whist.compiled.batch import KnockoutWhistBatch
from sim.knockout_whist.compiled.batch import play_batch as play_knockout_whist
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knorri.compiled.batch import KnorriBatch
from sim.knorri.compiled.batch import play_batch as play_knorri
from sim.knorri.reference import KnorriHand
from sim.kort.compiled.batch import RESULTS, KortBatch
from sim.kort.compiled.batch import play_batch as play_kort
from sim.kort.reference import KortMatch

SEEDS = range(12)
GAMES = {
    "knorri": (lambda seeds: KnorriBatch.from_seeds(4, seeds), lambda seed: KnorriHand.from_seed(4, seed)),
    "knockout-whist": (lambda seeds: KnockoutWhistBatch.from_seeds(seeds, {"players": 3}),
                       lambda seed: KnockoutWhistGame({"players": 3}, seed=seed)),
    "kort": (lambda seeds: KortBatch.from_seeds(seeds, {"target_wins": 1}),
             lambda seed: KortMatch({"target_wins": 1}, seed=seed)),
}


def _play_lowest_legal(batch) -> None:
    assert (batch.end_reason == "").all() and (batch.end_reason_code == -1).all()
    while not batch.done.all():
        mask = batch.legal_mask()
        batch.step(np.where(mask.any(axis=1), mask.argmax(axis=1), 0))


def _reference_lowest_legal(game):
    while not game.done:
        game.apply(game.legal_actions()[0])
    return game


@pytest.mark.parametrize("name", GAMES)
def test_a_batch_names_each_end_reason_as_the_reference_engine_does(name):
    make_batch, make_game = GAMES[name]
    batch = make_batch(np.array(SEEDS, dtype=np.uint64))
    _play_lowest_legal(batch)
    expected = [_reference_lowest_legal(make_game(seed)).end_reason.value for seed in SEEDS]
    assert batch.end_reason.tolist() == expected
    assert [batch.END_REASONS[code] for code in batch.end_reason_code] == expected


def test_knorri_batch_results_name_their_end_reason_codes():
    results = play_knorri(4, range(200))
    names = results.end_reasons()
    assert [("out", "repeat", "cap")[code] for code in results.reason] == names
    assert set(names) <= {"out", "repeat", "cap"} and "repeat" in names


def test_knockout_whist_batch_results_name_their_end_reason_codes():
    results = play_knockout_whist({"players": 4}, range(50))
    assert {reason.value for reason in results.end_reasons()} <= {"last_trick", "last_standing", "rainbow"}


def test_kort_batch_results_name_their_round_result_codes():
    results = play_kort({"target_wins": 2}, range(50))
    names = results.round_result_names()
    assert names.shape == results.round_result.shape
    played = results.round_result >= 0
    assert (names[~played] == "").all()
    assert names[played].tolist() == [RESULTS[code].word for code in results.round_result[played]]
