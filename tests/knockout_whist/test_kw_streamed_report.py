"""A streamed Knockout Whist run (its statistics gathered chunk by chunk, no rows kept) gives every statistic and the
same report, text and figures, as the loaded run (every row in memory), reading one shard at a time."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.analysis.knockout_whist import report, stats
from experiments.analysis.knockout_whist.load import load_run
from experiments.analysis.knockout_whist.stream import stream_run
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


@pytest.fixture(scope="module", params=[48, 150])  # one chunk at a time, or three
def runs(request, run_dir):
    """The run loaded (every row) and streamed ``request.param`` rows at a time, each read once for every test."""
    return load_run(run_dir), stream_run(run_dir, batch_rows=request.param)


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_a_streamed_statistic_equals_the_loaded_one(runs, name):
    loaded, streamed = runs
    assert streamed.chunks_read == loaded.chunks_read > 5 and streamed.games is None and streamed.seats is None
    assert streamed.row_count == loaded.row_count == 480
    pd.testing.assert_frame_equal(STATISTICS[name](streamed), STATISTICS[name](loaded))


def test_the_streamed_median_game_length_is_the_rows_own(run_dir):
    games = load_run(run_dir).games
    summary = stats.game_length_summary(stream_run(run_dir, batch_rows=48)).set_index("seats")
    for seats, group in games.groupby("n_seats"):
        assert summary.loc[seats, "median_hands"] == group["hands_played"].median()


def test_the_streamed_report_is_the_loaded_report_to_the_byte(run_dir, tmp_path):
    loaded = report.REPORT.write(load_run(run_dir), tmp_path / "loaded")
    streamed = report.REPORT.write(stream_run(run_dir, batch_rows=48), tmp_path / "streamed")
    assert [path.name for path in streamed] == [path.name for path in loaded]
    assert {path.name for path in streamed} >= {"report.md", "seat_wins.png", "dogs.png", "ratings.png"}
    for mine, theirs in zip(streamed, loaded, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name


def test_the_report_command_streams_the_run():
    assert report.REPORT.load_run is stream_run


def test_streaming_reads_whole_chunks_in_batches_of_at_most_the_rows_asked(run_dir, shard_reads):
    asked = shard_reads
    assert stream_run(run_dir, batch_rows=48).chunks_read == len(asked) == 10 and set(asked) == {1}
    asked.clear()
    assert stream_run(run_dir, batch_rows=150).chunks_read == 10 and asked == [3, 3, 3, 1]  # 48 games a chunk
