"""The training loop at a tiny budget: returns, determinism, checkpoints, resume after a kill, the report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents.learned.network import load
from experiments.cli import main
from experiments.runner.routes import play_matches
from experiments.train import selfplay
from experiments.train.loop import CHECKPOINT_FILE, Limits, Method, read_checkpoint, read_evaluations
from sim.rng import derive_seeds
from tests.learned.helpers import random_weights

pytest.importorskip("jax")

from experiments.train.learner import configure_threads  # noqa: E402

configure_threads(1)
TINY = {"eval_deals": 2, "shard_hands": 4}


def tiny_training(out: Path, hands: int, seed: int = 3, **limits: object) -> None:
    from experiments.train.run import train

    train(out, Method("knorri", (4,), {"cap": 1500, "repeat": 2}, seed, **TINY), Limits(hands=hands, **limits),
          progress=False)


def test_every_choice_of_a_seat_returns_the_score_that_seat_finished_the_hand_with(tmp_path):
    weights = random_weights(tmp_path)
    network = load(weights)
    match_seeds = [21, 22, 23]
    seeds = derive_seeds(np.array(match_seeds, dtype=np.uint64), 0)  # the runner deals a match's hand 0 so
    samples = selfplay.play_shard("knorri", 4, seeds, {}, network, epsilon=0.0, opponents={}, stream_seed=0)
    scores = np.asarray(play_matches("knorri", 4, match_seeds, [[f"learned:weights={weights}"] * 4] * 3)
                        .hands["score"], dtype=np.float32)
    choices = choices_by_seat(network, seeds)
    assert samples.decisions == len(samples.returns) == choices.sum() > 0
    assert samples.returns.sum() == pytest.approx(float((scores * choices).sum()))
    assert set(samples.returns.tolist()) == {float(scores[d, s]) for d, s in zip(*np.nonzero(choices), strict=True)}


def choices_by_seat(network, seeds) -> np.ndarray:
    """``[deal, seat]``: the decisions with two legal actions or more in greedy self-play by ``network``."""
    from sim import games

    batch = games.adapter("knorri").LEARNING.new_batch(4, seeds, {})
    counts = np.zeros((len(seeds), 4), dtype=np.int64)
    while (live := np.flatnonzero(batch.to_move >= 0)).size:
        mask = batch.legal_mask(live)
        chosen = live[mask.sum(axis=1) > 1]
        counts[chosen, batch.to_move[chosen]] += 1
        actions = np.full(len(seeds), -1, dtype=np.int64)
        actions[live] = network.best_actions(batch.observation_tensor(live), mask)
        batch.step(actions)
    return counts


def test_engine_policies_hold_the_seats_they_are_drawn_for_and_one_seat_is_always_the_networks():
    rng = np.random.default_rng(0)
    policies = selfplay.opponent_policies(2000, 4, {"greedy": 0.3, "random": 0.2}, {"greedy": 5, "random": 1}, rng)
    assert ((policies == -1).sum(axis=1) >= 1).all()
    assert set(np.unique(policies).tolist()) == {-1, 1, 5}
    assert 0.2 < (policies == 5).mean() < 0.3 < (policies == -1).mean()
    assert (selfplay.opponent_policies(5, 3, {"greedy": 1.0}, {"random": 1}, rng) == -1).all()  # no greedy here


def test_a_known_hands_returns_are_its_final_scores():
    scores = np.array([[-6, 3, 2, 1], [1, 2, 3, -6]], dtype=np.float32)
    returns = selfplay.seat_returns(scores, np.array([0, 0, 1, 1, 0]), np.array([0, 1, 3, 2, 0]))
    assert returns.tolist() == [-6, 3, -6, 3, -6]


def test_one_worker_and_one_thread_give_the_same_first_checkpoint_bit_for_bit(tmp_path):
    for name in ("a", "b"):
        tiny_training(tmp_path / name, hands=32)
    first, counters_a = read_checkpoint(tmp_path / "a" / CHECKPOINT_FILE)
    second, counters_b = read_checkpoint(tmp_path / "b" / CHECKPOINT_FILE)
    assert first.keys() == second.keys() and len(first) > 10
    assert all(first[name].tobytes() == second[name].tobytes() for name in first)
    assert (counters_a.hands, counters_a.decisions) == (counters_b.hands, counters_b.decisions)
    assert (tmp_path / "a" / "weights.npz").exists() and len(read_evaluations(tmp_path / "a")) == 1


def test_a_new_best_is_confirmed_on_deals_that_no_choice_of_weights_used(tmp_path):
    tiny_training(tmp_path / "t", hands=16)
    (first,) = read_evaluations(tmp_path / "t")
    confirmed = first["confirmed"]
    assert confirmed["deals"] == first["deals"] and confirmed["low"] <= confirmed["mean"] <= confirmed["high"]
    assert confirmed["mean"] != first["mean"]  # other deals: a different score (the same would say it reused them)


def test_a_resumed_training_continues_from_its_checkpoint_as_if_never_stopped(tmp_path):
    tiny_training(tmp_path / "whole", hands=32)
    tiny_training(tmp_path / "halves", hands=16)
    tiny_training(tmp_path / "halves", hands=32)
    whole, _ = read_checkpoint(tmp_path / "whole" / CHECKPOINT_FILE)
    halves, counters = read_checkpoint(tmp_path / "halves" / CHECKPOINT_FILE)
    assert counters.hands == 32 and counters.checkpoints == 2
    assert all(whole[name].tobytes() == halves[name].tobytes() for name in whole)


def test_a_training_killed_mid_way_resumes_from_its_last_checkpoint_and_reaches_another(tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "experiments.cli", "train", "--hands", "100000", "--checkpoint-hands", "16",
               "--eval-deals", "1", "--seed", "5", "--no-progress", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        deadline = time.monotonic() + 240
        while not (out / CHECKPOINT_FILE).exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert (out / CHECKPOINT_FILE).exists()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    _, before = read_checkpoint(out / CHECKPOINT_FILE)
    assert main(["train", "--resume", "--hands", str(before.hands + 16), "--checkpoint-hands", "16",
                 "--eval-deals", "1", "--seed", "5", "--no-progress", "--out", str(out)]) == 0
    _, after = read_checkpoint(out / CHECKPOINT_FILE)
    assert after.hands > before.hands and after.checkpoints > before.checkpoints


def test_the_report_of_a_training_draws_its_learning_curve_and_writes_its_model_card(tmp_path, capsys):
    tiny_training(tmp_path / "t", hands=16)
    assert main(["report", str(tmp_path / "t")]) == 0
    card = (tmp_path / "t" / "report" / "report.md").read_text()
    assert "# Model card: learned, Knorri" in card and "sha256" in card and "| 16 |" in card
    assert "other deals |" in card  # the best weights' score on deals that did not choose them
    assert (tmp_path / "t" / "report" / "learning_curve.png").stat().st_size > 1000


def test_shipping_puts_a_trainings_best_weights_where_learned_plays_them_with_their_card(tmp_path, monkeypatch):
    import hashlib

    from agents.learned import agent as learned_agent
    from experiments.train.ship import ship

    tiny_training(tmp_path / "t", hands=8)
    monkeypatch.setattr(learned_agent, "WEIGHTS_DIR", tmp_path / "weights")
    best = (tmp_path / "t" / "best.npz").read_bytes()
    assert ship(tmp_path / "t") == learned_agent.shipped_weights("knorri") == tmp_path / "weights" / "knorri.npz"
    assert learned_agent.shipped_weights("knorri").read_bytes() == best
    card = (tmp_path / "weights" / "knorri.md").read_text()
    assert f"the file's sha256 `{hashlib.sha256(best).hexdigest()}`" in card


def test_a_training_at_several_seat_counts_is_judged_at_each_count_and_chooses_by_their_mean(tmp_path):
    from experiments.train.evaluate import evaluate
    from experiments.train.report import model_card
    from experiments.train.run import evaluation_line, train

    out, options = tmp_path / "t", {"cap": 1500, "repeat": 2}
    train(out, Method("knorri", (3, 5), options, 3, **TINY), Limits(hands=8), progress=False)
    (row,) = read_evaluations(out)
    by_seats = row["by_seats"]
    assert list(by_seats) == ["3", "5"] and set(row["confirmed"]["by_seats"]) == {"3", "5"}
    for n, part in by_seats.items():  # each count on the deals a training at that count alone is scored on
        alone = evaluate("knorri", int(n), str(out / "weights.npz"), 3, TINY["eval_deals"], options)
        assert (part["mean"], part["low"], part["rows"]) == (alone["mean"], alone["low"], alone["rows"])
    assert row["mean"] == pytest.approx((by_seats["3"]["mean"] + by_seats["5"]["mean"]) / 2)
    assert row["low"] < row["mean"] < row["high"]
    assert "3 seats" in evaluation_line(row) and "5 seats" in evaluation_line(row)
    assert "| 3 seats | 5 seats |" in model_card(out) and "the mean over the seat counts, 3 seats " in model_card(out)
    # a folder resumed from a training that scored its first count alone: that row is the first count's, no mean
    older = {**row, "mean": 0.25, "low": 0.2, "high": 0.3, "hands": 4, "cpu_seconds": 1.0}
    del older["by_seats"], older["confirmed"]
    lines = (out / "evaluations.jsonl").read_text()
    (out / "evaluations.jsonl").write_text(json.dumps(older) + "\n" + lines)
    assert "| 4 | 0.0 | 2 | random | - | - | +0.250 | - |" in model_card(out)
    assert main(["report", str(out)]) == 0 and (out / "report" / "learning_curve.png").exists()


def test_a_training_at_several_seat_counts_scales_its_inputs_for_every_count():
    from experiments.train.loop import input_scale

    options = {"cap": 1500, "repeat": 2}
    alone = [input_scale(Method("knorri", (n,), options, 3, **TINY)) for n in (3, 6)]
    both = input_scale(Method("knorri", (3, 6), options, 3, **TINY))
    np.testing.assert_array_equal(both, np.minimum(*alone))
    assert (both < alone[0]).any()  # the sixth seat's card count, say, is zero at three seats


def test_the_best_evaluation_is_chosen_among_those_scored_as_the_latest():
    from experiments.train.loop import best_of

    first_count_alone = {"mean": 0.2}  # a folder trained before every seat count was scored
    by_counts = [{"mean": mean, "by_seats": {"3": {"mean": mean}, "6": {"mean": mean}}} for mean in (-0.1, 0.05, 0.01)]
    assert best_of([first_count_alone, *by_counts]) is by_counts[1]
    assert best_of([*by_counts, first_count_alone]) is first_count_alone


@pytest.mark.parametrize(("arguments", "message"), [
    (["--seats", "9"], "--seats: "),
    (["--seats", "four"], "--seats takes seat counts separated by commas"),
    ([], "give --budget MINUTES"),
    (["--hands", "0"], "--hands must be at least 1"),
    (["--budget", "-1"], "--budget must be a positive number"),
    (["--hands", "8", "--option", "cap=0"], "cap"),
    (["--hands", "8", "--teacher", "zzz"], "unknown agent 'zzz'"),
    (["--hands", "8", "--teacher", "mcts:iters=lots"], "iters='lots' is not a valid int"),
    (["--hands", "8", "--teacher", "greedy", "--student-share", "1.5"], "--student-share is a chance from 0 to 1"),
    (["--hands", "8", "--student-share", "0.5"], "--student-share needs --teacher"),
    (["--hands", "8", "--opponents", "greedy"], "--opponents takes NAME=CHANCE pairs"),
    (["--hands", "8", "--opponents", "loginf=0.2"], "'loginf' is not one of Knorri's engine policies for self-play"),
    (["--hands", "8", "--teacher", "greedy", "--opponents", "zzz=0.2"], "'zzz' is not one of Knorri's agents"),
    (["--hands", "8", "--opponents", "greedy=1.5"], "each agent once, with a chance from 0 to 1"),
    (["--hands", "8", "--opponents", "greedy=0.6,random=0.6"], "the chances add up to 1.2, more than 1"),
    (["--hands", "8", "--eval-others", "zzz"], "unknown agent 'zzz'"),
])
def test_bad_training_input_is_one_line_and_exit_2(tmp_path, capsys, arguments, message):
    assert main(["train", "--out", str(tmp_path / "t"), *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error


@pytest.mark.parametrize("teacher", [[], ["--teacher", "greedy"]])
def test_opponents_set_the_table_the_network_learns_at(tmp_path, capsys, teacher):
    import json

    out = tmp_path / "t"
    assert main(["train", "--hands", "4", "--opponents", "greedy=0.75", "--eval-deals", "2", "--no-progress",
                 "--out", str(out), *teacher]) == 0
    method = json.loads((out / "training.json").read_text())["method"]
    assert method["teacher_opponents" if teacher else "opponents"] == {"greedy": 0.75}
    assert main(["report", str(out)]) == 0
    assert "greedy 75%" in (out / "report" / "report.md").read_text()


def test_eval_others_sets_the_untested_seats_of_every_evaluation(tmp_path, capsys):
    import json

    out = tmp_path / "t"
    assert main(["train", "--hands", "4", "--eval-others", "greedy", "--eval-deals", "2", "--no-progress",
                 "--out", str(out)]) == 0
    evaluations = [json.loads(line) for line in (out / "evaluations.jsonl").read_text().splitlines()]
    assert evaluations and {row["others"] for row in evaluations} == {"greedy"}


def test_a_folder_of_another_training_or_nothing_to_resume_is_refused(tmp_path, capsys):
    tiny_training(tmp_path / "t", hands=16)
    assert main(["train", "--hands", "16", "--seed", "4", "--out", str(tmp_path / "t")]) == 2
    assert "holds another training" in capsys.readouterr().err
    assert main(["train", "--hands", "16", "--resume", "--out", str(tmp_path / "new")]) == 2
    assert "holds no checkpoint to resume from" in capsys.readouterr().err


def test_a_training_folder_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "plain").write_text("")
    assert main(["train", "--hands", "8", "--out", str(tmp_path / "plain" / "training")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write the training folder there" in err, err
