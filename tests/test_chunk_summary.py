"""The end-of-run summary comes from each chunk's sufficient statistics, stored in its shard's footer, and equals
the summary computed from the rows, for every game; a resumed run's equals an uninterrupted one's."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from experiments.analysis.stats import cluster_mean_ci
from experiments.cli import main
from experiments.runner.storage import HANDS_DIR, RunFolder
from experiments.runner.summary import SUMMARY_KEY, chunk_summary, distinct_count, summarise, summary_columns
from sim import games

RUNS = {  # game: options of a small run with several chunks, two agents seated together in rotations
    "knorri": ["--seats", "3", "--agents", "random;greedy;random", "--hands", "300"],
    "knockout-whist": ["--seats", "4", "--agents", "random;greedy;random;greedy", "--hands", "400"],
    "kort": ["--agents", "random;greedy;random;greedy", "--matches", "120"],
}
KNORRI = games.adapter("knorri")


def play(out, game, capsys, extra=()):
    assert main(["run", "--game", game, *RUNS[game], "--assign", "rotate", "--seed", "5", "--chunk-hands", "48",
                 "--workers", "1", "--no-progress", "--out", str(out), *extra]) == 0
    return capsys.readouterr().out


def rows_summary(out, game):
    """The summary computed straight from the rows with pandas: the definition the chunk statistics must meet."""
    adapter = games.adapter(game)
    hands = pq.read_table(out / HANDS_DIR).to_pandas()
    width = sum(1 for c in hands.columns if c.startswith("score_"))
    outcome = adapter.OUTCOME[0]
    per_seat = f"{outcome}_0" in hands.columns
    long = pd.concat(pd.DataFrame({
        "row": np.arange(len(hands)), "seats": hands["n_seats"].astype(int), "agent": hands[f"agent_{s}"],
        "score": hands[f"score_{s}"], "hit": hands[f"{outcome}_{s}"].astype(bool) if per_seat
        else hands[outcome] == s, "cluster": hands["table"].astype(int) * 100_000 + hands["deal_group"].astype(int),
        "reason": hands["end_reason"].astype(str) if "end_reason" in hands else ""}).dropna(subset=["agent"])
        for s in range(width))
    expected = {}
    for (seats, agent), group in long.groupby(["seats", "agent"], observed=True):
        mean, half = cluster_mean_ci(group["score"].to_numpy(), group["cluster"].to_numpy())
        held = group.drop_duplicates("row")
        expected[(seats, str(agent))] = (len(group), mean, half, group["hit"].mean(),
                                         held["reason"].value_counts(normalize=True).to_dict())
    return expected


@pytest.mark.parametrize("game", sorted(RUNS))
def test_the_summary_from_chunk_statistics_equals_the_summary_from_the_rows(tmp_path, capsys, game):
    out = tmp_path / "run"
    play(out, game, capsys)
    assert len(RunFolder(out).shard_ids(HANDS_DIR)) >= 3
    expected = rows_summary(out, game)
    rows = summarise(out)
    assert {(r.seats, r.agent) for r in rows} == set(expected)
    for r in rows:
        count, mean, half, rate, reasons = expected[(r.seats, r.agent)]
        assert r.seat_hands == count
        assert r.mean_score == pytest.approx(mean, abs=1e-12)
        assert r.ci95 == pytest.approx(half, rel=1e-9)
        assert r.outcome_rate == pytest.approx(rate)
        for name, share in r.reason_shares.items():
            assert share == pytest.approx(reasons.get(name, 0.0))


def test_every_hands_shard_carries_its_chunk_statistics_in_its_footer(tmp_path, capsys):
    out = tmp_path / "run"
    play(out, "knorri", capsys)
    folder = RunFolder(out)
    for chunk in folder.shard_ids(HANDS_DIR):
        path = out / HANDS_DIR / f"part-{chunk:06d}.parquet"
        stored = json.loads(pq.read_metadata(path).metadata[SUMMARY_KEY])
        table = pq.read_table(path)
        assert stored == json.loads(json.dumps(chunk_summary(table.select(summary_columns(KNORRI, 3)), KNORRI)))


def test_the_summary_reads_footers_only_and_falls_back_to_columns_for_older_shards(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    play(out, "knorri", capsys)
    with_footers = summarise(out)

    def no_rows(*args, **kwargs):
        raise AssertionError("the summary read rows although every footer holds its statistics")

    monkeypatch.setattr(RunFolder, "read_shard", no_rows)
    assert summarise(out) == with_footers
    monkeypatch.undo()
    for path in sorted((out / HANDS_DIR).glob("part-*.parquet")):  # shards as an older run wrote them
        table = pq.read_table(path)
        metadata = {k: v for k, v in table.schema.metadata.items() if k != SUMMARY_KEY}
        pq.write_table(table.replace_schema_metadata(metadata), path)
    read = []
    real = RunFolder.read_shard
    monkeypatch.setattr(RunFolder, "read_shard", lambda self, table, chunk, columns=None: read.append(columns)
                        or real(self, table, chunk, columns))
    assert summarise(out) == with_footers
    assert read and all(columns == summary_columns(KNORRI, 3) for columns in read)  # its columns alone


def test_a_resumed_run_prints_the_summary_of_an_uninterrupted_one(tmp_path, capsys):
    whole = play(tmp_path / "whole", "knockout-whist", capsys)
    out = tmp_path / "cut"
    play(out, "knockout-whist", capsys)
    manifest = json.loads((out / "manifest.json").read_text())
    kept = manifest["chunks_complete"][: len(manifest["chunks_complete"]) // 2]
    for chunk in manifest["chunks_complete"][len(kept):]:
        (out / HANDS_DIR / f"part-{chunk:06d}.parquet").unlink()
        manifest["chunk_rows"].pop(str(chunk))
    manifest.update(chunks_complete=kept, status="interrupted")
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--resume", str(out), "--workers", "1", "--no-progress"]) == 0
    resumed = capsys.readouterr().out
    assert resumed.splitlines()[:-1] == whole.splitlines()[:-1]  # every line but the closing one (its timing)


@pytest.mark.parametrize("values", [[], [7], [1, 1, 2, 5, 5, 5], [5, 1, 5, 2, 1], [3, 3, 3], [2, 1]])
def test_a_summarys_cluster_count_is_the_number_of_different_clusters_sorted_or_not(values):
    assert distinct_count(np.array(values, dtype=np.int64)) == len(set(values))
