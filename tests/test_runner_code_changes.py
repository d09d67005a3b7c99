"""A resume knows the code that made a run's chunks: it refuses, in one line, to finish a run with other code,
and ``--accept-changes`` goes on and records the change in the manifest."""

from __future__ import annotations

import json
import os
import textwrap

import pandas as pd
import pytest
from conftest import ROOT
from test_runner_resume import TESTS, knorri_sim

from experiments.cli import main
from experiments.runner import fingerprint

FLAKY = '''
"""A user's agent with a bug: it raises once this process has dealt it more than 25 hands at seat 0."""
from agents.base import RandomAgent


class Flaky(RandomAgent):
    hands = 0

    def reset(self, seat, n_seats, seed=None):
        super().reset(seat, n_seats, seed)
        Flaky.hands += seat == 0

    def act(self, observation, legal):
        if {condition}:
            raise RuntimeError("a bug in my agent")
        return super().act(observation, legal)
'''


def write_flaky(folder, condition: str) -> None:
    (folder / "flaky.py").write_text(FLAKY.format(condition=condition))


def test_a_resume_after_the_agent_was_edited_is_refused_naming_it_and_accept_changes_finishes_and_records_it(
        tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    out = tmp_path / "run"
    env = {"PYTHONPATH": os.pathsep.join([str(code), str(TESTS), str(ROOT)])}
    write_flaky(code, "Flaky.hands > 25")
    options = ["--seats", "3", "--agents", "flaky:Flaky;random;random", "--hands", "60", "--assign", "fixed",
               "--chunk-hands", "10", "--seed", "5", "--workers", "1", "--no-progress"]
    failed = knorri_sim("run", *options, "--out", str(out), env_extra=env)
    _, stderr = failed.communicate(timeout=120)
    assert failed.returncode == 1 and "a bug in my agent" in stderr and f"--resume {out}" in stderr, stderr
    before = json.loads((out / "manifest.json").read_text())
    assert before["chunks_complete"] == [0, 1] and set(before["code"]["agents"]) == {"flaky"}

    write_flaky(code, "False")  # the user fixes the bug
    refused = knorri_sim("run", "--resume", str(out), "--no-progress", env_extra=env)
    _, stderr = refused.communicate(timeout=120)
    assert refused.returncode == 2 and stderr.count("\n") == 1, stderr
    for words in ("changed since its 2 finished chunks were made", "agent module flaky source "
                  f"{before['code']['agents']['flaky']['source']} -> source", "--accept-changes"):
        assert words in stderr
    assert json.loads((out / "manifest.json").read_text()) == before  # nothing touched
    assert sorted(p.name for p in (out / "hands").iterdir()) == ["part-000000.parquet", "part-000001.parquet"]

    accepted = knorri_sim("run", "--resume", str(out), "--accept-changes", "--no-progress", env_extra=env)
    _, stderr = accepted.communicate(timeout=120)
    assert accepted.returncode == 0, stderr
    after = json.loads((out / "manifest.json").read_text())
    assert after["status"] == "complete" and len(after["chunks_complete"]) == 6
    [change] = after["code_changes"]
    assert change["chunks_made_before"] == [[0, 1]] and change["code_before"] == before["code"]
    assert [line.split(" source ")[0] for line in change["changes"]] == ["agent module flaky"]
    assert after["code"]["agents"]["flaky"] != before["code"]["agents"]["flaky"]
    assert sorted(pd.read_parquet(out / "hands").hand_index) == list(range(60))


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A finished run of three chunks with its last chunk taken away, as a run stopped after two would be."""
    out = tmp_path_factory.mktemp("stopped") / "run"
    assert main(["run", "--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "30",
                 "--chunk-hands", "10", "--seed", "8", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["chunks_complete"] = [0, 1]
    del manifest["chunk_rows"]["2"]
    (out / "hands" / "part-000002.parquet").unlink()
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out, manifest


def copy_with_code(run, tmp_path, edit) -> str:
    """A copy of the stopped run whose manifest says its chunks were made by code ``edit`` changed."""
    out, manifest = run
    copy = tmp_path / "run"
    (copy / "hands").mkdir(parents=True)
    for shard in (out / "hands").iterdir():
        (copy / "hands" / shard.name).write_bytes(shard.read_bytes())
    changed = json.loads(json.dumps(manifest))
    edit(changed["code"])
    (copy / "manifest.json").write_text(json.dumps(changed))
    return str(copy)


@pytest.mark.parametrize("edit, named", [
    (lambda code: code["project"].update(source="0" * 16), "the project's own code (sim/, agents/, "
                                                            "experiments/runner/) 0000000000000000 ->"),
    (lambda code: code.update(numpy="1.26.0"), "numpy 1.26.0 -> "),
    (lambda code: code.update(numba="0.59.0"), "numba 0.59.0 -> "),
    (lambda code: code.update(python="3.11.0"), "python 3.11.0 -> "),
    (lambda code: code.clear(), "the manifest records no code fingerprint"),
])
def test_a_resume_across_a_change_of_the_projects_code_or_of_a_version_that_decides_rows_is_refused(
        stopped_run, tmp_path, capsys, edit, named):
    out = copy_with_code(stopped_run, tmp_path, edit)
    capsys.readouterr()
    assert main(["run", "--resume", out, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and f"knorri-sim run --resume {out} --accept-changes" in err, err


def test_a_resume_with_unchanged_code_goes_on_without_a_recorded_change(stopped_run, tmp_path):
    out = copy_with_code(stopped_run, tmp_path, lambda code: None)
    assert main(["run", "--resume", out, "--no-progress"]) == 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and "code_changes" not in manifest


def test_accept_changes_without_resume_is_one_line(tmp_path, capsys):
    assert main(["run", "--hands", "3", "--accept-changes", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--accept-changes goes with --resume" in err


# ----- the fingerprint of an agent module ------------------------------------------------------------------------


def test_an_edit_of_any_module_of_an_agents_package_changes_its_fingerprint(tmp_path, monkeypatch):
    package = tmp_path / "mylab_fp_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bots.py").write_text("from mylab_fp_pkg.helpers import pick\n")
    (package / "helpers.py").write_text("def pick(legal):\n    return legal[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = fingerprint.module_record("mylab_fp_pkg.bots")
    (package / "helpers.py").write_text("def pick(legal):\n    return legal[-1]\n")
    after = fingerprint.module_record("mylab_fp_pkg.bots")
    assert before["files"] == after["files"] == 3 and before["source"] != after["source"]


def test_a_plain_module_is_fingerprinted_by_its_own_source(tmp_path, monkeypatch):
    (tmp_path / "solo_fp_bot.py").write_text(textwrap.dedent("""
        from agents.base import RandomAgent
        class Bot(RandomAgent):
            pass
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    record = fingerprint.module_record("solo_fp_bot")
    assert record["files"] == 1
    (tmp_path / "solo_fp_bot.py").write_text("# edited\n" + (tmp_path / "solo_fp_bot.py").read_text())
    assert fingerprint.module_record("solo_fp_bot")["source"] != record["source"]


def test_an_installed_distributions_module_is_recorded_by_its_version():
    from importlib import metadata

    assert fingerprint.module_record("tqdm.std") == {"distribution": "tqdm", "version": metadata.version("tqdm")}


def test_built_in_agents_are_covered_by_the_projects_own_fingerprint():
    assert fingerprint.agent_modules(["random", "greedy", "mcts:iters=4", "agents.base:RandomAgent"],
                                     "knorri") == {"agents.base"}
    assert fingerprint.module_record("agents.base") == {"project": True}
    files = {path.relative_to(ROOT).as_posix() for path in fingerprint.project_files()}
    assert {"sim/games.py", "agents/base.py", "experiments/runner/chunk.py"} <= files
    assert not any(name.startswith(("tests/", "experiments/analysis/")) for name in files)


def test_an_edit_of_a_sibling_module_a_one_file_agent_imports_changes_its_fingerprint(tmp_path, monkeypatch):
    (tmp_path / "hbot_fp.py").write_text(textwrap.dedent("""
        import helper_fp
        from agents.base import RandomAgent
        class Bot(RandomAgent):
            def act(self, observation, legal):
                return helper_fp.pick(legal)
    """))
    (tmp_path / "helper_fp.py").write_text("import deeper_fp\n\ndef pick(legal):\n    return legal[0]\n")
    (tmp_path / "deeper_fp.py").write_text("import numpy\nFIRST = 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = fingerprint.module_record("hbot_fp")
    assert before["files"] == 3  # the agent, its helper and the helper's own import; numpy is installed, not read
    (tmp_path / "helper_fp.py").write_text("import deeper_fp\n\ndef pick(legal):\n    return legal[-1]\n")
    edited = fingerprint.module_record("hbot_fp")
    (tmp_path / "deeper_fp.py").write_text("import numpy\nFIRST = -1\n")
    assert len({before["source"], edited["source"], fingerprint.module_record("hbot_fp")["source"]}) == 3


def test_a_killed_run_whose_agents_helper_was_edited_is_refused_on_resume(tmp_path, monkeypatch, capsys):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "hbot_rs.py").write_text(textwrap.dedent("""
        import helper_rs
        from agents.base import RandomAgent
        class Bot(RandomAgent):
            def act(self, observation, legal):
                return helper_rs.pick(legal)
    """))
    (bots / "helper_rs.py").write_text("def pick(legal):\n    return legal[0]\n")
    monkeypatch.syspath_prepend(str(bots))
    out = tmp_path / "run"
    assert main(["run", "--seats", "3", "--agents", "hbot_rs:Bot;random;greedy", "--hands", "12", "--chunk-hands", "4",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    (out / "hands" / "part-000002.parquet").unlink()  # as if the run had been killed before its last chunk
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["chunks_complete"] = [0, 1]
    for key in ("chunk_rows", "chunk_seconds"):
        manifest.get(key, {}).pop("2", None)
    (out / "manifest.json").write_text(json.dumps(manifest))
    (bots / "helper_rs.py").write_text("def pick(legal):\n    return legal[-1]\n")
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "agent module hbot_rs" in err
