"""The generic report streams a run too: every statistic of a streamed run (its statistics gathered chunk by chunk)
equals the loaded run's, and the report, text and figures, is the same to the byte, for games of either kind of row."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis import generic, ladder
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

STATISTICS = {
    "end_reason_shares": generic.end_reason_shares,
    "outcome_by_seat": generic.outcome_by_seat,
    "agent_results": generic.agent_results,
    "place_shares": generic.place_shares,
    "pairwise_results": ladder.pairwise_results,
    "ratings": ladder.ratings,
}
RUNS = {  # a game with end reasons and seat counts, and a partnership game with per-seat outcomes
    "knockout-whist": {"hands": 120, "chunk_hands": 24, "tables": [
        {"seats": 3, "agents": ["random"], "assign": "fixed"},
        {"seats": 4, "agents": ["greedy", "random", "random", "random"], "assign": "rotate"}]},
    "kort": {"matches": 48, "chunk_hands": 16, "tables": [
        {"seats": 4, "agents": ["greedy", "random", "greedy", "random"], "assign": "rotate"}]},
}


@pytest.fixture(scope="module", params=sorted(RUNS))
def run_dir(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"generic-streamed-{request.param}") / "run"
    run_experiment(build_config({"game": request.param, "seed": 7, "workers": 1, **RUNS[request.param]}), out)
    return out


@pytest.fixture(scope="module", params=[1, 50])  # one chunk at a time, or several
def runs(request, run_dir):
    """The run loaded (every row) and streamed ``request.param`` rows at a time, each read once for every test."""
    return generic.load_run(run_dir), generic.stream_run(run_dir, batch_rows=request.param)


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_a_streamed_statistic_equals_the_loaded_one(runs, name):
    loaded, streamed = runs
    assert streamed.chunks_read == loaded.chunks_read > 2 and streamed.rows is None and streamed.seats is None
    assert streamed.row_count == loaded.row_count
    pd.testing.assert_frame_equal(STATISTICS[name](streamed), STATISTICS[name](loaded))


def test_the_streamed_generic_report_is_the_loaded_one_to_the_byte(run_dir, tmp_path):
    report = generic.GENERIC_REPORT
    loaded = report.write(generic.load_run(run_dir), tmp_path / "loaded")
    streamed = report.write(generic.stream_run(run_dir, batch_rows=1), tmp_path / "streamed")
    assert [path.name for path in streamed] == [path.name for path in loaded]
    assert {path.name for path in streamed} == {"report.md", "outcome_by_seat.png", "outcome_by_agent.png",
                                                "ratings.png"}
    for mine, theirs in zip(streamed, loaded, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name


def test_the_generic_report_streams_the_run_a_chunk_at_a_time(run_dir, shard_reads):
    assert generic.GENERIC_REPORT.load_run is generic.stream_run
    asked = shard_reads
    streamed = generic.stream_run(run_dir, batch_rows=1)
    assert len(asked) == streamed.chunks_read and set(asked) == {1}
