"""A run folder is checked table by table before a run goes on: damaged chunks are played again, a manifest
that disagrees with its shards is refused in one line, and one process at a time writes a folder."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from experiments.cli import main
from experiments.runner import integrity, storage

LOGGED_RUN = ["--seats", "3", "--agents", "random", "--hands", "60", "--chunk-hands", "10", "--seed", "5",
              "--log-actions", "--workers", "1", "--no-progress"]


def read_table(out, table):
    key = "hand_index"
    frame = pd.read_parquet(out / table)
    columns = [key, "step"] if "step" in frame else [key]
    return frame.sort_values(columns).reset_index(drop=True)


@pytest.fixture
def logged_run(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", *LOGGED_RUN, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:"), err
    return err


def test_the_manifest_records_every_tables_rows_per_chunk(logged_run):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    assert sorted(manifest["chunk_rows"]) == [str(c) for c in range(6)]
    for chunk, rows in manifest["chunk_rows"].items():
        name = storage.shard_name(int(chunk))
        assert rows == {table: pq.ParquetFile(logged_run / table / name).metadata.num_rows
                        for table in ("hands", "actions")}
    assert not (logged_run / storage.JOURNAL).exists()


def test_resume_replays_chunks_damaged_in_any_table(logged_run, capsys):
    hands, actions = read_table(logged_run, "hands"), read_table(logged_run, "actions")
    (logged_run / "actions" / "part-000005.parquet").unlink()
    shorter = pq.read_table(logged_run / "actions" / "part-000002.parquet").slice(0, 7)
    pq.write_table(shorter, logged_run / "actions" / "part-000002.parquet")  # readable, rows missing
    (logged_run / "hands" / "part-000003.parquet").write_bytes(b"PAR1 cut short")
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 0
    pd.testing.assert_frame_equal(read_table(logged_run, "hands"), hands)
    pd.testing.assert_frame_equal(read_table(logged_run, "actions"), actions)


def test_a_chunk_finished_after_the_last_manifest_is_read_from_the_journal(logged_run, capsys):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    rows, digests = manifest["chunk_rows"].pop("4"), manifest["chunk_sha256"].pop("4")
    manifest["chunks_complete"].remove(4)
    (logged_run / "manifest.json").write_text(json.dumps(manifest))
    line = json.dumps({"chunk": 4, "run_id": manifest["run_id"], "rows": rows, "sha256": digests,
                       "seconds": [0, 0, 0, 0]})
    (logged_run / storage.JOURNAL).write_text(line + "\n" + line[:15])  # a kill cut the next line short
    stamp = (logged_run / "hands" / "part-000004.parquet").stat().st_mtime_ns
    assert sorted(integrity.verified_chunks(storage.RunFolder(logged_run)).records) == list(range(6))
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 0
    assert (logged_run / "hands" / "part-000004.parquet").stat().st_mtime_ns == stamp  # not played again
    assert json.loads((logged_run / "manifest.json").read_text())["chunk_rows"]["4"] == rows


@pytest.mark.parametrize("edit, words", [
    ({"chunk_hands": 20}, "the manifest plans 6 chunks"),
    ({"chunk_hands": 20, "chunks_total": 3}, "outside the manifest's plan of 3 chunks"),
    ({"chunk_hands": 5, "chunks_total": 12}, "recorded with 10 rows where the plan has 5"),
])
def test_a_manifest_that_disagrees_with_its_shards_is_refused_and_nothing_is_touched(logged_run, capsys, edit,
                                                                                     words):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    (logged_run / "manifest.json").write_text(json.dumps({**manifest, **edit}))
    before = {p: p.read_bytes() for p in logged_run.rglob("*.parquet")}
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 2
    assert words in one_error_line(capsys)
    assert {p: p.read_bytes() for p in logged_run.rglob("*.parquet")} == before


def swap_first_two_hands_shards(run):
    first, second = (run / "hands" / storage.shard_name(c) for c in (0, 1))
    swapped = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(swapped)


def test_swapped_shards_fail_their_checksums_and_are_played_again(logged_run, capsys):
    hands = read_table(logged_run, "hands")
    swap_first_two_hands_shards(logged_run)
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 0
    pd.testing.assert_frame_equal(read_table(logged_run, "hands"), hands)
    assert pq.read_table(logged_run / "hands" / storage.shard_name(0))["hand_index"].to_pylist() == list(range(10))


def test_hands_outside_their_planned_range_are_refused_when_the_manifest_has_no_checksums(logged_run, capsys):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    del manifest["chunk_sha256"]  # as written before shards were checksummed: the rows and the plan are all we have
    (logged_run / "manifest.json").write_text(json.dumps(manifest))
    swap_first_two_hands_shards(logged_run)
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 2
    assert "holds hand_index 10 to 19 where the plan puts chunk 0 at 0 to 9" in one_error_line(capsys)


@pytest.mark.parametrize("manifest, words", [
    ({}, "has no valid 'config'"),
    ([], "holds a list"),
    ({"run_id": "abc", "chunk_hands": 8, "chunks_total": 3}, "has no valid 'config'"),
    ("text", "holds a str"),
])
def test_a_manifest_of_the_wrong_shape_is_one_line(tmp_path, capsys, manifest, words):
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--resume", str(tmp_path), "--no-progress"]) == 2
    assert words in one_error_line(capsys)


def test_a_config_from_a_manifest_with_wrong_types_is_one_line(logged_run, capsys):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    manifest["config"]["tables"] = [{"seats": 3}]
    (logged_run / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 2
    assert "the manifest's config is not one knorri-sim wrote" in one_error_line(capsys)


def test_a_kort_run_missing_a_rounds_shard_resumes_to_every_round(tmp_path, capsys):
    out = tmp_path / "kort"
    assert main(["run", "--game", "kort", "--agents", "random", "--matches", "24", "--chunk-hands", "4",
                 "--seed", "3", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    rounds = read_table(out, "rounds").sort_values(["hand_index", "round"]).reset_index(drop=True)
    (out / "rounds" / "part-000005.parquet").unlink()
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    again = read_table(out, "rounds").sort_values(["hand_index", "round"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(again, rounds)


def test_a_manifest_from_before_row_counts_resumes_without_replaying(logged_run, capsys):
    manifest = json.loads((logged_run / "manifest.json").read_text())
    del manifest["chunk_rows"]  # as written before the rows of every table were recorded
    (logged_run / "manifest.json").write_text(json.dumps(manifest))
    stamps = {p: p.stat().st_mtime_ns for p in logged_run.rglob("part-*.parquet")}
    assert main(["run", "--resume", str(logged_run), "--no-progress"]) == 0
    assert {p: p.stat().st_mtime_ns for p in logged_run.rglob("part-*.parquet")} == stamps
    assert sorted(json.loads((logged_run / "manifest.json").read_text())["chunk_rows"]) == [str(c) for c in range(6)]
