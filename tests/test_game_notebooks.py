"""The Knockout Whist and Kort notebooks, the RL quick start and the see-a-hand walkthrough run top to bottom
without edits (small runs here): Knockout Whist's notebook also plays its variant and ladder runs, Kort's its
ladder run.
"""

from __future__ import annotations

import pytest
from notebook_runs import errors, execute, images, make_kernel_dir, printed

from experiments.analysis.knockout_whist import sample as knockout_whist_sample
from experiments.analysis.kort import sample as kort_sample


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernel spec running this interpreter with the project importable, whatever is installed where."""
    return make_kernel_dir(tmp_path_factory.mktemp("kernels"))


@pytest.fixture(scope="module")
def knockout_whist_run_dir(tmp_path_factory):
    return knockout_whist_sample.make_small_run(tmp_path_factory.mktemp("notebooks") / "kw-run", games=120, seed=3)


@pytest.fixture(scope="module")
def kort_run_dir(tmp_path_factory):
    return kort_sample.make_small_run(tmp_path_factory.mktemp("notebooks") / "kort-run", matches=60, seed=3)


def test_knockout_whist_notebook_draws_seats_lengths_dogs_variants_and_the_ladder(kernel_dir, knockout_whist_run_dir):
    notebook = execute("knockout_whist", kernel_dir, knockout_whist_run_dir, VARIANT_GAMES=600, LADDER_GAMES=60)
    assert not errors(notebook)
    text = printed(notebook)
    assert "600 games from" in text and "zero-sum violations: 0" in text
    assert "4,200 games in 7 variants: default, dogs_life=false, safe_first_hand=true" in text
    assert images(notebook) == 11


def test_kort_notebook_draws_results_the_trump_holder_match_length_and_the_ladder_of_teams(kernel_dir, kort_run_dir):
    notebook = execute("kort", kernel_dir, kort_run_dir, LADDER_MATCHES=16, REDEAL_MATCHES=16)
    assert not errors(notebook)
    text = printed(notebook)
    assert "120 matches and " in text and "zero-sum violations: 0" in text
    assert "the redeal rule's value to greedy: " in text and "over 16 matches" in text
    assert images(notebook) == 5


def test_rl_quickstart_trains_through_the_vector_env_and_plots_its_curve_beside_random_and_greedy(kernel_dir):
    notebook = execute("rl_quickstart", kernel_dir, NUM_ENVS=32, WINDOW=48, TRAIN_SECONDS=3.0, EVAL_HANDS=64)
    assert not errors(notebook)
    text = printed(notebook)
    assert "training hands in" in text
    assert all(f"{name:8s} mean score per hand" in text for name in ("learned", "random", "greedy"))
    assert images(notebook) == 1


def test_see_a_hand_notebook_draws_the_reference_hand_and_steps_through_a_deal(kernel_dir):
    notebook = execute("see_a_hand", kernel_dir)
    outputs = [o for c in notebook.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    drawn = [o["data"]["image/svg+xml"] for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(drawn) == 2 and "phase 1" in drawn[0] and "phase 2" in drawn[1]
    assert sum("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs) == 1
    assert "Knorri, 4 seats, seed 7" in "".join(o.get("text", "") for o in outputs)
