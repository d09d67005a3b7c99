"""Stops that say what to do next: Ctrl-C keeps the finished chunks and gives the resume command, a report of a
partial run says the same, and a run that ends in order leaves no lock file behind."""

from __future__ import annotations

import json
import os
import signal
import time

import pandas as pd
from runner_fixtures.agents import QUICK_ENV
from test_runner_resume import knorri_sim

from experiments.cli import main
from experiments.runner import storage
from sim.knorri.match import hand_seed
from sim.rng import agent_seed, derive_seed


def answers_ctrl_c() -> None:
    """In the child before it starts: SIGINT as a terminal's foreground job gets it. A shell's background job
    inherits SIGINT ignored, and Python then keeps it ignored, so a suite started with ``&`` would see no Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_keeps_the_finished_chunks_and_gives_the_resume_command(tmp_path):
    out = tmp_path / "run"
    run = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:Slow", "--hands", "64",
                     "--chunk-hands", "8", "--seed", "6", "--workers", "2", "--no-progress", "--out", str(out),
                     start_new_session=True, preexec_fn=answers_ctrl_c)
    deadline = time.monotonic() + 120
    while len(storage.RunFolder(out).journal_lines()) < 2:  # two chunks finished: a shard on disk may not be yet
        assert run.poll() is None, run.stderr.read()
        assert time.monotonic() < deadline, "no chunk finished"
        time.sleep(0.02)
    os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C sends: the run and its workers
    _, stderr = run.communicate(timeout=120)
    manifest = json.loads((out / "manifest.json").read_text())
    kept = len(manifest["chunks_complete"])
    assert run.returncode == 130 and stderr.count("\n") == 1, stderr
    assert stderr == (f"knorri-sim: interrupted; the {kept} finished chunks are kept (no data lost): "
                      f"run knorri-sim run --resume {out}\n")
    assert manifest["status"] == "interrupted" and 2 <= kept < manifest["chunks_total"]
    assert sorted(int(p.name[5:11]) for p in (out / "hands").glob("part-*.parquet")) == manifest["chunks_complete"]
    assert not (out / storage.LOCK).exists() and not (out / storage.JOURNAL).exists()

    resumed = knorri_sim("run", "--resume", str(out), "--workers", "1", "--no-progress",
                         env_extra={QUICK_ENV: "1"})  # the same moves, without the pauses that let Ctrl-C land
    _, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert sorted(pd.read_parquet(out / "hands").hand_index) == list(range(64))
    assert not (out / storage.LOCK).exists()


def test_a_run_that_finishes_leaves_no_lock_file(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "6",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["hands", "manifest.json"]


def test_the_report_of_a_failed_run_says_its_chunks_are_kept_and_gives_the_resume_command(tmp_path, capsys,
                                                                                           monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setenv("KNORRI_TEST_FAIL_SEED", str(agent_seed(hand_seed(derive_seed(4, 0, 25), 0), 0)))
    assert main(["run", "--seats", "3", "--agents", "runner_fixtures.agents:FailsOnSeed;random;random",
                 "--assign", "fixed", "--hands", "40", "--chunk-hands", "10", "--seed", "4", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 1
    assert not (out / storage.LOCK).exists()  # a run stopped in order takes its lock file away too
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out
    assert "(partial run: 2 of 4 chunks)" in printed
    assert (f"this run stopped on an error; its finished chunks are kept: knorri-sim run --resume {out} plays "
            "the rest") in printed



def test_an_abandoned_pools_manager_thread_does_not_print_over_the_stop_message(capsys, monkeypatch):
    import threading
    from types import SimpleNamespace

    from experiments.runner import workers

    def fails() -> None:
        raise KeyError(5)  # what loky's manager thread raises when a kill removed a queued work item

    manager, other = threading.Thread(target=fails), threading.Thread(target=fails)
    seen: list[threading.Thread] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.thread))
    workers.silence_manager_thread(SimpleNamespace(_executor_manager_thread=manager))
    for thread in (manager, other):
        thread.start()
        thread.join()
    assert seen == [other]
