"""A run killed with SIGKILL, or stopped by a failing agent, resumes to every hand exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from conftest import ROOT

from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment
from sim.knorri.match import hand_seed
from sim.rng import derive_seed

TESTS = Path(__file__).resolve().parent


def knorri_sim(*args, env_extra=None, **popen):
    """``knorri-sim`` in a fresh process, with tests/ on the path for the test agents."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]), **(env_extra or {})}
    command = [sys.executable, "-m", "experiments.cli", *args]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)


def kill_run_after_shards(options: list[str], out: Path, shards: int = 3) -> None:
    """Start ``knorri-sim run`` into ``out`` and SIGKILL it, worker processes too, once ``shards`` shards exist."""
    process = knorri_sim("run", *options, "--out", str(out), start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list((out / "hands").glob("part-*.parquet"))) < shards:
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "no shard appeared"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    process.stderr.close()


def read_hands(out):
    return pd.read_parquet(out / "hands").sort_values("hand_index").reset_index(drop=True)


def test_a_run_killed_with_sigkill_resumes_to_every_hand_exactly_once(tmp_path):
    out = tmp_path / "run"
    options = ["--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "240",
               "--chunk-hands", "8", "--seed", "11", "--workers", "2", "--no-progress"]
    kill_run_after_shards(options, out)  # the command and its worker processes, mid-run
    manifest = json.loads((out / "manifest.json").read_text())
    done_before = len(list((out / "hands").glob("part-*.parquet")))
    assert manifest["status"] == "running" and done_before < manifest["chunks_total"]

    resumed = knorri_sim("run", "--resume", str(out), "--workers", "1", "--no-progress")
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert not list(out.rglob("*.tmp"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["chunks_complete"]) == 30
    assert len(manifest["resumes"]) == 1

    config = build_config({"seats": 3, "agents": ["random"], "hands": 240, "chunk_hands": 8, "seed": 11,
                           "workers": 1})
    run_experiment(config, tmp_path / "whole")
    resumed_rows = read_hands(out).drop(columns=["run_id", "agent_0", "agent_1", "agent_2"])
    whole_rows = read_hands(tmp_path / "whole").drop(columns=["run_id", "agent_0", "agent_1", "agent_2"])
    assert list(resumed_rows.hand_index) == list(range(240))
    pd.testing.assert_frame_equal(resumed_rows, whole_rows)


def test_an_illegal_action_stops_the_run_naming_the_agent_and_the_run_resumes(tmp_path):
    out = tmp_path / "run"
    options = ["--seats", "3", "--agents", "runner_fixtures.agents:Flaky;random;random", "--hands", "60",
               "--assign", "fixed", "--chunk-hands", "10", "--seed", "3", "--workers", "1", "--no-progress",
               "--out", str(out)]
    failing = knorri_sim("run", *options, env_extra={"KNORRI_TEST_FAIL_AFTER": "25"})
    _, stderr = failing.communicate(timeout=120)
    assert failing.returncode == 1
    assert stderr.count("\n") == 1, stderr
    seed_of_hand_25 = hand_seed(derive_seed(3, 0, 25), 0)
    for words in ("runner_fixtures.agents:Flaky", "seat 0", f"seed {seed_of_hand_25}", "illegal action 99",
                  f"--resume {out}"):
        assert words in stderr
    assert sorted(p.name for p in (out / "hands").iterdir()) == ["part-000000.parquet", "part-000001.parquet"]
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"

    resumed = knorri_sim("run", "--resume", str(out), "--no-progress")
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    rows = read_hands(out)
    assert list(rows.hand_index) == list(range(60))
    assert (rows.agent_0 == "runner_fixtures.agents:Flaky").all()


def test_an_agent_that_raises_is_named_with_its_seat_and_hand(tmp_path):
    out = tmp_path / "run"
    failing = knorri_sim("run", "--seats", "3", "--agents", "random;random;runner_fixtures.agents:Raises",
                         "--hands", "6", "--workers", "1", "--no-progress", "--out", str(out))  # whole rotations
    _, stderr = failing.communicate(timeout=120)
    assert failing.returncode == 1 and stderr.count("\n") == 1
    assert "'runner_fixtures.agents:Raises' at seat 2" in stderr and "RuntimeError" in stderr
    assert "this agent always fails" in stderr and "seed" in stderr
