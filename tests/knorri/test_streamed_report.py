"""A streamed Knorri run (its statistics gathered chunk by chunk, no rows kept) gives every statistic, figure and
report line that the loaded run (every row in memory) gives, reading only the columns they need."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.analysis import load as shared_load
from experiments.analysis.knorri import report, stats
from experiments.analysis.knorri.load import load_run
from experiments.analysis.knorri.stream import stream_run
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

CHUNK = 48  # hands a chunk; streamed CHUNK rows at a time, the run is read one chunk at a time
STATISTICS = {
    "cutoff_rates": stats.cutoff_rates,
    "cutoff_rates_by_seats": stats.cutoff_rates_by_seats,
    "loopiest_lineups": stats.loopiest_lineups,
    "phase2_length_summary": stats.phase2_length_summary,
    "phase2_histogram": stats.phase2_histogram,
    "cycle_length_counts": stats.cycle_length_counts,
    "score_distribution": stats.score_distribution,
    "agent_score_distribution": lambda run: stats.score_distribution(run, ("n_seats", "agent")),
    "position_scores": stats.position_scores,
    "agent_scores": stats.agent_scores,
    "agent_scores_per_table": lambda run: stats.agent_scores(run, per_table=True),
    "pairwise_results": ladder.pairwise_results,
    "ratings": ladder.ratings,
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("streamed") / "run"
    config = build_config({"seed": 11, "hands": 300, "chunk_hands": CHUNK, "workers": 1, "tables": [
        {"seats": 3, "agents": ["random", "greedy", "random"], "assign": "rotate"},
        {"seats": 5, "agents": ["random", "greedy", "greedy", "random", "random"], "assign": "rotate"}]})
    run_experiment(config, out)
    return out


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_a_streamed_statistic_equals_the_loaded_one(run_dir, name):
    loaded, streamed = load_run(run_dir), stream_run(run_dir, batch_rows=CHUNK)
    assert streamed.chunks_read == loaded.chunks_read > 5 and streamed.hands is None and streamed.seats is None
    pd.testing.assert_frame_equal(STATISTICS[name](streamed).reset_index(drop=True),
                                  STATISTICS[name](loaded).reset_index(drop=True), check_dtype=False,
                                  check_categorical=False, rtol=1e-12)


def test_the_streamed_phase2_median_and_99th_percentile_are_the_rows_own(run_dir):
    hands = load_run(run_dir).hands
    summary = stats.phase2_length_summary(stream_run(run_dir, batch_rows=CHUNK)).set_index("seats")
    for seats, group in hands.groupby("n_seats"):
        assert summary.loc[seats, "median"] == np.median(group["phase2_actions"])
        assert summary.loc[seats, "p99"] == pytest.approx(np.percentile(group["phase2_actions"], 99), abs=1e-9)
        assert summary.loc[seats, "max"] == group["phase2_actions"].max()


def test_the_streamed_report_is_the_loaded_report(run_dir, tmp_path):
    assert report.summary_markdown(stream_run(run_dir, batch_rows=CHUNK)) == report.summary_markdown(load_run(run_dir))
    written = report.REPORT.write(report.REPORT.load_run(run_dir), tmp_path / "report")
    assert {path.name for path in written} >= {"report.md", "phase2_length.png", "ratings.png"}


def test_streaming_reads_only_the_columns_the_statistics_need(run_dir, monkeypatch):
    asked = []
    real = shared_load.pq.read_table
    monkeypatch.setattr(shared_load.pq, "read_table",
                        lambda paths, columns=None, **kw: asked.append((len(paths), columns)) or real(
                            paths, columns=columns, **kw))
    streamed = stream_run(run_dir, batch_rows=CHUNK)
    assert len(asked) == streamed.chunks_read and all(count == 1 for count, _ in asked)  # one shard at a time
    read = {name for _, columns in asked for name in columns}
    assert read and not read & {"seed", "match_seed", "held_0", "pile_0", "decisions", "decisions_crc32",
                                "tricks_completed", "run_id"}
