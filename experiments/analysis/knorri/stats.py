"""The statistics of a Knorri run that the notebooks and ``knorri-sim report`` show, each computed once, here.

Every interval is a 95% one that respects duplicate deals (``experiments.analysis.stats``): hands dealt the
same cards (one ``cluster``) are not independent.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.knorri.load import CUTOFF_REASONS, Run
from experiments.analysis.stats import cluster_mean_ci, proportion_ci

# ----- cut-offs ---------------------------------------------------------------------------------------


def cutoff_rates(run: Run) -> pd.DataFrame:
    """Per table (seat count and lineup) and cut-off reason: hands, share ended that way, 95% CI."""
    rows = []
    for table, group in run.hands.groupby("table", sort=True):
        info = run.tables.set_index("table").loc[table]
        for reason in CUTOFF_REASONS:
            share, low, high = proportion_ci((group["end_reason"] == reason).to_numpy(), group["cluster"].to_numpy())
            rows.append({"table": table, "seats": int(info["seats"]), "lineup": info["lineup"], "label": info["label"],
                         "reason": reason, "hands": len(group), "share": share, "low": low, "high": high})
    return pd.DataFrame(rows)


def cutoff_rates_by_seats(run: Run) -> pd.DataFrame:
    """Per seat count (every lineup pooled) and cut-off reason: hands, share, 95% CI."""
    rows = []
    for seats, group in run.hands.groupby("n_seats", sort=True):
        for reason in CUTOFF_REASONS:
            share, low, high = proportion_ci((group["end_reason"] == reason).to_numpy(), group["cluster"].to_numpy())
            rows.append({"seats": int(seats), "reason": reason, "hands": len(group), "share": share,
                         "low": low, "high": high})
    return pd.DataFrame(rows)


def loopiest_lineups(run: Run, top: int = 5) -> pd.DataFrame:
    """The tables whose hands end by a cut-off (repeat or cap) most often, with a 95% CI; most first."""
    rows = []
    for table, group in run.hands.groupby("table", sort=True):
        info = run.tables.set_index("table").loc[table]
        cut = group["end_reason"].isin(CUTOFF_REASONS).to_numpy()
        share, low, high = proportion_ci(cut, group["cluster"].to_numpy())
        rows.append({"label": info["label"], "hands": len(group), "cutoffs": int(cut.sum()),
                     "share": share, "low": low, "high": high})
    frame = pd.DataFrame(rows).sort_values(["share", "hands"], ascending=[False, False], ignore_index=True)
    return frame.head(top)


def phase2_length_summary(run: Run) -> pd.DataFrame:
    """Per seat count: phase-2 actions per hand (median, 99th percentile, maximum) and hands that hit the cap."""
    rows = []
    for seats, group in run.hands.groupby("n_seats", sort=True):
        length = group["phase2_actions"].to_numpy()
        rows.append({"seats": int(seats), "hands": len(group), "median": float(np.median(length)),
                     "p99": float(np.percentile(length, 99)), "max": int(length.max()),
                     "at_cap": int((group["end_reason"] == "cap").sum())})
    return pd.DataFrame(rows)


def cycle_length_counts(run: Run) -> pd.DataFrame:
    """Per seat count and cycle length: how many hands ended by a repeat with that cycle (actions between equals)."""
    repeats = run.hands[run.hands["end_reason"] == "repeat"]
    if repeats.empty:
        return pd.DataFrame(columns=["seats", "cycle_length", "hands"])
    counts = repeats.groupby(["n_seats", repeats["cycle_length"].astype("int64")]).size()
    frame = counts.rename("hands").reset_index()
    return frame.rename(columns={"n_seats": "seats"})


# ----- scores -----------------------------------------------------------------------------------------


def zero_sum_violations(run: Run) -> int:
    """How many hands' scores do not add up to zero (the rules say none)."""
    return int((run.hands["score_sum"] != 0).sum())


def score_distribution(run: Run, by: tuple[str, ...] = ("n_seats",)) -> pd.DataFrame:
    """The share of seat-hands with each score, per ``by`` group (seat count, and e.g. agent)."""
    keys = list(by)
    counts = run.seats.groupby(keys + ["score"]).size().rename("seat_hands").reset_index()
    totals = counts.groupby(keys)["seat_hands"].transform("sum")
    counts["share"] = counts["seat_hands"] / totals
    return counts.rename(columns={"n_seats": "seats"})


def grouped_scores(run: Run, by: tuple[str, ...]) -> pd.DataFrame:
    """Per ``by`` group of seats: seat-hands, mean score with 95% CI, loss rate with 95% CI."""
    rows = []
    for key, group in run.seats.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        clusters = group["cluster"].to_numpy()
        mean, half = cluster_mean_ci(group["score"].to_numpy(), clusters)
        loss, loss_low, loss_high = proportion_ci(group["lost"].to_numpy(), clusters)
        rows.append({**dict(zip(by, key, strict=True)), "seat_hands": len(group), "mean": mean, "ci95": half,
                     "loss_rate": loss, "loss_low": loss_low, "loss_high": loss_high})
    return pd.DataFrame(rows).rename(columns={"n_seats": "seats"})


def position_scores(run: Run) -> pd.DataFrame:
    """Per seat count and turn position (0 = the seat with the first turn of phase 1): mean score and loss rate."""
    return grouped_scores(run, ("n_seats", "position"))


def agent_scores(run: Run, per_table: bool = False) -> pd.DataFrame:
    """Per seat count (or per table) and agent: mean score per hand and loss rate, with duplicate-deal CIs."""
    if per_table:
        frame = grouped_scores(run, ("table", "agent"))
        labels = run.tables.set_index("table")
        frame["seats"] = frame["table"].map(labels["seats"])
        frame["label"] = frame["table"].map(labels["label"])
        return frame
    return grouped_scores(run, ("n_seats", "agent"))
