"""Knorri's notebooks run top to bottom without edits: on a given small run, and with no run (they make one)."""

from __future__ import annotations

import pytest
from notebook_runs import run_cleanly, scratch_folders

from experiments.analysis.knorri.counterfactual import replay_with_options
from experiments.analysis.knorri.sample import make_small_run

PLAY_ON = {"repeat": 0, "cap": 20000}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_small_run(tmp_path_factory.mktemp("notebooks") / "run", hands=120, seed=3)


@pytest.mark.parametrize("name, figures", [("cutoffs", 9), ("scores", 3), ("ladder", 3)])
def test_notebook_runs_on_a_given_run_and_draws_its_figures(name, figures, kernel_dir, run_dir):
    text, drawn = run_cleanly(name, kernel_dir, run_dir)
    assert drawn == figures
    if name == "cutoffs":  # it deals the cut-off hands again into a folder of its own, gone with the kernel
        played = scratch_folders(text, "knorri-counterfactual-")
        assert played and not any(folder.exists() for folder in played)


def test_notebook_makes_its_own_small_run_when_given_none(kernel_dir):
    text, drawn = run_cleanly("cutoffs", kernel_dir, SAMPLE_HANDS=60)
    assert "knorri-sample-" in text and "240 hands from" in text
    played = scratch_folders(text, "knorri-sample-")
    assert played and not any(folder.exists() for folder in played)  # removed when the kernel stopped
    assert "cut-off hands played on past the cut by the run itself under cap=20000, repeat=0" in text
    assert "paired with" not in text and "Ratings: the ranking" in text
    assert drawn == 9


def test_the_cutoffs_notebook_shows_a_continued_run_beside_its_pairing(kernel_dir, tmp_path):
    continued = make_small_run(tmp_path / "continued", hands=30, seed=3, continuation=PLAY_ON, log_actions=True)
    second = replay_with_options(continued, PLAY_ON, tmp_path / "second")
    text, drawn = run_cleanly("cutoffs", kernel_dir, continued, COUNTERFACTUAL_DIR=str(second))
    assert f"played on past the cut by the run itself under cap=20000, repeat=0 and paired with the run in {second}" \
        in text
    assert "Path check: both runs' action logs" in text and drawn == 9
