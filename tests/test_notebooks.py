"""The notebooks run top to bottom without edits: on a given small run, and with no run (they make one).

Knockout Whist's notebook also plays its variant and ladder runs, Kort's its ladder run (small ones here).
"""

from __future__ import annotations

import json
import sys

import nbformat
import pytest
from conftest import ROOT
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from experiments.analysis.knockout_whist import sample as knockout_whist_sample
from experiments.analysis.knorri.sample import make_small_run
from experiments.analysis.kort import sample as kort_sample

NOTEBOOKS = ROOT / "notebooks"
KERNEL = "knorri-sim-test"


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernel spec running this interpreter with the project importable, whatever is installed where."""
    folder = tmp_path_factory.mktemp("kernels")
    spec = folder / KERNEL
    spec.mkdir()
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "knorri-sim tests", "language": "python",
        "env": {"PYTHONPATH": str(ROOT), "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
    }))
    return folder


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_small_run(tmp_path_factory.mktemp("notebooks") / "run", hands=120, seed=3)


@pytest.fixture(scope="module")
def knockout_whist_run_dir(tmp_path_factory):
    return knockout_whist_sample.make_small_run(tmp_path_factory.mktemp("notebooks") / "kw-run", games=120, seed=3)


@pytest.fixture(scope="module")
def kort_run_dir(tmp_path_factory):
    return kort_sample.make_small_run(tmp_path_factory.mktemp("notebooks") / "kort-run", matches=60, seed=3)


def execute(name: str, kernel_dir, run_dir=None, **parameters) -> nbformat.NotebookNode:
    """Run a notebook with ``RUN_DIR`` set in its parameters cell (left as None when ``run_dir`` is None; a notebook
    that makes its own data has no ``RUN_DIR``).

    Other ``parameters`` replace the value of the parameter cell's line ``NAME = ...``.
    """
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    cells = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(cells) == 1
    if run_dir is not None:
        assert "RUN_DIR = None" in cells[0].source
        cells[0].source = cells[0].source.replace("RUN_DIR = None", f"RUN_DIR = {str(run_dir)!r}")
    lines = cells[0].source.splitlines()
    for key, value in parameters.items():
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
        lines[index] = f"{key} = {value!r}"
    cells[0].source = "\n".join(lines)
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]))
    client = NotebookClient(notebook, km=manager, timeout=120, resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return notebook


def images(notebook: nbformat.NotebookNode) -> int:
    return sum("image/png" in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))


@pytest.mark.parametrize("name, figures", [("cutoffs", 3), ("scores", 3), ("ladder", 3)])
def test_notebook_runs_on_a_given_run_and_draws_its_figures(name, figures, kernel_dir, run_dir):
    notebook = execute(name, kernel_dir, run_dir)
    assert images(notebook) == figures
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


def test_notebook_makes_its_own_small_run_when_given_none(kernel_dir):
    notebook = execute("cutoffs", kernel_dir)
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "knorri-sample-" in printed and "hands from" in printed
    assert images(notebook) == 3


def test_knockout_whist_notebook_draws_seats_lengths_dogs_variants_and_the_ladder(kernel_dir, knockout_whist_run_dir):
    notebook = execute("knockout_whist", kernel_dir, knockout_whist_run_dir, VARIANT_GAMES=600, LADDER_GAMES=60)
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "600 games from" in printed and "zero-sum violations: 0" in printed
    assert "4,200 games in 7 variants: default, dogs_life=false, safe_first_hand=true" in printed
    assert images(notebook) == 11


def test_kort_notebook_draws_results_the_trump_holder_match_length_and_the_ladder_of_teams(kernel_dir, kort_run_dir):
    notebook = execute("kort", kernel_dir, kort_run_dir, LADDER_MATCHES=16, REDEAL_MATCHES=16)
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "120 matches and " in printed and "zero-sum violations: 0" in printed
    assert "the redeal rule's value to greedy: " in printed and "over 16 matches" in printed
    assert images(notebook) == 5


def test_rl_quickstart_trains_through_the_vector_env_and_plots_its_curve_beside_random_and_greedy(kernel_dir):
    notebook = execute("rl_quickstart", kernel_dir, NUM_ENVS=32, WINDOW=48, TRAIN_SECONDS=3.0, EVAL_HANDS=64)
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "training hands in" in printed
    assert all(f"{name:8s} mean score per hand" in printed for name in ("learned", "random", "greedy"))
    assert images(notebook) == 1


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), path.name
