"""The notebooks run in any Jupyter kernel, with or without ipywidgets, and headless by one documented command."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
from notebook_runs import errors, execute, execute_cells, images, make_kernel_dir, printed

from experiments.analysis.knorri.sample import make_small_run

ROOT = Path(__file__).resolve().parents[1]


# ----- notebooks that run anywhere ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_without_widgets(tmp_path_factory) -> Path:
    """A kernel of this interpreter in which ``import ipywidgets`` fails, as in a Jupyter that lacks it."""
    return make_kernel_dir(tmp_path_factory.mktemp("bare-kernel"), without=("ipywidgets",))


def test_duckdb_is_quiet_in_a_kernel_without_ipywidgets_where_it_refuses_to_change_its_progress_bar(
        kernel_without_widgets):
    checked = execute_cells([
        "try:\n    import ipywidgets\n    print('ipywidgets found')\nexcept ImportError:\n    print('no ipywidgets')",
        "import duckdb\ntry:\n    duckdb.connect().execute('SET enable_progress_bar = false')\n"
        "except duckdb.InvalidInputException as error:\n    print('refused:', error)",
        "from experiments.analysis.duck import connect\nwith connect() as con:\n"
        "    print('progress bar', con.execute(\"SELECT current_setting('enable_progress_bar')\").fetchone()[0])",
    ], kernel_without_widgets)
    assert not errors(checked), errors(checked)
    text = printed(checked)
    assert "no ipywidgets" in text and "refused:" in text and "ipywidgets" in text.split("refused:")[1]
    assert "progress bar False" in text


def test_the_cutoffs_notebook_runs_in_a_kernel_without_ipywidgets(kernel_without_widgets, tmp_path):
    run = make_small_run(tmp_path / "run", hands=24, seed=3)
    notebook = execute("cutoffs", kernel_without_widgets, run)
    assert not errors(notebook), errors(notebook)
    assert images(notebook) > 0


def test_the_notebooks_headless_command_is_on_the_site_and_in_the_notebooks_extra_and_runs(tmp_path):
    page = (ROOT / "notebooks" / "README.md").read_text()
    (command,) = [line.strip() for line in page.splitlines() if line.strip().startswith("jupyter nbconvert")]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(requirement.startswith("nbconvert") for requirement in extras["notebooks"])
    assert "notebooks.md" in (ROOT / "mkdocs.yml").read_text()  # the page is on the site (its text: docs/hooks.py)
    words = shlex.split(command)
    words[words.index("--output-dir") + 1] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", *words], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    ran = nbformat.read(tmp_path / Path(words[words.index("--execute") + 1]).name, as_version=4)
    assert not errors(ran) and images(ran) > 0
