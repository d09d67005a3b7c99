"""The intervals every game's statistics use, each computed once, here (a game's own statistics: its ``stats``).

Every interval is a 95% one that respects duplicate deals: hands dealt the
same cards (one ``cluster``: a table's deal group, played in every seating)
are not independent, so means use a cluster-robust variance (the ratio
estimator over clusters), and proportions a Wilson score interval on the
effective sample size that variance implies.

Each game's statistic is read from sufficient statistics (``experiments.analysis.load.Partial``: counts,
histograms and cluster moments) that add up chunk by chunk, so a streamed run (``load.stream_run``) and a loaded
one give the same numbers; a game's ``report_partials`` lists those its report reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.load import Partial, additive
from experiments.runner.moments import MOMENTS, grouped_moments, mean_ci

Z95 = 1.959964


def cluster_mean_ci(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% CI, clusters (ids 0, 1, ...) being the independent units.

    The variance is the cluster-robust (sandwich) one of a ratio estimator:
    ``G/(G-1) * sum_g (S_g - mean * n_g)^2 / N^2`` over the G clusters. NaN with fewer than two clusters.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    sums, counts = cluster_totals(values, clusters)
    groups = len(sums)
    if groups < 2:
        return mean, math.nan
    residual = sums - mean * counts
    variance = groups / (groups - 1) * float(np.sum(residual**2)) / float(counts.sum()) ** 2
    return mean, Z95 * math.sqrt(variance)


def cluster_totals(values: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sum and the count of ``values`` in every cluster that has any (non-negative integer cluster ids)."""
    clusters = np.asarray(clusters, dtype=np.int64)
    sums = np.bincount(clusters, weights=values)
    counts = np.bincount(clusters).astype(np.float64)
    used = counts > 0
    return sums[used], counts[used]


def proportion_ci(hits: np.ndarray, clusters: np.ndarray) -> tuple[float, float, float]:
    """A share of hits with a 95% Wilson interval ``(share, low, high)``, allowing for clustered hits.

    The sample size fed to Wilson's formula is the effective one, ``p(1-p) / var``
    with ``var`` the cluster-robust variance of the share, never above the
    number of hits' rows. When no hit or every row is a hit that variance is
    zero, and the number of clusters stands in (the cautious choice).
    """
    hits = np.asarray(hits, dtype=np.float64)
    n = len(hits)
    if n == 0:
        return math.nan, math.nan, math.nan
    share, half = cluster_mean_ci(hits, clusters)
    clusters_count = int(np.count_nonzero(np.bincount(np.asarray(clusters, dtype=np.int64))))
    return clustered_wilson(share, half, n, clusters_count)


def clustered_wilson(share: float, half: float, rows: int, clusters: int) -> tuple[float, float, float]:
    """``(share, low, high)``: Wilson's interval for a share whose cluster-robust 95% half-width is ``half``.

    The size fed to Wilson's formula is the effective one the variance implies (at most ``rows``); with no hit or
    every row a hit the variance is zero, and the number of ``clusters`` stands in (the cautious choice).
    """
    variance = (half / Z95) ** 2 if not math.isnan(half) else math.nan
    if 0 < share < 1 and variance > 0:
        effective = min(float(rows), share * (1 - share) / variance)
    else:
        effective = float(clusters)
    low, high = wilson_interval(share, effective)
    return share, low, high


def wilson_interval(share: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a share observed on ``n`` trials (n may be an effective, fractional size)."""
    if n <= 0:
        return math.nan, math.nan
    denominator = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion_from_moments(m: dict | pd.Series, scale: int = 1) -> tuple[float, float, float]:
    """``proportion_ci`` from a share's cluster moments (``experiments.runner.moments``): the same interval,
    computed from the six totals that add up chunk by chunk."""
    n = int(m["n"])
    if n == 0:
        return math.nan, math.nan, math.nan
    share, half = mean_ci(m, scale)
    return clustered_wilson(share, half, n, int(m["clusters"]))


def counts_frame(frame: pd.DataFrame, keys: Sequence[str], name: str) -> pd.DataFrame:
    """How many rows of ``frame`` have each combination of ``keys``: an additive partial's frame."""
    if frame.empty:
        return pd.DataFrame(columns=[*keys, name])
    return frame.groupby(list(keys), sort=True, observed=True).size().rename(name).reset_index()



def length_counts(by: Sequence[str], name: str, rows: Callable[[Any], pd.DataFrame], length: str,
                  unit: str) -> Partial:
    """The partial of a length histogram: per ``by`` group, how many ``unit``s (the rows ``rows(run)`` gives)
    have each value of ``length`` (a game's hands, a match's rounds)."""
    keys = [*by, length]
    return additive(f"{name} by {', '.join(by)}", keys,
                    lambda run: counts_frame(plain_keys(rows(run), keys, cluster=False), keys, unit))


def length_shares(counts: pd.DataFrame, by: Sequence[str], length: str, unit: str) -> pd.DataFrame:
    """A ``length_counts`` histogram as a table: per ``by`` group and ``length``, the ``unit``s and their
    ``share`` of the group's."""
    counts = counts[[*by, length, unit]].astype({length: np.int64, unit: np.int64}).reset_index(drop=True)
    counts["share"] = counts[unit] / counts.groupby(list(by))[unit].transform("sum")
    return counts

ZERO_MOMENTS = dict.fromkeys(MOMENTS, 0)
"""The cluster moments of no values: what a group without rows of some kind gets."""


def histogram_percentile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """``np.percentile(rows, q)`` (linear interpolation) of the rows a histogram counts: ``counts[i]`` rows of
    ``values[i]`` (ascending), without making the rows."""
    cumulative = np.cumsum(counts)
    position = (int(cumulative[-1]) - 1) * q / 100
    below = math.floor(position)
    fraction = position - below

    def at(k: int) -> float:
        return float(values[np.searchsorted(cumulative, min(k, int(cumulative[-1]) - 1), side="right")])

    a, b = at(below), at(below + 1)
    return a + (b - a) * fraction if fraction < 0.5 else b - (b - a) * (1 - fraction)


def tagged_moments(frame: pd.DataFrame, keys: Sequence[str], values: dict[str, np.ndarray], tag: str) -> pd.DataFrame:
    """``grouped_moments`` per ``keys`` of each named array of ``values`` (one value per row of ``frame``), stacked
    with the name in column ``tag``: several shares or means over the same rows in one additive frame."""
    plain = plain_keys(frame, keys)
    parts = [grouped_moments(plain.assign(_value=np.asarray(value).astype(np.int64)), keys, "_value").assign(
        **{tag: name}) for name, value in values.items() if len(plain)]
    parts = [part for part in parts if not part.empty]
    if not parts:
        return pd.DataFrame({name: pd.Series(dtype=object) for name in [*keys, tag]}
                            | {name: pd.Series(dtype=np.int64) for name in MOMENTS})
    return stacked(parts).astype(dict.fromkeys(MOMENTS, np.int64))


def stacked(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Additive frames one under the other, empty ones left out (so they never change a column's type)."""
    kept = [frame for frame in frames if not frame.empty]
    return pd.concat(kept, ignore_index=True) if kept else (frames[0] if frames else pd.DataFrame())



def with_sums(moments: pd.DataFrame, sums: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Moments and plain sums (``grouped_sums``) of the same groups as one additive frame: every column but
    ``keys`` as int64, a sum or moment a group lacks being 0."""
    joined = stacked([moments, sums])
    columns = [name for name in joined.columns if name not in keys]
    joined[columns] = joined[columns].fillna(0).astype(np.int64)
    return joined

def grouped_sums(frame: pd.DataFrame, keys: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    """The sums of ``columns`` per group of ``keys`` (keys as plain values, as ``grouped_moments`` gives them)."""
    plain = plain_keys(frame, keys, cluster=False)
    for name in columns:
        plain[name] = frame[name].to_numpy().astype(np.int64)
    if plain.empty:
        return pd.DataFrame(columns=[*keys, *columns])
    return plain.groupby(list(keys), sort=True).sum().reset_index()


def plain_keys(frame: pd.DataFrame, keys: Sequence[str], cluster: bool = True) -> pd.DataFrame:
    """``frame``'s ``keys`` columns as plain NumPy values (a category as its value), with its clusters."""
    names = dict.fromkeys([*keys, *(["cluster"] if cluster else [])])
    return pd.DataFrame({name: frame[name].to_numpy() for name in names}, index=frame.index)


def by_keys(frame: pd.DataFrame, keys: Sequence[str]) -> dict[tuple, pd.Series]:
    """A partial's rows by the tuple of their ``keys``' values."""
    return {tuple(row[key] for key in keys): row for _, row in frame.iterrows()}


class PartialsBySplit:
    """A game's partials that take the columns splitting their table (``by``), each made once per kind and split.

    ``partials(kind, by, make)`` returns the partial ``make(by)`` the first time and the same object after, so
    every statistic of a run that asks for one split reads one partial, computed once."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, tuple[str, ...]], Partial] = {}

    def __call__(self, kind: str, by: Sequence[str], make: Callable[[tuple[str, ...]], Partial]) -> Partial:
        """The one partial of ``kind`` split by ``by`` (made by ``make`` on first use)."""
        key = (kind, tuple(by))
        if key not in self._made:
            self._made[key] = make(tuple(by))
        return self._made[key]


def seat_zero_sum(unit: str) -> Partial:
    """The partial counting the ``unit``s (``game``, ``match``: a column of the run's seats) whose seats' scores do
    not add up to zero."""
    def bad_units(run: Any) -> pd.DataFrame:
        bad = run.seats.groupby(unit)["score"].sum() != 0
        return pd.DataFrame({"bad": [int(bad.sum())]})

    return additive("zero sum", [], bad_units)


def bad_count(run: Any, partial: Partial) -> int:
    """The ``bad`` total of a run's partial (0 for a run without rows): how many units a check found wrong."""
    frame = run.partial(partial)
    return int(frame["bad"].sum()) if not frame.empty else 0
