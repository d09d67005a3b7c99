"""Hostile input through the command line and the run folder's surroundings: a number too large, an edited
manifest, a file or an immutable folder where a run's folder should be, a damaged compile cache, a busy folder, a
folder given as a config, an unknown agent. Each is one line with the right exit code, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest

import sim.config
from experiments.cli import main
from experiments.runner import storage
from experiments.runner.storage import RunFolder
from hostile.runs import RUN, finish, knorri_sim, one_line

HUGE = "99999999999999999999"  # past a 64-bit integer


def said(capsys):
    return one_line(capsys.readouterr().err)


def test_an_agent_parameter_past_64_bits_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--seats", "3", "--agents", f"mcts:iters={HUGE}", "--hands", "3", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 2
    assert f"iters={HUGE} is out of range" in said(capsys)
    assert not out.exists()


def test_a_hand_index_past_64_bits_is_one_line(run, capsys):
    assert main(["replay", str(run), "--hand-index", HUGE, "--out", str(run / "x.html")]) == 2
    assert "--hand-index must be from 0 to 2**63 - 1" in said(capsys)


def test_a_manifest_edited_to_count_chunks_in_words_is_one_line(run, capsys):
    manifest = json.loads((run / storage.MANIFEST).read_text())
    (run / storage.MANIFEST).write_text(json.dumps({**manifest, "chunks_total": "forty"}))
    assert main(["report", str(run)]) == 1
    assert "is damaged: manifest.json has no valid 'chunks_total'" in said(capsys)


def test_a_file_in_place_of_the_hands_folder_is_one_line_for_resume_report_and_verify(run, capsys):
    shutil.rmtree(run / "hands")
    (run / "hands").write_text("not a folder")
    for command in (["run", "--resume", str(run), "--no-progress"], ["report", str(run)]):
        assert main(command) == 1
        assert "hands is a file, not the folder of its shards" in said(capsys)
    assert main(["verify", str(run)]) == 1
    assert "hands is a file, not the folder of its shards" in capsys.readouterr().out


def test_a_run_folder_the_system_will_not_let_a_resume_change_is_one_line(run, capsys, monkeypatch):
    def refused(folder, data, *parts):
        raise PermissionError(1, "Operation not permitted", folder.path(*parts))

    manifest = json.loads((run / storage.MANIFEST).read_text())
    manifest["chunks_complete"].remove(3)
    (run / storage.MANIFEST).write_text(json.dumps(manifest))
    monkeypatch.setattr(RunFolder, "_write_bytes", refused)
    assert main(["run", "--resume", str(run), "--no-progress"]) == 2
    assert "cannot write the run folder" in (line := said(capsys)) and "Operation not permitted" in line


def test_an_immutable_run_folder_is_one_line(run, capsys):
    manifest = json.loads((run / storage.MANIFEST).read_text())
    manifest["chunks_complete"].remove(3)
    (run / storage.MANIFEST).write_text(json.dumps(manifest))
    (run / storage.LOCK).touch()  # as a killed run leaves it
    if subprocess.run(["chattr", "+i", str(run)], capture_output=True).returncode != 0:
        pytest.skip("this machine cannot make a folder immutable (chattr +i)")
    try:
        assert main(["run", "--resume", str(run), "--no-progress"]) == 2
        assert "cannot write the run folder" in (line := said(capsys)) and "Operation not permitted" in line
    finally:
        subprocess.run(["chattr", "-i", str(run)], check=True)


def test_a_compile_cache_cut_short_is_one_line_that_says_cache_clear_mends_it(run, tmp_path):
    if sim.config.CACHE is None:
        pytest.skip("no folder for compiled code can be written here")
    cached = sim.config.CACHE.path  # the file's run compiled the engine's kernels into it
    copy = tmp_path / "cache" / sim.config.CACHE.versions
    shutil.copytree(cached, copy)
    cut = list(copy.rglob("*.nbc"))
    assert cut, "the engine's kernels are cached"
    for path in cut:
        path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    code, _, stderr = finish(knorri_sim("run", *RUN, "--out", str(tmp_path / "again"),
                                        env_extra={"KNORRI_SIM_CACHE_DIR": str(tmp_path / "cache")}))
    assert code == 1 and "compiled code cache is damaged" in one_line(stderr)
    assert "knorri-sim cache clear" in stderr


def test_a_second_run_into_a_busy_folder_with_another_seed_is_not_told_to_resume_it(tmp_path, capsys):
    out = tmp_path / "busy"
    first = knorri_sim("run", "--seats", "3", "--agents", "hostile.bots:Sleeper;random;random", "--hands", "6",
                       "--seed", "1", "--workers", "1", "--decision-timeout", "0", "--no-progress", "--out", str(out),
                       start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / storage.MANIFEST).exists():
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read()
            time.sleep(0.01)
        assert main(["run", "--seats", "3", "--agents", "random", "--hands", "6", "--seed", "2", "--workers", "1",
                     "--no-progress", "--out", str(out)]) == 2
        line = said(capsys)
        assert "holds another run (run " in line and "would go on with that other run, not this one" in line
    finally:
        os.killpg(first.pid, 9)
        finish(first)


def test_a_busy_folders_lock_does_not_send_another_run_to_resume(tmp_path, capsys):
    out = tmp_path / "busy"
    with RunFolder(out).lock():  # a writer that has taken the folder and not yet written its manifest
        assert main(["run", "--seats", "3", "--agents", "random", "--hands", "6", "--workers", "1",
                     "--no-progress", "--out", str(out)]) == 2
    line = said(capsys)
    assert "is being written by process" in line and "--resume" not in line


def test_a_folder_given_as_a_config_file_is_named_as_a_folder(tmp_path, capsys):
    assert main(["run", "--config", str(tmp_path)]) == 2
    assert "is a folder, not a config file" in said(capsys)


def test_an_unknown_agent_in_a_bench_lineup_is_named_before_the_seat_count(capsys):
    assert main(["bench", "--agents", "zzz;random"]) == 2
    assert "unknown agent 'zzz'" in said(capsys)
