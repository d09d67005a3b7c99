"""A streamed Knockout Whist run (its statistics gathered chunk by chunk, no rows kept) gives every statistic and the
same report, text and figures, as the loaded run (every row in memory), reading one shard at a time."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.analysis import load as shared_load
from experiments.analysis.knockout_whist import report, stats
from experiments.analysis.knockout_whist.load import load_run, stream_run
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

STATISTICS = {
    "seat_win_rates": stats.seat_win_rates,
    "game_lengths": stats.game_lengths,
    "game_length_summary": stats.game_length_summary,
    "dog_summary": stats.dog_summary,
    "agent_results": stats.agent_results,
    "pairwise_results": ladder.pairwise_results,
    "ratings": ladder.ratings,
    "zero_sum_violations": lambda run: pd.DataFrame({"bad": [stats.zero_sum_violations(run)]}),
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Random games at 3 seats and the three agents at 4, in chunks of 48 games (several per table)."""
    out = tmp_path_factory.mktemp("kw-streamed") / "run"
    config = build_config({"game": "knockout-whist", "seed": 11, "hands": 240, "chunk_hands": 48, "workers": 1,
                           "tables": [{"seats": 3, "agents": ["random"], "assign": "fixed"},
                                      {"seats": 4, "agents": ["greedy", "tracker", "random", "random"],
                                       "assign": "rotate"}]})
    run_experiment(config, out)
    return out


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_a_streamed_statistic_equals_the_loaded_one(run_dir, name):
    loaded, streamed = load_run(run_dir), stream_run(run_dir)
    assert streamed.chunks_read == loaded.chunks_read > 5 and streamed.games is None and streamed.seats is None
    assert streamed.row_count == loaded.row_count == 480
    pd.testing.assert_frame_equal(STATISTICS[name](streamed), STATISTICS[name](loaded))


def test_the_streamed_median_game_length_is_the_rows_own(run_dir):
    games = load_run(run_dir).games
    summary = stats.game_length_summary(stream_run(run_dir)).set_index("seats")
    for seats, group in games.groupby("n_seats"):
        assert summary.loc[seats, "median_hands"] == group["hands_played"].median()


def test_the_streamed_report_is_the_loaded_report_to_the_byte(run_dir, tmp_path):
    loaded = report.REPORT.write(load_run(run_dir), tmp_path / "loaded")
    streamed = report.REPORT.write(stream_run(run_dir), tmp_path / "streamed")
    assert [path.name for path in streamed] == [path.name for path in loaded]
    assert {path.name for path in streamed} >= {"report.md", "seat_wins.png", "dogs.png", "ratings.png"}
    for mine, theirs in zip(streamed, loaded, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name


def test_the_report_command_streams_the_run(run_dir):
    assert report.REPORT.load_run is stream_run


def test_streaming_reads_one_shard_at_a_time(run_dir, monkeypatch):
    asked = []
    real = shared_load.pq.read_table
    monkeypatch.setattr(shared_load.pq, "read_table",
                        lambda paths, columns=None, **kw: asked.append(len(paths)) or real(paths, columns=columns, **kw))
    streamed = stream_run(run_dir)
    assert len(asked) == streamed.chunks_read and set(asked) == {1}
