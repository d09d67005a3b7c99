"""The notebooks every game shares run top to bottom without edits (the RL quick start, the see-a-hand
walkthrough), and every notebook is committed without outputs. Each game's own notebook is run in its test folder
(``tests/<game>/test_notebooks.py``)."""

from __future__ import annotations

import nbformat
from notebook_runs import NOTEBOOKS, execute, run_cleanly


def test_rl_quickstart_trains_through_the_vector_env_and_plots_its_curve_beside_random_and_greedy(kernel_dir):
    text, drawn = run_cleanly("rl_quickstart", kernel_dir, NUM_ENVS=32, WINDOW=48, TRAIN_SECONDS=3.0, EVAL_HANDS=64)
    assert "training hands in" in text
    assert all(f"{name:8s} mean score per hand" in text for name in ("learned", "random", "greedy"))
    assert drawn == 1


def test_see_a_hand_notebook_draws_the_reference_hand_and_steps_through_a_deal(kernel_dir):
    notebook = execute("see_a_hand", kernel_dir)
    outputs = [o for c in notebook.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    drawn = [o["data"]["image/svg+xml"] for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(drawn) == 2 and "phase 1" in drawn[0] and "phase 2" in drawn[1]
    assert sum("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs) == 1
    assert "Knorri, 4 seats, seed 7" in "".join(o.get("text", "") for o in outputs)


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), path.name
