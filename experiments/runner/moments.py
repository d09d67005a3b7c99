"""Cluster moments: the sums a duplicate-deal interval needs, which add up chunk by chunk.

The project's 95% intervals treat the hands of one deal group (a table's cluster)
as one independent unit: the variance of a mean over clusters ``g`` with sums
``S_g`` of ``n_g`` values is ``G/(G-1) * sum_g (S_g - mean * n_g)^2 / N^2``.
Expanding the square, that needs only six totals per statistic, each a sum over
clusters: ``n`` (values), ``total`` (their sum), ``clusters`` (G), ``cluster_sq``
(sum of ``S_g^2``), ``cluster_cross`` (sum of ``S_g * n_g``) and ``cluster_n_sq``
(sum of ``n_g^2``). A chunk is whole deal groups, so no cluster spans two chunks
and a run's totals are the sum of its chunks': a 10^8-row run is summarised from
a few numbers per chunk, and the interval is exactly the one over deal groups.

Values are integers (scores, 0/1 hits, or doubled half points with ``scale=2``),
so the totals are exact and the residual sum is computed in exact integer
arithmetic: the interval equals the row-by-row one to the last printed digit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

Z95 = 1.959964
MOMENTS = ("n", "total", "clusters", "cluster_sq", "cluster_cross", "cluster_n_sq")


def cluster_moments(values: np.ndarray, clusters: np.ndarray) -> dict[str, int]:
    """The six totals of integer ``values`` whose clusters are ``clusters`` (non-negative integer ids)."""
    values = np.asarray(values).astype(np.int64)
    clusters = np.asarray(clusters, dtype=np.int64)
    if len(values) == 0:
        return dict.fromkeys(MOMENTS, 0)
    low = int(clusters.min())
    span = int(clusters.max()) - low + 1
    if span <= 4 * len(values):  # a chunk's clusters are a run of deal groups: count by offset, no hashing
        counts = np.bincount(clusters - low, minlength=span)
        sums = np.bincount(clusters - low, weights=values, minlength=span)[counts > 0].astype(np.int64)
        counts = counts[counts > 0].astype(np.int64)
    else:  # by hashing, unsorted: the totals do not depend on the clusters' order
        import pandas as pd  # here, not above: a run's workers sum chunks with this module and need no pandas

        dense, ids = pd.factorize(clusters)
        sums = np.bincount(dense, weights=values, minlength=len(ids)).astype(np.int64)
        counts = np.bincount(dense, minlength=len(ids)).astype(np.int64)
    return {"n": int(counts.sum()), "total": int(values.sum()), "clusters": len(counts),
            "cluster_sq": int(np.sum(sums * sums)), "cluster_cross": int(np.sum(sums * counts)),
            "cluster_n_sq": int(np.sum(counts * counts))}


def grouped_moments(frame: pd.DataFrame, keys: Sequence[str], value: str, cluster: str = "cluster") -> pd.DataFrame:
    """``cluster_moments`` of ``frame[value]`` for every group of ``keys``: one row per group, keys as columns,
    groups in sorted order."""
    import pandas as pd

    keys = list(keys)
    if frame.empty:
        return pd.DataFrame(columns=[*keys, *MOMENTS])
    codes, uniques = [], []
    for key in keys:
        code, unique = pd.factorize(frame[key].to_numpy(), sort=True)
        codes.append(code.astype(np.int64))
        uniques.append(unique)
    group = np.zeros(len(frame), dtype=np.int64)
    for code, unique in zip(codes, uniques, strict=True):
        group = group * len(unique) + code
    clusters = frame[cluster].to_numpy().astype(np.int64)
    pair = group * (int(clusters.max()) + 1) + clusters
    pairs, dense = np.unique(pair, return_inverse=True)
    values = frame[value].to_numpy().astype(np.int64)
    sums = np.bincount(dense, weights=values, minlength=len(pairs)).astype(np.int64)
    sizes = np.bincount(dense, minlength=len(pairs)).astype(np.int64)
    pair_group = pairs // (int(clusters.max()) + 1)
    groups, at = np.unique(pair_group, return_inverse=True)

    def per_group(weights: np.ndarray) -> np.ndarray:
        return np.bincount(at, weights=weights, minlength=len(groups)).astype(np.int64)

    out = {}
    rest = groups
    for key, unique in reversed(list(zip(keys, uniques, strict=True))):
        rest, code = np.divmod(rest, len(unique))
        out[key] = np.asarray(unique)[code]
    columns = {key: out[key] for key in keys}
    columns.update(n=per_group(sizes), total=per_group(sums), clusters=np.bincount(at, minlength=len(groups)),
                   cluster_sq=per_group(sums * sums), cluster_cross=per_group(sums * sizes),
                   cluster_n_sq=per_group(sizes * sizes))
    return pd.DataFrame(columns)


def add_moments(frames: Sequence[pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """Several chunks' ``grouped_moments`` (or any frames of additive counts) as one: summed group by group."""
    import pandas as pd

    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=list(keys))
    joined = pd.concat(frames, ignore_index=True)
    if not keys:
        return joined.sum(numeric_only=True).to_frame().T
    return joined.groupby(list(keys), sort=True, observed=True).sum(numeric_only=True).reset_index()


def mean_ci(m: dict | pd.Series, scale: int = 1) -> tuple[float, float]:
    """The mean and the 95% half-width over clusters from the six totals (values divided by ``scale``).

    NaN for no values; the half-width is NaN with fewer than two clusters.
    """
    n, total, groups = int(m["n"]), int(m["total"]), int(m["clusters"])
    if n == 0:
        return math.nan, math.nan
    mean = total / n / scale
    if groups < 2:
        return mean, math.nan
    # N^2 * sum_g (S_g - mean n_g)^2, exactly, in integers
    residual = n * n * int(m["cluster_sq"]) - 2 * n * total * int(m["cluster_cross"]) \
        + total * total * int(m["cluster_n_sq"])
    variance = groups / (groups - 1) * (residual / (n * n)) / (n * n) / (scale * scale)
    return mean, Z95 * math.sqrt(max(variance, 0.0))
