"""The Knorri notebooks run top to bottom without edits: on a given small run, and with no run (they make one).

The other games' notebooks and the two walkthroughs are run in ``test_game_notebooks.py`` (a second file, so the
test workers share the notebooks).
"""

from __future__ import annotations

import nbformat
import pytest
from notebook_runs import NOTEBOOKS, errors, execute, images, make_kernel_dir, printed

from experiments.analysis.knorri.sample import make_small_run


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernel spec running this interpreter with the project importable, whatever is installed where."""
    return make_kernel_dir(tmp_path_factory.mktemp("kernels"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_small_run(tmp_path_factory.mktemp("notebooks") / "run", hands=120, seed=3)


@pytest.mark.parametrize("name, figures", [("cutoffs", 9), ("scores", 3), ("ladder", 3)])
def test_notebook_runs_on_a_given_run_and_draws_its_figures(name, figures, kernel_dir, run_dir):
    notebook = execute(name, kernel_dir, run_dir)
    assert images(notebook) == figures
    assert not errors(notebook)


def test_notebook_makes_its_own_small_run_when_given_none(kernel_dir):
    notebook = execute("cutoffs", kernel_dir, SAMPLE_HANDS=60)
    text = printed(notebook)
    assert "knorri-sample-" in text and "240 hands from" in text
    assert "counterfactual: cap=20000, repeat=0 in" in text and "Ratings: the ranking" in text
    assert images(notebook) == 9


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), path.name
