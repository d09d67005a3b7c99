"""The same chunks on a real Dask cluster (loopback) give the local run's rows, hand for hand."""

from __future__ import annotations

import dataclasses
import os
import signal
import time

import dask
import pandas as pd
import pytest

from experiments.cli import main
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

distributed = pytest.importorskip("distributed")


def read_hands(out):
    return pd.read_parquet(out / "hands").sort_values("hand_index").reset_index(drop=True)


def test_a_dask_cluster_writes_the_local_runs_rows_and_a_lost_worker_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KNORRI_TEST_DIE", "1")  # the workers' Dies agents kill their process
    config = build_config({"tables": [{"seats": 3, "agents": ["random"]},
                                      {"seats": 4, "agents": ["random", "greedy"] * 2, "assign": "rotate"}],
                           "matches": 6, "match_hands": 3, "seed": 99, "chunk_hands": 12, "workers": 1,
                           "log_actions": True})
    run_experiment(config, tmp_path / "local")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None) as cluster:
        run_experiment(dataclasses.replace(config, scheduler=cluster.scheduler_address), tmp_path / "dask")
        capsys.readouterr()
        code = main(["run", "--seats", "3", "--agents", "random", "--hands", "8", "--no-progress",
                     "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "cli")])
        assert code == 0 and "seat-hands" in capsys.readouterr().out
        code = main(["run", "--seats", "3", "--agents", "random;random;runner_fixtures.agents:Dies", "--hands", "3",
                     "--no-progress", "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "killed")])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1, err
        assert "lost the workers playing a chunk (KilledWorker)" in err and "--resume" in err
    pd.testing.assert_frame_equal(read_hands(tmp_path / "local"), read_hands(tmp_path / "dask"))
    local_actions = pd.read_parquet(tmp_path / "local" / "actions").sort_values(["hand_index", "step"])
    dask_actions = pd.read_parquet(tmp_path / "dask" / "actions").sort_values(["hand_index", "step"])
    pd.testing.assert_frame_equal(local_actions.reset_index(drop=True), dask_actions.reset_index(drop=True))
    assert len(read_hands(tmp_path / "cli")) == 8


def test_an_unreachable_scheduler_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "--hands", "5", "--no-progress", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
    assert not out.exists()


@pytest.mark.parametrize("hang", ["spin", "sleep"])  # interrupted in Python; blocked in C: the worker restarts
def test_a_hung_chunk_left_by_a_killed_client_does_not_starve_the_cluster(tmp_path, monkeypatch, hang):
    from test_runner_resume import knorri_sim

    monkeypatch.setenv("KNORRI_TEST_HANG", hang)  # the cluster's workers play the chunk
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        hung = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:Hangs;random;random",
                          "--assign", "fixed", "--hands", "2", "--chunk-hands", "2", "--decision-timeout", "2",
                          "--no-progress", "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "hung"),
                          start_new_session=True)
        deadline = time.monotonic() + 120
        while not any(client.processing().values()):  # the hung chunk holds the cluster's only thread
            assert hung.poll() is None and time.monotonic() < deadline, hung.stderr.read()
            time.sleep(0.05)
        os.killpg(hung.pid, signal.SIGKILL)  # the client goes; its chunk's agent never answers
        hung.communicate()
        config = build_config({"seats": 3, "agents": ["random"], "hands": 6, "seed": 1, "workers": 1})
        run_experiment(dataclasses.replace(config, scheduler=cluster.scheduler_address), tmp_path / "next")
    assert len(read_hands(tmp_path / "next")) == 6


def test_a_lost_scheduler_is_one_line_and_the_finished_chunks_are_kept(tmp_path):
    import json
    import subprocess
    import sys

    from test_runner_resume import TESTS, knorri_sim

    file = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)]), "KNORRI_TEST_HANG": "spin"}
    cluster = [subprocess.Popen([sys.executable, "-m", f"distributed.cli.dask_{role}", "--scheduler-file", str(file),
                                 "--no-dashboard", *options], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
               for role, options in (("scheduler", ["--host", "127.0.0.1", "--port", "0"]),
                                     ("worker", ["--nthreads", "1"]))]
    try:
        deadline = time.monotonic() + 120
        while not file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(1, timeout=120)
        run = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:Hangs;random;random",
                         "--assign", "fixed", "--hands", "2", "--chunk-hands", "2", "--decision-timeout", "0",
                         "--no-progress", "--scheduler", address, "--out", str(tmp_path / "run"))
        while not (tmp_path / "run" / "manifest.json").exists():
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read()
            time.sleep(0.1)
        time.sleep(2)  # its chunk submitted, its agent spinning
        cluster[0].kill()
        _, stderr = run.communicate(timeout=120)
    finally:
        for process in cluster:
            process.kill()
            process.wait()
    ours = [line for line in stderr.splitlines() if line.startswith("knorri-sim")]
    assert run.returncode == 1 and len(ours) == 1, stderr
    assert "lost the Dask scheduler" in ours[0] and "no data lost" in ours[0] and "--resume" in ours[0]


KILLS = 3  # worker processes killed, one at a time, during the run


def test_worker_processes_killed_repeatedly_on_a_cluster_still_give_the_local_runs_rows(tmp_path):
    import threading

    options = {"seats": 3, "hands": 80, "chunk_hands": 8, "seed": 31, "workers": 1}  # kills at 2, 4, 6 of 10 shards
    config = build_config({**options, "agents": ["runner_fixtures.agents:Slow"]})
    out = tmp_path / "dask"
    killed: list[int] = []
    done = threading.Event()

    def kill_workers(client) -> None:
        """SIGKILL one worker process each time two more shards are written, while the run lasts."""
        while not done.is_set() and len(killed) < KILLS:
            if len(list((out / "hands").glob("part-*.parquet"))) >= 2 * (len(killed) + 1):
                pids = sorted(client.run(os.getpid).values())
                os.kill(pids[len(killed) % len(pids)], signal.SIGKILL)
                killed.append(pids[len(killed) % len(pids)])
                client.wait_for_workers(len(pids), timeout=120)  # the nanny has started a new one
            time.sleep(0.02)

    with dask.config.set({"distributed.scheduler.allowed-failures": 2 * KILLS}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        killer = threading.Thread(target=kill_workers, args=(client,), daemon=True)
        killer.start()
        try:
            run_experiment(dataclasses.replace(config, scheduler=cluster.scheduler_address), out)
        finally:
            done.set()
            killer.join(timeout=150)
    assert len(killed) == KILLS and len(set(killed)) == KILLS
    run_experiment(build_config({**options, "agents": ["runner_fixtures.agents:PythonRandom"]}), tmp_path / "local")
    agents = ["run_id", "agent_0", "agent_1", "agent_2"]  # the same play under two names
    pd.testing.assert_frame_equal(read_hands(out).drop(columns=agents),
                                  read_hands(tmp_path / "local").drop(columns=agents))
