"""Cluster moments: six totals per statistic that add up chunk by chunk and give the interval over deal groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.stats import cluster_mean_ci, proportion_ci, proportion_from_moments
from experiments.runner.moments import add_moments, cluster_moments, grouped_moments, mean_ci


def test_the_interval_from_moments_is_the_interval_over_deal_groups():
    rng = np.random.default_rng(3)
    values = rng.integers(-9, 4, size=5000)
    clusters = rng.integers(0, 700, size=5000)
    mean, half = mean_ci(cluster_moments(values, clusters))
    expected_mean, expected_half = cluster_mean_ci(values, clusters)
    assert mean == pytest.approx(expected_mean, abs=1e-14) and half == pytest.approx(expected_half, rel=1e-12)


def test_moments_of_chunks_of_whole_clusters_add_up_to_the_whole_runs():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"agent": rng.choice(["a", "b", "c"], 3000), "score": rng.integers(-5, 6, 3000),
                          "cluster": np.sort(rng.integers(0, 400, 3000))})
    chunks = [frame[(frame.cluster >= lo) & (frame.cluster < lo + 100)] for lo in range(0, 400, 100)]
    summed = add_moments([grouped_moments(c, ["agent"], "score") for c in chunks], ["agent"])
    whole = grouped_moments(frame, ["agent"], "score")
    pd.testing.assert_frame_equal(summed.reset_index(drop=True), whole, check_dtype=False)


def test_a_share_from_moments_has_the_rows_wilson_interval_and_half_points_count_with_scale_two():
    rng = np.random.default_rng(5)
    hits = rng.random(2000) < 0.3
    clusters = rng.integers(0, 300, 2000)
    assert proportion_from_moments(cluster_moments(hits, clusters)) == pytest.approx(proportion_ci(hits, clusters))
    results = rng.choice([0.0, 0.5, 1.0], 2000)
    doubled = cluster_moments((2 * results).astype(int), clusters)
    assert mean_ci(doubled, scale=2) == pytest.approx(cluster_mean_ci(results, clusters))
    assert proportion_from_moments(doubled, scale=2) == pytest.approx(proportion_ci(results, clusters))
