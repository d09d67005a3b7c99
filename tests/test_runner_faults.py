"""Faults while a run plays: agents that fail, hang or exit, workers that die, a second writer, a killed parent.

Each ends the run with one line saying what happened and that the finished chunks are kept, and the run
resumes to the rows of an undisturbed run.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pandas as pd
import pytest
from test_runner_resume import knorri_sim

from experiments.cli import main
from sim.knorri.match import hand_seed
from sim.rng import agent_seed, derive_seed


def shard_ids(out, table="hands"):
    return sorted(int(p.name[5:11]) for p in (out / table).glob("part-*.parquet"))


def finish(process, timeout=120):
    stdout, stderr = process.communicate(timeout=timeout)
    return process.returncode, stdout, stderr


def test_every_chunk_finished_in_flight_is_written_before_an_agent_failure_stops_the_run(tmp_path):
    out = tmp_path / "run"
    failing_seed = agent_seed(hand_seed(derive_seed(9, 0, 45), 0), 0)  # hand 45: chunk 4 of 6
    process = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:FailsOnSeed;random;random",
                         "--hands", "60", "--assign", "fixed", "--chunk-hands", "10", "--seed", "9", "--workers", "2",
                         "--no-progress", "--out", str(out), env_extra={"KNORRI_TEST_FAIL_SEED": str(failing_seed)})
    code, _, stderr = finish(process)
    assert code == 1 and stderr.count("\n") == 1, stderr
    assert "seat 0" in stderr and "the hand this agent was told to fail" in stderr and "--resume" in stderr
    kept = shard_ids(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["chunks_complete"] == kept
    assert {0, 1, 2, 3} <= set(kept) and 4 not in kept
    assert f"the {len(kept)} finished chunks are kept" in stderr

    code, _, stderr = finish(knorri_sim("run", "--resume", str(out), "--no-progress"))
    assert code == 0, stderr
    hands = pd.read_parquet(out / "hands")
    assert sorted(hands.hand_index) == list(range(60))


def start_hung_run(out, *options, env_extra=None):
    """A run whose seat-0 agent never answers, with no decision limit: it holds the folder until killed."""
    process = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:Hangs;random;random",
                         "--hands", "20", "--assign", "fixed", "--chunk-hands", "5", "--seed", "2", "--no-progress",
                         "--out", str(out), *options, start_new_session=True, env_extra=env_extra)
    deadline = time.monotonic() + 60
    while not (out / "manifest.json").exists():
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.01)
    return process


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # every process of the group has ended
        pass
    process.wait()
    process.stdout.close()
    process.stderr.close()


def test_a_second_writer_is_refused_while_the_first_lives_and_a_dead_ones_lock_is_taken_over(tmp_path):
    out = tmp_path / "run"
    first = start_hung_run(out, "--workers", "1", "--decision-timeout", "0")
    try:
        code, _, stderr = finish(knorri_sim("run", "--resume", str(out), "--no-progress"))
        assert code == 2 and stderr.count("\n") == 1, stderr
        assert f"is being written by process {first.pid}" in stderr
    finally:
        kill_group(first)
    assert f"process {first.pid}" in (out / ".lock").read_text()  # the dead writer's lock file stays behind
    code, _, stderr = finish(knorri_sim("run", "--resume", str(out), "--no-progress", "--decision-timeout", "0.5"))
    assert code == 1 and "being written" not in stderr and "within 0.5 s" in stderr, stderr


def test_a_dead_worker_process_stops_the_run_in_one_line_and_the_run_resumes(tmp_path):
    out = tmp_path / "run"
    options = ["--seats", "3", "--agents", "random;random;runner_fixtures.agents:Dies", "--hands", "12",
               "--chunk-hands", "4", "--assign", "fixed", "--seed", "4", "--workers", "2", "--no-progress"]
    code, _, stderr = finish(knorri_sim("run", *options, "--out", str(out), env_extra={"KNORRI_TEST_DIE": "1"}))
    assert code == 1 and stderr.count("\n") == 1, stderr
    assert "a worker process died" in stderr and "no data lost" in stderr and f"--resume {out}" in stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"
    code, _, stderr = finish(knorri_sim("run", "--resume", str(out), "--no-progress"))
    assert code == 0, stderr
    assert sorted(pd.read_parquet(out / "hands").hand_index) == list(range(12))


def bad_config(tmp_path, name, content: bytes):
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("argv, says", [
    (["run", "--seats", "", "--hands", "5"], "seats must name at least one seat count"),
    (["run", "--config", "{agents5}"], "agents must be a spec string or a list of spec strings, not 5"),
    (["run", "--config", "{latin1}"], "is not UTF-8 text"),
    (["run", "--hands", "5", "--out", "{file}/run"], "cannot write the run folder"),
    (["run", "--seats", "3", "--agents", "runner_fixtures.agents:StartFails", "--hands", "3"],
     "failed to start: RuntimeError: this agent cannot start"),
    (["run", "--hands", str(10**12)], "a run numbers at most 4,294,967,296"),
    (["run", "--hands", str(10**9), "--chunk-hands", "100"], "at most 1,000,000"),
    (["bench", "--hands", str(10**12)], "at most 10,000,000 per timing"),
    (["play", "--hands", str(10**12)], "at most 10,000 deals"),
    (["play", "--agents", "runner_fixtures.agents:StartFails"], "failed to start"),
])
def test_bad_input_and_agents_that_cannot_start_are_one_line_with_exit_2(tmp_path, capsys, argv, says):
    files = {"agents5": bad_config(tmp_path, "a.toml", b"seats = 4\nagents = 5\nhands = 10\n"),
             "latin1": bad_config(tmp_path, "b.toml", 'name = "caf\u00e9"\nhands = 10\n'.encode("latin-1")),
             "file": bad_config(tmp_path, "plain", b"")}
    argv = [arg.format(**files) for arg in argv]
    if argv[0] == "run":
        argv += ["--no-progress", "--workers", "1"] + ([] if "--out" in argv else ["--out", str(tmp_path / "o")])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:") and says in err, err


@pytest.mark.parametrize("argv", [
    ["run", "--hands", "5", "--workers", "1", "--no-progress"],
    ["duel", "greedy", "random", "--max-deals", "4", "--workers", "1", "--no-progress"],
])
def test_a_folder_it_cannot_write_is_one_line_even_for_a_command_that_would_compile_first(tmp_path, capsys,
                                                                                           monkeypatch, argv):
    """The compile notice waits until the folder is taken: on an empty cache too, bad input is the error alone."""
    from experiments import compile_notice
    from experiments.commands import duel, run

    cold = {"sim.knorri.compiled.playout": 40.0}  # what an empty cache would leave to compile
    monkeypatch.setattr(run, "code_to_compile", lambda *_: cold)
    monkeypatch.setattr(duel, "code_to_compile", lambda *_: cold)
    monkeypatch.setattr(compile_notice, "_said", False)
    (tmp_path / "plain").write_text("")
    assert main([*argv, "--out", str(tmp_path / "plain" / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error: cannot write the run folder"), err


def test_report_into_a_file_is_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--seats", "3", "--agents", "random", "--hands", "6", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    (tmp_path / "file").write_text("")
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file: give a folder" in err


def test_an_agent_that_never_answers_ends_the_run_naming_seat_spec_and_seed(tmp_path):
    out = tmp_path / "run"
    process = knorri_sim("run", "--seats", "3", "--agents", "runner_fixtures.agents:Hangs;random;random",
                         "--hands", "4", "--assign", "fixed", "--chunk-hands", "2", "--seed", "2", "--workers", "2",
                         "--decision-timeout", "1", "--no-progress", "--out", str(out),
                         env_extra={"KNORRI_TEST_HANG": "spin"})
    code, _, stderr = finish(process)
    assert code == 1 and stderr.count("\n") == 1, stderr
    for words in ("'runner_fixtures.agents:Hangs' at seat 0", "seed", "no answer from act() within 1 s",
                  "--decision-timeout", f"--resume {out}"):
        assert words in stderr


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_worker_processes_end_when_the_run_that_started_them_is_killed(tmp_path):
    out = tmp_path / "run"
    run = start_hung_run(out, "--workers", "2", "--decision-timeout", "0")
    try:
        deadline = time.monotonic() + 60
        while len(workers := children(run.pid)) < 2:
            assert time.monotonic() < deadline, "the worker processes did not start"
            time.sleep(0.05)
        time.sleep(1)  # let them take their chunks
        os.kill(run.pid, signal.SIGKILL)  # the run alone, as a user's kill -9 would
        run.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers):
            assert time.monotonic() < deadline, f"workers still alive: {[p for p in workers if alive(p)]}"
            time.sleep(0.1)
    finally:
        kill_group(run)


@pytest.mark.parametrize("argv, says", [
    (["play", "--agents", "runner_fixtures.agents:Raises"], "RuntimeError: this agent always fails in act()"),
    (["play", "--agents", "runner_fixtures.agents:Exits", "--hands", "3"], "SystemExit: 3 in act()"),
])
def test_an_agent_failing_in_play_is_one_line_with_exit_1(capsys, argv, says):
    assert main(argv) == 1  # as run does; 2 is kept for bad input
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:") and says in err, err
