"""A long run, or one writing a large action log, says so before it starts, from the compiled
engine's measured rate or the CPU time of a short sample; a short run says nothing."""

from __future__ import annotations

import pytest

from experiments.cli import main
from experiments.runner import estimate
from experiments.runner.config import build_config
from experiments.runner.execute import plan_run
from experiments.runner.plan import PYTHON_CHUNK_HANDS, plays_at_engine_speed
from sim import games


def _tasks(**raw):
    return plan_run(build_config({"out": "unused", **raw})).tasks


def test_a_long_compiled_run_is_estimated_from_the_engines_rate_at_its_seat_count_measured_now():
    # long enough to be over LONG_RUN_SECONDS at any rate the engine reaches (a tenth as many was not, on a quiet
    # machine: no line was printed)
    hands = 500_000_000
    tasks = _tasks(seats=[4], agents=["random"], hands=hands)
    guess = estimate.estimate_run(tasks, tasks[0].adapter, engine_speed=True, log_actions=False, workers=2)
    assert "hands at 4 seats" in guess.basis and "on the compiled engine" in guess.basis
    rate = float(guess.basis.split("(")[1].split(" a CPU second")[0].replace(",", ""))
    assert guess.seconds == pytest.approx(hands / rate / 2, rel=1e-3) and guess.action_bytes is None
    # the engine's sampled rate, not the adapter's slowest-seat-count figure: 4 seats play far faster than 6
    assert rate > games.adapter("knorri").BENCH.compiled_rows_per_s
    line = estimate.warning(guess, 2)
    assert line.startswith("knorri-sim: this run will take about") and "\n" not in line


def test_every_table_of_a_run_is_timed_at_its_own_seat_count():
    tasks = _tasks(tables=[{"seats": 3, "agents": ["random"]}, {"seats": 6, "agents": ["random"]}],
                   hands=20_000_000)
    guess = estimate.estimate_run(tasks, tasks[0].adapter, engine_speed=True, log_actions=False, workers=2)
    assert "at 3 seats" in guess.basis and "at 6 seats" in guess.basis


def test_a_short_run_says_nothing():
    tasks = _tasks(seats=[4], agents=["random"], hands=1000)
    assert estimate.warning(estimate.estimate_run(tasks, tasks[0].adapter, True, False, 2), 2) is None


def test_a_python_lineup_is_estimated_from_a_sample_that_counts_its_decisions():
    tasks = _tasks(game="kort", seats=[4], agents=["greedy", "random", "greedy", "random"], hands=2000,
                   options={"target_wins": 1}, log_actions=True)
    guess = estimate.estimate_run(tasks, tasks[0].adapter, engine_speed=False, log_actions=True, workers=1)
    assert guess.seconds > 0 and "CPU time of a sample of" in guess.basis
    per_match = guess.action_bytes / 2000 / estimate.ACTION_ROW_BYTES  # decisions of a match to one round won
    assert 7 * 4 <= per_match <= 13 * 4 * 8  # at least 7 tricks of 4 cards; a few redeals at most


def test_only_lineups_the_engine_plays_alone_count_as_engine_speed():
    assert plays_at_engine_speed("knorri", [("random", "greedy", "random")])
    assert not plays_at_engine_speed("knorri", [("random", "greedy", "random"), ("random", "loginf", "mcts")])
    assert not plays_at_engine_speed("knockout-whist", [("tracker",) * 4])


def test_a_compiled_search_lineup_is_sampled_and_cut_into_small_chunks():
    plan = plan_run(build_config({"out": "unused", "seats": [4], "agents": ["mcts:iters=200"], "hands": 1_000_000}))
    assert plan.chunk_hands == PYTHON_CHUNK_HANDS  # the engine's 20,000-hand chunks would take hours each
    guess = estimate.estimate_run(plan.tasks, plan.config.adapter, engine_speed=False, log_actions=False, workers=2)
    assert "CPU time of a sample of" in guess.basis and guess.action_bytes is None
    engine_seconds = 1_000_000 / games.adapter("knorri").BENCH.compiled_rows_per_s / 2
    assert guess.seconds > engine_seconds * 20  # far slower than the engine
    assert "this run will take about" in estimate.warning(guess, 2)


def test_a_large_action_log_is_announced_in_gigabytes():
    line = estimate.warning(estimate.Estimate(10.0, 3.2e9, "a sample"), 2)
    assert "its action log (--log-actions) will take about 3.2 GB" in line and "take about 10" not in line


def test_run_prints_the_estimate_before_a_long_run_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(estimate, "LONG_RUN_SECONDS", 0.0)  # every run is "long": this one is small and quick
    assert main(["run", "--seats", "3", "--agents", "random", "--hands", "30", "--out", str(tmp_path / "r"),
                 "--workers", "1", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "knorri-sim: this run will take about 0 s on 1 worker (more on a busy machine)" in err


def test_a_run_from_python_shows_a_progress_bar_when_asked(tmp_path, capsys):
    from experiments.runner.execute import run_experiment

    config = build_config({"seats": [3], "agents": ["random"], "hands": 30, "workers": 1, "out": str(tmp_path)})
    run_experiment(config, tmp_path, progress=True)  # tqdm.auto: a widget in Jupyter, text here even off a terminal
    assert "30/30" in capsys.readouterr().err
    run_experiment(config, tmp_path / "quiet")
    assert capsys.readouterr().err == ""
