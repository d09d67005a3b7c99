"""knorri-sim verify checks every shard of a run against what its writer recorded, says one line per problem and
exits 1 when there is any; --repair plays the damaged chunks again, and only those, to the rows an uninterrupted run
writes."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pyarrow.parquet as pq
import pytest

from experiments.cli import main
from experiments.runner import storage

RUN = ["--seats", "3", "--agents", "random", "--hands", "60", "--chunk-hands", "10", "--seed", "5",
       "--log-actions", "--workers", "1", "--no-progress"]


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    out = tmp_path_factory.mktemp("verify") / "run"
    assert main(["run", *RUN, "--out", str(out)]) == 0
    return out


@pytest.fixture
def run(intact, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(intact, copy)
    capsys.readouterr()
    return copy


def rows(out, table):
    columns = ["hand_index", "step"] if table == "actions" else ["hand_index"]
    return pd.read_parquet(out / table).sort_values(columns).reset_index(drop=True)


def files(out):
    return {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}


def flip(path, offset, bit=1):
    data = bytearray(path.read_bytes())
    data[offset] ^= bit
    path.write_bytes(bytes(data))


def verify(out, capsys, *options):
    code = main(["verify", str(out), *options])
    return code, capsys.readouterr().out


def test_an_intact_run_has_no_problems_and_exit_code_0(run, capsys):
    code, said = verify(run, capsys)
    assert code == 0 and said.splitlines() == [f"{run}: 6 of 6 chunks intact (12 shards, "
                                               f"{sum(p.stat().st_size for p in run.rglob('part-*')) / 1e6:,.1f} MB "
                                               "checked): no problems"]


def test_every_damaged_file_is_one_line_naming_it_and_nothing_is_touched(run, intact, capsys, tmp_path):
    other = tmp_path / "other"
    assert main(["run", *RUN[:8], "--seed", "6", *RUN[10:], "--out", str(other)]) == 0
    shutil.copy(other / "hands" / storage.shard_name(0), run / "hands" / storage.shard_name(0))
    shutil.copy(run / "hands" / storage.shard_name(1), run / "hands" / storage.shard_name(2))
    flip(run / "actions" / storage.shard_name(3), 200)
    pq.write_table(pq.read_table(run / "hands" / storage.shard_name(4)).slice(0, 4), run / "hands" /
                   storage.shard_name(4))
    (run / "actions" / storage.shard_name(5)).unlink()
    capsys.readouterr()
    before = files(run)
    code, said = verify(run, capsys)
    lines = said.splitlines()
    assert code == 1 and files(run) == before
    assert lines[0].startswith("hands/part-000000.parquet is another run's shard (run ")
    assert lines[1] == "hands/part-000002.parquet is a copy of chunk 1's shard, not chunk 2's"
    assert lines[2].startswith("actions/part-000003.parquet is damaged")
    assert lines[3] == "hands/part-000004.parquet is short: it holds 4 rows where 10 were written"
    assert lines[4] == "actions/part-000005.parquet is missing"
    assert lines[-1].endswith("5 problems; knorri-sim verify " + str(run) + " --repair plays chunks 0, 2, 3, 4 and "
                              "5 again")


def test_repair_plays_only_the_damaged_chunks_to_the_rows_of_an_uninterrupted_run(run, intact, capsys):
    flip(run / "hands" / storage.shard_name(2), 300)
    (run / "actions" / storage.shard_name(4)).write_bytes((run / "actions" / storage.shard_name(4)).read_bytes()[:99])
    untouched = {path: path.stat().st_mtime_ns for path in run.rglob("part-*")
                 if path.name not in (storage.shard_name(2), storage.shard_name(4))}
    code, said = verify(run, capsys, "--repair")
    assert code == 0 and "played again: chunks 2 and 4" in said and said.endswith("no problems\n")
    assert {path: path.stat().st_mtime_ns for path in untouched} == untouched
    for table in ("hands", "actions"):
        pd.testing.assert_frame_equal(rows(run, table), rows(intact, table))
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["chunk_sha256"] == json.loads(
        (intact / "manifest.json").read_text())["chunk_sha256"]
    assert verify(run, capsys) == (0, said.splitlines()[-1] + "\n")


def test_a_repair_under_other_code_is_refused_and_touches_nothing(run, capsys):
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["code"]["numpy"] = "0.0.1"  # as if the run was made with another numpy
    (run / "manifest.json").write_text(json.dumps(manifest))
    flip(run / "hands" / storage.shard_name(1), 300)
    before = files(run)
    assert main(["verify", str(run), "--repair"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "numpy 0.0.1 -> " in err and "nothing was touched" in err
    assert files(run) == before


def test_a_code_change_is_a_note_while_nothing_needs_playing(run, capsys):
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["code"]["numpy"] = "0.0.1"
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, said = verify(run, capsys)
    assert code == 0 and said.startswith("code: what plays this run changed") and said.endswith("no problems\n")


def test_a_damaged_journal_line_and_a_shard_no_record_lists_are_problems(run, capsys):
    manifest = json.loads((run / "manifest.json").read_text())
    rows_5, digests_5 = manifest["chunk_rows"].pop("5"), manifest["chunk_sha256"].pop("5")
    manifest["chunks_complete"].remove(5)
    manifest["status"] = "interrupted"
    (run / "manifest.json").write_text(json.dumps(manifest))
    line = json.dumps({"chunk": 5, "run_id": manifest["run_id"], "rows": rows_5, "sha256": digests_5})
    (run / storage.JOURNAL).write_text(line.replace('"chunk"', '"chunk\x01"') + "\n")
    code, said = verify(run, capsys)
    assert code == 1
    assert said.splitlines()[:3] == ["journal.jsonl line 1 is damaged (it is not a chunk's record)",
                                     "hands/part-000005.parquet is not recorded as finished (its chunk was cut short, "
                                     "or the file does not belong here)",
                                     "actions/part-000005.parquet is not recorded as finished (its chunk was cut "
                                     "short, or the file does not belong here)"]


def test_a_run_not_yet_finished_is_intact_with_a_note(run, capsys):
    manifest = json.loads((run / "manifest.json").read_text())
    for chunk in (4, 5):
        manifest["chunks_complete"].remove(chunk)
        for table in ("hands", "actions"):
            (run / table / storage.shard_name(chunk)).unlink()
    manifest["status"] = "interrupted"
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, said = verify(run, capsys)
    assert code == 0
    assert said.splitlines()[0] == f"2 of 6 chunks are not played yet: knorri-sim run --resume {run} finishes the run"


def test_a_folder_that_holds_no_run_is_one_line_with_exit_code_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no knorri-sim run" in err
