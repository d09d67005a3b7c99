"""What an install holds and reads: a wheel of only the current tree and the license, the README's snippets
reading a run as written, and extras split by purpose with `test` pulling in every one the suite needs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from experiments.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _build_wheel(tree: Path, into: str) -> zipfile.ZipFile:
    """Build the tree's wheel with pip (build isolation, as ``pip install .`` does) and open it."""
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", into, "."], cwd=tree,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    return zipfile.ZipFile(next((tree / into).glob("*.whl")))


def test_a_wheel_holds_only_the_current_tree_and_the_license(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tree / name)
    for name in ("backend", "sim", "agents", "rl", "experiments", "seeds", "docs"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    stray = tree / "sim" / "stray_module.py"
    stray.write_text('"""A module deleted after the first build."""\n')
    assert "sim/stray_module.py" in _build_wheel(tree, "first").namelist()
    stray.unlink()
    names = _build_wheel(tree, "second").namelist()
    assert "sim/stray_module.py" not in names and "sim/harness.py" in names
    assert any(name.endswith("licenses/LICENSE") for name in names)
    for page in ("seeds/knorri.md", "seeds/knockout_whist.md", "seeds/kort.md", "docs/observations.md"):
        assert f"knorri_sim-0.1.0.data/data/share/knorri-sim/{page}" in names  # what the docstrings point at
    assert not (tree / "build").exists()  # the build happened in a scratch folder, not the source tree
    license_text = (ROOT / "LICENSE").read_text()
    assert "MIT License" in license_text and "the knorri-sim authors" in license_text


READERS = {  # each library the README shows reading a run, and what its snippet must print from it
    "pandas": ("end_reason", "cycle_length", "first_seat"),
    "duckdb": ("end_reason", "mean_phase2_actions", "out"),
    "polars": ("end_reason", "mean_phase2_actions", "cycle_length"),
}


def reading_snippet(library: str) -> str:
    """The README's (or, once it moves there, a docs page's) Python snippet that reads ``runs/r1/hands`` with
    ``library``: the block that imports it and names that run."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            if re.search(rf"^import {library}\b", block, re.M) and "runs/r1/hands" in block:
                return block
    raise AssertionError(f"no Python snippet reading runs/r1/hands with {library} in README.md or docs/*.md")


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    """A folder holding ``runs/r1``, 40 hands of random at 4 seats: the run the README's snippets read."""
    folder = tmp_path_factory.mktemp("readers")
    assert main(["run", "--seats", "4", "--agents", "random", "--hands", "40", "--out", str(folder / "runs" / "r1"),
                 "--workers", "1", "--no-progress"]) == 0
    return folder


@pytest.mark.parametrize("library", sorted(READERS))
def test_the_readmes_snippets_read_a_run_as_written(library, small_run, monkeypatch, capsys):
    snippet = reading_snippet(library)
    monkeypatch.chdir(small_run)
    capsys.readouterr()
    exec(compile(snippet, f"the README's {library} snippet", "exec"), {})
    printed = capsys.readouterr().out
    assert all(word in printed for word in READERS[library]), printed


def test_the_extras_are_split_by_purpose_and_test_pulls_in_every_one_the_suite_needs():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def names(extra: str) -> set[str]:
        return {re.split(r"[<>=\[]", requirement)[0].lower() for requirement in extras[extra]}

    assert set(extras) == {"rl", "s3", "test", "docs", "notebooks", "train"}
    assert names("rl") == {"pettingzoo", "gymnasium", "open_spiel"}  # nothing for object storage
    assert names("s3") == {"moto", "s3fs", "fsspec"}
    assert {"ipykernel", "ipywidgets"} <= names("notebooks") and "polars" not in names("notebooks")
    assert "polars" in names("test")  # the docs' polars snippet runs in the suite; notebooks do not use it
    assert names("docs") == {"mkdocs", "mkdocs-material", "mkdocstrings"}
    assert "mkdocstrings[python]>=0.25" in extras["docs"]
    assert names("train") == {"jax", "optax"}  # the learner only: playing shipped weights needs neither
    assert "knorri-sim[rl,s3,notebooks,docs,train]" in extras["test"]
    assert "pip install -q -e '.[test]'" in (ROOT / ".ci" / "run").read_text()
    notebooks_readme = (ROOT / "notebooks" / "README.md").read_text()
    assert "pip install -e '.[notebooks]'" in notebooks_readme and "'.[test]'" not in notebooks_readme
