"""Runs of several variants streamed together (each run read shard by shard, their statistics added up) give every
statistic split by variant, and the tables, as the same runs loaded together with every row in memory."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis.knockout_whist import load_runs, sample, stats, stream_runs
from experiments.analysis.load import RunFolderError

BY_VARIANT = {
    "seat_win_rates": stats.seat_win_rates,
    "game_lengths": stats.game_lengths,
    "game_length_summary": stats.game_length_summary,
    "dog_summary": stats.dog_summary,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs of 3 seats: the default rules twice (their games add up in one variant) and the rainbow between."""
    folders = sample.make_variant_runs(tmp_path_factory.mktemp("kw-variants"),
                                       {"default": {}, "rainbow=true": {"rainbow": True}, "default-again": {}},
                                       games=150, seats=3, seed=5)
    return load_runs(folders), stream_runs(folders, batch_rows=1)


@pytest.mark.parametrize("name", sorted(BY_VARIANT))
def test_a_statistic_by_variant_of_streamed_runs_equals_the_loaded_runs_one(runs, name):
    loaded, streamed = runs
    assert streamed.games is None and streamed.seats is None and streamed.chunks_read == loaded.chunks_read > 3
    pd.testing.assert_frame_equal(BY_VARIANT[name](streamed, by=("variant",)),
                                  BY_VARIANT[name](loaded, by=("variant",)))


def test_streamed_runs_keep_the_tables_variants_and_counts_of_the_loaded_runs(runs):
    loaded, streamed = runs
    pd.testing.assert_frame_equal(streamed.tables, loaded.tables)
    assert streamed.variants == loaded.variants == ["default", "rainbow=true"]
    assert streamed.row_count == loaded.row_count == 450 and streamed.chunks_total == loaded.chunks_total
    assert stats.zero_sum_violations(streamed) == stats.zero_sum_violations(loaded) == 0


def test_streamed_runs_refuse_a_statistic_they_did_not_gather_in_one_line(runs):
    with pytest.raises(RunFolderError, match="keeps no 'agent results by table, agent'"):
        stats.agent_results(runs[1])
