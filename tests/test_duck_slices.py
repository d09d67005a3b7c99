"""Aggregating a run one slice of whole deal groups at a time (``experiments.analysis.duck``): the slices cover
every deal group once, a slice reads only the shards that hold it, and quantiles from a histogram are DuckDB's."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from experiments.analysis.duck import EVERYTHING, Slice, quantile_of_counts, shard_index, slices
from experiments.analysis.knorri.sample import make_small_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_small_run(tmp_path_factory.mktemp("duck") / "run", hands=120, seed=5)


def test_the_slices_cover_every_deal_group_of_every_table_once():
    manifest = {"tables": [{"table": 0, "deal_groups": 10, "hands": 40}, {"table": 1, "deal_groups": 3, "hands": 3}]}
    parts = slices(manifest, rows_per_slice=9)  # 4 rows a group in table 0: two groups a slice
    covered = [(part.table, group) for part in parts for group in range(part.low, part.high)]
    assert covered == [(0, g) for g in range(10)] + [(1, g) for g in range(3)]
    assert parts[0] == Slice(0, 0, 2) and parts[-1] == Slice(1, 0, 3)


def test_a_manifest_without_table_plans_is_read_in_one_slice():
    assert slices({}) == [EVERYTHING]


def _one(query: str):
    """The single value ``query`` gives, from a connection of its own: a result left half-fetched on duckdb's
    default connection makes the next user of it in this process (the README's snippet, say) fail."""
    with duckdb.connect() as connection:
        return connection.execute(query).fetchall()[0][0]


def test_a_slice_reads_only_the_shards_that_hold_its_deal_groups(run_dir):
    paths = sorted((run_dir / "hands").glob("part-*.parquet"))
    index = shard_index(paths)
    assert index.rows.sum() == sum(_one(f"SELECT count(*) FROM '{p}'") for p in paths)
    assert index.holding(EVERYTHING) == paths
    for shard, path in enumerate(paths):
        table, low = int(index.tables[shard, 0]), int(index.groups[shard, 0])
        held = index.holding(Slice(table, low, low + 1))
        assert path in held and len(held) < len(paths)


@pytest.mark.parametrize("q", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_a_quantile_from_counts_is_duckdbs_quantile_cont_of_the_values(q):
    rng = np.random.default_rng(11)
    values = np.sort(rng.choice(np.linspace(0, 40, 23), size=9, replace=False))
    counts = rng.integers(1, 6, size=len(values))
    every = np.repeat(values, counts)
    query = f"SELECT quantile_cont(v::DOUBLE, {q}) FROM (SELECT unnest({every.tolist()}) AS v)"
    expected = _one(query)
    assert quantile_of_counts(values, counts, q) == pytest.approx(expected, rel=1e-12)
