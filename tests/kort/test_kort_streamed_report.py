"""A streamed Kort run (its statistics gathered chunk by chunk, no matches or rounds kept) gives every statistic and
the same report, text and figures, as the loaded run (every row in memory), reading one chunk's shards at a time."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.analysis.kort import report, stats
from experiments.analysis.kort.load import load_run
from experiments.analysis.kort.stream import stream_run
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

STATISTICS = {
    "result_shares": stats.result_shares,
    "holder_value": stats.holder_value,
    "first_holder_value": stats.first_holder_value,
    "redeal_effect": stats.redeal_effect,
    "rounds_per_match": stats.rounds_per_match,
    "match_length_summary": stats.match_length_summary,
    "team_results": stats.team_results,
    "pairwise_results": ladder.pairwise_results,
    "ratings": ladder.ratings,
    "counts": lambda run: pd.DataFrame({"bad": [stats.zero_sum_violations(run)], "rounds": [stats.round_count(run)]}),
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Four random seats, greedy as a team against random in both rotations, and a mixed pair of partners, in chunks
    of 24 matches."""
    out = tmp_path_factory.mktemp("kort-streamed") / "run"
    config = build_config({"game": "kort", "seed": 11, "matches": 96, "chunk_hands": 24, "workers": 1, "tables": [
        {"seats": 4, "agents": ["random"], "assign": "fixed"},
        {"seats": 4, "agents": ["greedy", "random", "greedy", "random"], "assign": "rotate"},
        {"seats": 4, "agents": ["greedy", "random", "random", "greedy"], "assign": "fixed"}]})
    run_experiment(config, out)
    return out


@pytest.fixture(scope="module", params=[24, 72])  # one chunk at a time, or three
def runs(request, run_dir):
    """The run loaded (every row) and streamed ``request.param`` rows at a time, each read once for every test."""
    return load_run(run_dir), stream_run(run_dir, batch_rows=request.param)


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_a_streamed_statistic_equals_the_loaded_one(runs, name):
    loaded, streamed = runs
    assert streamed.chunks_read == loaded.chunks_read > 5 and streamed.matches is None and streamed.rounds is None
    assert streamed.row_count == loaded.row_count == 288
    pd.testing.assert_frame_equal(STATISTICS[name](streamed), STATISTICS[name](loaded))


def test_the_streamed_median_and_most_rounds_are_the_rows_own(run_dir):
    matches = load_run(run_dir).matches
    summary = stats.match_length_summary(stream_run(run_dir, batch_rows=24)).set_index("label")
    for label, group in matches.groupby("label", observed=True):
        assert summary.loc[label, "median_rounds"] == group["rounds"].median()
        assert summary.loc[label, "max_rounds"] == group["rounds"].max()


def test_the_streamed_report_is_the_loaded_report_to_the_byte(run_dir, tmp_path):
    loaded = report.REPORT.write(load_run(run_dir), tmp_path / "loaded")
    streamed = report.REPORT.write(stream_run(run_dir, batch_rows=24), tmp_path / "streamed")
    assert [path.name for path in streamed] == [path.name for path in loaded]
    assert {path.name for path in streamed} >= {"report.md", "holder_value.png", "team_ladder.png", "ratings.png"}
    for mine, theirs in zip(streamed, loaded, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name


def test_the_report_command_streams_the_run():
    assert report.REPORT.load_run is stream_run


def test_streaming_reads_whole_chunks_matches_and_rounds_in_batches(run_dir, shard_reads):
    asked = shard_reads
    streamed = stream_run(run_dir, batch_rows=24)
    assert len(asked) == 2 * streamed.chunks_read and set(asked) == {1}  # a chunk's matches, then its rounds
    asked.clear()
    assert stream_run(run_dir, batch_rows=72).chunks_read == 12 and asked == [3, 3] * 4  # 24 matches a chunk
