"""Knockout Whist's notebook runs top to bottom without edits on a small run, and plays its variant and ladder runs."""

from __future__ import annotations

from notebook_runs import run_cleanly

from experiments.analysis.knockout_whist import sample as knockout_whist_sample


def test_knockout_whist_notebook_draws_seats_lengths_dogs_variants_and_the_ladder(kernel_dir, tmp_path):
    run_dir = knockout_whist_sample.make_small_run(tmp_path / "kw-run", games=120, seed=3)
    text, drawn = run_cleanly("knockout_whist", kernel_dir, run_dir, VARIANT_GAMES=600, LADDER_GAMES=60)
    assert "600 games from" in text and "zero-sum violations: 0" in text
    assert "4,200 games in 7 variants: default, dogs_life=false, safe_first_hand=true" in text
    assert drawn == 11
