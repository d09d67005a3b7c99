"""Hostile input on a run's shards: each is refused in one line naming the file (exit code 1, a damaged run),
and --resume plays the damaged chunk again to the rows an uninterrupted run wrote; never a silently wrong number."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pyarrow.parquet as pq

from experiments.analysis.knorri import load_run
from experiments.cli import main
from experiments.runner import storage
from experiments.runner.storage import RunFolder
from hostile.runs import hands, make_run, one_line

SHARD_1, SHARD_2 = storage.shard_name(1), storage.shard_name(2)


def refused(argv, capsys, words):
    """The command exits 1 with one line holding ``words``."""
    assert main(argv) == 1
    said = one_line(capsys.readouterr().err)
    assert words in said, said
    return said


def resumed_to(run, original, capsys):
    """--resume plays the damaged chunk again, to exactly the original hands."""
    assert main(["run", "--resume", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(hands(run), original)


def test_a_shard_of_a_run_with_another_seed_is_refused_and_resume_plays_its_chunk_again(run, tmp_path, capsys):
    original = hands(run)
    other = make_run(tmp_path / "other", seed=6)
    shutil.copy(other / "hands" / SHARD_1, run / "hands" / SHARD_1)
    capsys.readouterr()
    refused(["report", str(run)], capsys, f"hands/{SHARD_1} is another run's shard (run ")
    resumed_to(run, original, capsys)


def test_a_duplicated_shard_is_refused_by_report_and_cutoffs_and_resume_plays_the_missing_chunk(run, capsys):
    original = hands(run)
    shutil.copy(run / "hands" / SHARD_1, run / "hands" / SHARD_2)
    for command in ("report", "cutoffs"):
        refused([command, str(run)], capsys, f"hands/{SHARD_2} is a copy of chunk 1's shard, not chunk 2's")
    resumed_to(run, original, capsys)


def test_one_flipped_bit_in_a_data_page_is_refused_and_resume_plays_the_chunk_again(run, capsys):
    original = hands(run)
    shard = run / "hands" / SHARD_1
    loser = pq.ParquetFile(shard).metadata.row_group(0).column(pq.read_schema(shard).names.index("loser"))
    data = bytearray(shard.read_bytes())
    data[loser.data_page_offset + loser.total_compressed_size - 3] ^= 4
    shard.write_bytes(bytes(data))
    refused(["report", str(run)], capsys, f"hands/{SHARD_1} is damaged")
    resumed_to(run, original, capsys)


def test_a_garbled_shard_is_never_complete_and_report_names_it(run, capsys):
    original = hands(run)
    shard = run / "hands" / SHARD_2
    data = bytearray(shard.read_bytes())
    data[len(data) // 2:len(data) // 2 + 64] = bytes(64)
    shard.write_bytes(bytes(data))
    refused(["report", str(run)], capsys, f"hands/{SHARD_2} is damaged")
    stamp = shard.stat().st_mtime_ns
    resumed_to(run, original, capsys)
    assert shard.stat().st_mtime_ns != stamp  # played again, not called complete


def test_a_short_shard_is_refused_and_resume_plays_its_chunk_again(run, capsys):
    original = hands(run)
    shard = run / "hands" / SHARD_1
    pq.write_table(pq.read_table(shard).slice(0, 4), shard)
    refused(["report", str(run)], capsys, f"hands/{SHARD_1} is short: it holds 4 rows where 10 were written")
    resumed_to(run, original, capsys)


def test_cutoffs_and_replay_on_a_truncated_or_garbled_hands_shard_are_one_line(run, capsys):
    shard = run / "hands" / SHARD_1
    whole = shard.read_bytes()
    for damaged in (whole[:len(whole) // 2], whole[:100] + bytes(len(whole) - 100)):
        shard.write_bytes(damaged)
        refused(["cutoffs", str(run)], capsys, f"hands/{SHARD_1} is damaged")
        refused(["replay", str(run), "--hand-index", "15", "--out", str(run / "x.html")], capsys,
                f"hands/{SHARD_1} is damaged")


def test_report_and_replay_on_truncated_actions_shards_are_one_line(run, capsys):
    for shard in (run / "actions").glob("part-*.parquet"):  # the report replays a hand of each end reason
        shard.write_bytes(shard.read_bytes()[:300])
    refused(["replay", str(run), "--hand-index", "15", "--out", str(run / "x.html")], capsys,
            f"actions/{SHARD_1} is damaged")
    refused(["report", str(run)], capsys, "actions/part-")


def test_a_run_whose_hands_folder_was_deleted_says_so_not_that_it_is_unfinished(run, capsys):
    shutil.rmtree(run / "hands")
    said = refused(["report", str(run)], capsys, "is damaged: hands/ is missing")
    assert "let the run finish" not in said


def test_a_reader_sees_every_chunk_when_the_run_folds_its_journal_between_the_reads(run, monkeypatch):
    """The writer folds the journal into the manifest and then empties it: a reader that read the manifest first and
    the journal after once saw no chunk at all ("no complete chunk yet (0 of 500)")."""
    live = json.loads((run / storage.MANIFEST).read_text())
    folded = dict(live)
    lines = [json.dumps({"chunk": chunk, "run_id": live["run_id"], "rows": live["chunk_rows"][str(chunk)],
                         "sha256": live["chunk_sha256"][str(chunk)]}) for chunk in range(4)]
    live.update(chunks_complete=[], chunk_rows={}, chunk_sha256={}, status="running")
    (run / storage.MANIFEST).write_text(json.dumps(live))
    (run / storage.JOURNAL).write_text("".join(line + "\n" for line in lines))
    folds = []

    def then_fold(read):  # the writer folds every chunk in and empties the journal just after the first read
        def reading(folder):
            seen = read(folder)
            if not folds:
                folds.append(folder.write_manifest(folded))
                folder.clear_journal()
            return seen
        return reading

    for name in ("journal_lines", "read_manifest"):
        monkeypatch.setattr(RunFolder, name, then_fold(getattr(RunFolder, name)))
    loaded = load_run(run)
    assert folds and loaded.complete and len(loaded.hands) == 40
