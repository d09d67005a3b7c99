"""The second hour of a new user (issue 28), one test per point fixed: a user's own folders never shadow the
harness, configs by name, errors in a user's agent that name its file and line, messages that do not surprise,
the data read elsewhere and a wheel holding only the current tree, and lighter installs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

from experiments.analysis.reports import run_names
from experiments.cli import main
from experiments.runner.compiling import compile_notice
from experiments.runner.config import CONFIG_DIR, config_path, config_summary, shipped_configs
from experiments.runner.storage import read_manifest

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "knorri-sim"

LOW_BOT = '''
class LowBot:
    """Plays the lowest legal id."""

    def __init__(self, seed=0):
        self.name = "low"

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        return min(legal)
'''


def _in(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run ``argv`` as a subprocess in ``folder``, with this tree's code on PYTHONPATH as an install would be."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_1_a_users_own_folder_never_shadows_the_harness(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "agents" / "lowbot.py").write_text(textwrap.dedent(LOW_BOT))
    (tmp_path / "mybot.py").write_text(textwrap.dedent(LOW_BOT))
    theirs, ours = str(tmp_path.resolve() / "agents"), str(ROOT / "agents")
    # the console script: the working directory comes after the harness, so ./mybot.py is found ...
    played = _in(tmp_path, str(CLI), "play", "--agents", "mybot:LowBot;random;random;random")
    assert played.returncode == 0, played.stderr
    # ... and a spec inside the user's agents/ folder is refused in one line naming both folders
    refused = _in(tmp_path, str(CLI), "play", "--agents", "agents.lowbot:LowBot;random;random;random")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert theirs in refused.stderr and ours in refused.stderr and "rename it" in refused.stderr
    # python in that folder puts it first on sys.path: importing the harness refuses the folder, naming both
    imported = _in(tmp_path, sys.executable, "-c", "from experiments.analysis.knorri.load import load_run")
    last = imported.stderr.strip().splitlines()[-1]
    assert imported.returncode == 1 and "HarnessShadowedError" in last and theirs in last and ours in last


def test_1_a_users_own_sim_package_is_refused_before_the_harness_imports_it(tmp_path):
    # a sim/ of the user's would be imported by the harness's other packages in place of the engines
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim" / "__init__.py").write_text("")
    theirs, ours = str(tmp_path.resolve() / "sim"), str(ROOT / "sim")
    for statement in ("from experiments.analysis.knorri.load import load_run", "import agents", "import rl.gym_env"):
        imported = _in(tmp_path, sys.executable, "-c", statement)
        last = (imported.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        assert imported.returncode == 1 and last.startswith("sim.harness.HarnessShadowedError: "), (statement, last)
        assert theirs in last and ours in last and "rename it" in last


def test_2_a_shipped_config_is_run_by_its_name_and_listed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # outside the repository: the name finds the installed file
    assert main(["run", "--list-configs"]) == 0
    listed = capsys.readouterr().out.splitlines()
    shipped = shipped_configs()
    assert {"default", "seat_counts", "kort"} <= set(shipped)
    for name, path in shipped.items():
        assert any(line.split()[0] == name and config_summary(path) in line for line in listed)
    assert config_path("seat_counts") == CONFIG_DIR / "seat_counts.yaml"
    assert main(["run", "--config", "seat_counts", "--seats", "3", "--hands", "6", "--out", "out", "--workers", "1",
                 "--no-progress"]) == 0
    assert read_manifest(tmp_path / "out")["config"]["name"] == "seat_counts"
    capsys.readouterr()  # the run's own stderr (a compile notice on a first run after an edit) is not the refusal's
    assert main(["run", "--config", "seat_count"]) == 2
    err = capsys.readouterr().err
    assert "no shipped config has that name" in err and "seat_counts" in err and err.count("\n") == 1


BOOM_BOT = '''
def explode():
    raise RuntimeError("boom inside act")


class Boom:
    """Raises from a helper of its own module at its third decision."""

    def __init__(self, seed=0):
        self.name, self.decisions = "boom", 0

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        self.decisions += 1
        if self.decisions == 3:
            explode()
        return legal[0]
'''


def test_5_an_agents_error_names_its_file_and_line_and_debug_prints_the_traceback(tmp_path):
    bot = tmp_path / "boombot.py"
    bot.write_text(textwrap.dedent(BOOM_BOT))
    line = 1 + textwrap.dedent(BOOM_BOT).splitlines().index('    raise RuntimeError("boom inside act")')
    play = [str(CLI), "play", "--agents", "boombot:Boom;random;random;random"]
    failed = _in(tmp_path, *play)
    assert failed.returncode == 1, failed.stderr  # an agent failing is not bad input (2)
    assert failed.stderr.count("\n") == 1 and f"boom inside act in act() at {bot}:{line}" in failed.stderr
    debug = _in(tmp_path, *play, "--debug")
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr
    assert "in explode" in debug.stderr and debug.stderr.strip().splitlines()[-1] == failed.stderr.strip()
    run = [str(CLI), "run", "--seats", "4", "--agents", "boombot:Boom;random;random;random", "--hands", "4",
           "--workers", "1", "--no-progress"]
    stopped = _in(tmp_path, *run, "--out", "one")
    assert stopped.returncode == 1 and f"at {bot}:{line}" in stopped.stderr and "Traceback" not in stopped.stderr
    traced = subprocess.run([*run, "--out", "two"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "KNORRI_SIM_DEBUG": "1"})
    assert traced.returncode == 1 and "Traceback (most recent call last)" in traced.stderr
    assert "in explode" in traced.stderr


def test_6_messages_say_where_specs_came_from_refuse_empty_pieces_and_quote_cpu_seconds(tmp_path, monkeypatch,
                                                                                          capsys):
    monkeypatch.chdir(tmp_path)
    # (--seats alone seats the default config's lineup for that count: tests/test_third_hour.py)
    # a trailing colon, and an empty piece between separators, are refused, the piece named
    assert main(["play", "--agents", "random:"]) == 2
    assert "agent spec 'random:': nothing follows a ':'" in capsys.readouterr().err
    assert main(["play", "--agents", "random;;greedy;random"]) == 2
    assert "piece 2 of 4 (split at ';') is empty" in capsys.readouterr().err
    # the compile notice quotes measured CPU seconds and says that load matters
    notice = compile_notice({"agents.knorri.lineup": 23.0})
    assert "23 s of CPU" in notice and "loaded" in notice
    # a run configured on the command line is not called the default in its manifest or its report
    assert main(["run", "--seats", "3", "--agents", "random", "--hands", "6", "--out", "b", "--workers", "1",
                 "--no-progress"]) == 0
    manifest = read_manifest(tmp_path / "b")
    assert manifest["config"]["name"] == "command line"
    assert "(default)" not in run_names([manifest]) and "(command line)" in run_names([manifest])


def _build_wheel(tree: Path, into: str) -> zipfile.ZipFile:
    """Build the tree's wheel with pip (build isolation, as ``pip install .`` does) and open it."""
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", into, "."], cwd=tree,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    return zipfile.ZipFile(next((tree / into).glob("*.whl")))


def test_7_a_wheel_holds_only_the_current_tree_and_the_license(tmp_path):
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
def test_7_the_readmes_snippets_read_a_run_as_written(library, small_run, monkeypatch, capsys):
    snippet = reading_snippet(library)
    monkeypatch.chdir(small_run)
    capsys.readouterr()
    exec(compile(snippet, f"the README's {library} snippet", "exec"), {})
    printed = capsys.readouterr().out
    assert all(word in printed for word in READERS[library]), printed


def test_9_the_extras_are_split_by_purpose_and_test_pulls_in_every_one_the_suite_needs():
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
    assert names("train") == {"jax", "optax"}  # the learner alone; playing learned weights needs neither
    assert "knorri-sim[rl,s3,notebooks,docs,train]" in extras["test"]
    assert "pip install -q -e '.[test]'" in (ROOT / ".ci" / "run").read_text()
    notebooks_readme = (ROOT / "notebooks" / "README.md").read_text()
    assert "pip install -e '.[notebooks]'" in notebooks_readme and "'.[test]'" not in notebooks_readme
