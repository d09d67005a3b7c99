"""DuckDB over a run's shards, one slice of whole deal groups at a time: aggregates whose memory does not grow with
the run.

A query over every row at once holds one hash-table entry per group it keeps (a deal group, a paired hand), so its
memory grows with the run even when DuckDB may spill: a 100M-hand run's deal groups alone are 100M entries. Every
statistic the cut-off analysis takes adds up over disjoint sets of deal groups (counts, sums, cluster moments,
histograms), so it is computed slice by slice (``Slice``: a table's deal groups ``low`` to ``high``, about
``ROWS_PER_SLICE`` rows) and the slices' small results are added (``summed``). A chunk is whole deal groups, so
each slice's query reads only the shards whose own min/max statistics (``ShardIndex``, read once from the footers)
say they hold some of its groups.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow.parquet as pq

MEMORY_LIMIT = "512MB"  # DuckDB's limit before it spills to its temporary folder
ROWS_PER_SLICE = 1_000_000  # rows one slice's aggregation reads (whole deal groups of one table)
WHERE = "$SLICE"  # the placeholder a sliced query's condition replaces


@contextmanager
def connect() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB that keeps under ``MEMORY_LIMIT`` by spilling to a temporary folder (removed after)."""
    spill = tempfile.mkdtemp(prefix="knorri-sim-duckdb-")
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": 2, "preserve_insertion_order": False,
                                 "temp_directory": spill})
    quiet(con)
    try:
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def quiet(con: duckdb.DuckDBPyConnection) -> None:
    """Turn DuckDB's progress bar off, so a library's queries print nothing, wherever it is on. In a Jupyter kernel
    without ipywidgets DuckDB has it off already and refuses any change of it (even to off), so it is set only
    where it is on: the analysis runs in any kernel, with or without ipywidgets."""
    if con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0]:
        con.execute("SET enable_progress_bar = false")


def register_shards(con: duckdb.DuckDBPyConnection, paths: Sequence[Path], name: str,
                    empty_like: Path | None = None) -> str:
    """Make ``name`` a view of the shards at ``paths`` (read lazily, column by column) and return it; with no paths,
    an empty view with the columns of the shard ``empty_like``."""
    limit = ""
    if not paths and empty_like is not None:
        paths, limit = [empty_like], " LIMIT 0"
    files = ", ".join("'" + str(path).replace("'", "''") + "'" for path in paths)
    con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet([{files}], hive_partitioning = false)"
                f"{limit}")
    return name


@dataclass(frozen=True)
class Slice:
    """Deal groups ``low`` (included) to ``high`` (excluded) of one table: whole deal groups, never split."""

    table: int
    low: int
    high: int

    def condition(self, alias: str = "") -> str:
        """This slice as an SQL condition on the columns of ``alias`` (a table alias such as ``a``, or none)."""
        prefix = f"{alias}." if alias else ""
        return (f'({prefix}"table" = {self.table} AND {prefix}deal_group >= {self.low} '
                f"AND {prefix}deal_group < {self.high})")


EVERYTHING = None  # the one "slice" of a run whose manifest lists no table plans: every row at once


@dataclass(frozen=True)
class ShardIndex:
    """A run's shards with the rows and the smallest and largest table and deal group each holds (its footer's
    statistics): which shards a slice needs, without opening the others."""

    paths: tuple[Path, ...]
    rows: np.ndarray
    tables: np.ndarray  # (shards, 2): smallest and largest table
    groups: np.ndarray  # (shards, 2): smallest and largest deal group

    def holding(self, part: Slice | None) -> list[Path]:
        """The shards that may hold rows of ``part`` (every shard for ``EVERYTHING``)."""
        if part is None:
            return list(self.paths)
        keep = ((self.tables[:, 0] <= part.table) & (self.tables[:, 1] >= part.table)
                & (self.groups[:, 0] < part.high) & (self.groups[:, 1] >= part.low))
        return [path for path, kept in zip(self.paths, keep, strict=True) if kept]


def shard_index(paths: Sequence[Path]) -> ShardIndex:
    """Read the footers of ``paths`` (the parquet metadata alone) into a ``ShardIndex``."""
    rows, tables, groups = [], [], []
    for path in paths:
        meta = pq.ParquetFile(path).metadata
        names = meta.schema.names
        spans = {}
        for column in ("table", "deal_group"):
            where = names.index(column)
            stats = [meta.row_group(g).column(where).statistics for g in range(meta.num_row_groups)]
            known = [s for s in stats if s is not None and s.has_min_max]
            whole = len(known) == len(stats) and known
            spans[column] = (min(s.min for s in known), max(s.max for s in known)) if whole else (0, np.iinfo(
                np.int64).max)  # no statistics: the shard may hold anything, so every slice reads it
        rows.append(meta.num_rows)
        tables.append(spans["table"])
        groups.append(spans["deal_group"])
    shape = (len(paths), 2)
    return ShardIndex(paths=tuple(paths), rows=np.asarray(rows, dtype=np.int64),
                      tables=np.asarray(tables, dtype=np.int64).reshape(shape),
                      groups=np.asarray(groups, dtype=np.int64).reshape(shape))


def slices(manifest: dict[str, Any], rows_per_slice: int = ROWS_PER_SLICE) -> list[Slice | None]:
    """The run cut into slices of about ``rows_per_slice`` rows, from the table plans its manifest records
    (``[EVERYTHING]`` for a manifest without them)."""
    plans = manifest.get("tables") or []
    if not plans:
        return [EVERYTHING]
    cut: list[Slice | None] = []
    for plan in plans:
        groups, rows = int(plan["deal_groups"]), int(plan["hands"])
        per_group = max(1, -(-rows // max(groups, 1)))
        step = max(1, rows_per_slice // per_group)
        cut += [Slice(int(plan["table"]), low, min(low + step, groups)) for low in range(0, groups, step)]
    return cut


def sliced(query: str, part: Slice | None, aliases: Sequence[str] = ("",)) -> str:
    """``query`` with its ``WHERE`` placeholder(s) replaced by ``part``'s condition on each of ``aliases`` in turn."""
    for alias in aliases:
        condition = "TRUE" if part is None else part.condition(alias)
        query = query.replace(WHERE, condition, 1)
    return query


def summed(con: duckdb.DuckDBPyConnection, query: str, keys: Sequence[str], parts: Sequence[Slice | None],
           views: Mapping[str, ShardIndex], aliases: Sequence[str] = ("",)) -> pd.DataFrame:
    """``query`` (its condition the ``WHERE`` placeholder) run on every slice, each of ``views`` a view of the
    shards that hold the slice, and every other column added up per ``keys`` (no keys: one row of totals): an
    additive statistic of the whole run, one slice in memory at a time."""
    frames = []
    for part in parts:
        for name, index in views.items():
            register_shards(con, index.holding(part), name, empty_like=index.paths[0])
        frames.append(con.execute(sliced(query, part, aliases)).df())
    frame = pd.concat([frame for frame in frames if not frame.empty] or frames[:1], ignore_index=True)
    if not keys:
        return frame.sum(numeric_only=True).to_frame().T.astype(np.int64)
    if frame.empty:
        return frame
    return frame.groupby(list(keys), sort=True, as_index=False, dropna=False).sum()


def sql_list(values: Sequence[str]) -> str:
    """Strings as an SQL list literal, ``('repeat', 'cap')``."""
    return "(" + ", ".join("'" + value.replace("'", "''") + "'" for value in values) + ")"


def moments_sql(value: str, key: str) -> str:
    """The SELECT list of the cluster moments of per-cluster columns ``{value}`` (S_g) and ``n`` (n_g), as ``key_*``
    (64-bit: one slice's totals, which ``summed`` adds up)."""
    return (f"sum({value})::BIGINT AS {key}_total, sum({value} * {value})::BIGINT AS {key}_total_sq, "
            f"sum({value} * n)::BIGINT AS {key}_cross")


def moments_of(row: pd.Series, key: str) -> dict[str, int]:
    """The cluster moments (``experiments.runner.moments.MOMENTS``) in a row of a query built with ``moments_sql``
    (and ``rows``, ``rows_sq``, ``groups``): the six totals the runner's chunk summaries add up too."""
    return {"n": int(row["rows"]), "total": int(row[f"{key}_total"]), "clusters": int(row["groups"]),
            "cluster_sq": int(row[f"{key}_total_sq"]), "cluster_cross": int(row[f"{key}_cross"]),
            "cluster_n_sq": int(row["rows_sq"])}


def quantile_of_counts(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The ``q`` quantile of the values ``values`` (ascending) seen ``counts`` times each, interpolated between the
    two nearest order statistics as DuckDB's ``quantile_cont`` does: exact, from a histogram of any size of run."""
    total = int(counts.sum())
    if total == 0:
        return float("nan")
    position = q * (total - 1)
    below = int(np.floor(position))
    ends = np.cumsum(counts)
    low = float(values[np.searchsorted(ends, below, side="right")])
    high = float(values[np.searchsorted(ends, min(below + 1, total - 1), side="right")])
    return low + (position - below) * (high - low)
