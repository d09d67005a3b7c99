"""Kort's notebook runs top to bottom without edits on a small run, and plays its ladder and redeal runs."""

from __future__ import annotations

from notebook_runs import run_cleanly

from experiments.analysis.kort import sample as kort_sample


def test_kort_notebook_draws_results_the_trump_holder_match_length_and_the_ladder_of_teams(kernel_dir, tmp_path):
    run_dir = kort_sample.make_small_run(tmp_path / "kort-run", matches=60, seed=3)
    text, drawn = run_cleanly("kort", kernel_dir, run_dir, LADDER_MATCHES=16, REDEAL_MATCHES=16)
    assert "120 matches and " in text and "zero-sum violations: 0" in text
    assert "the redeal rule's value to greedy: " in text and "over 16 matches" in text
    assert drawn == 5
