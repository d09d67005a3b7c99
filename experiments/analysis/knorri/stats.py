"""The statistics of a Knorri run that the notebooks and ``knorri-sim report`` show, each computed once, here.

Every interval is a 95% one that respects duplicate deals (``experiments.analysis.stats``): hands dealt the
same cards (one ``cluster``) are not independent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.analysis.knorri.load import CUTOFF_REASONS, Run
from experiments.analysis.load import Partial, additive
from experiments.analysis.stats import counts_frame, histogram_percentile, proportion_from_moments
from experiments.runner.moments import MOMENTS, grouped_moments, mean_ci

# ----- cut-offs ---------------------------------------------------------------------------------------


def _reason_moments(run: Run, by: str) -> pd.DataFrame:
    hands = run.hands
    frames = []
    for reason in CUTOFF_REASONS:
        hit = hands.assign(_hit=(hands["end_reason"] == reason).to_numpy())
        frames.append(grouped_moments(hit, [by], "_hit").assign(reason=reason))
    cut = hands.assign(_hit=hands["end_reason"].isin(CUTOFF_REASONS).to_numpy())
    frames.append(grouped_moments(cut, [by], "_hit").assign(reason="cutoff"))
    return pd.concat(frames, ignore_index=True)


CUTOFFS_BY_TABLE = additive("cutoffs by table", ["table", "reason"], lambda run: _reason_moments(run, "table"))
CUTOFFS_BY_SEATS = additive("cutoffs by seats", ["n_seats", "reason"], lambda run: _reason_moments(run, "n_seats"))
PHASE2_LENGTHS = additive("phase-2 lengths", ["n_seats", "phase2_actions"],
                          lambda run: counts_frame(run.hands, ["n_seats", "phase2_actions"], "hands"))
CYCLE_LENGTHS = additive("cycle lengths", ["n_seats", "cycle_length"], lambda run: counts_frame(
    run.hands[run.hands["end_reason"] == "repeat"].astype({"cycle_length": "int64"}), ["n_seats", "cycle_length"],
    "hands"))
ZERO_SUM = additive("zero sum", ["n_seats"], lambda run: run.hands.assign(
    bad=(run.hands["score_sum"] != 0).astype(np.int64)).groupby("n_seats")["bad"].sum().reset_index())


def _reason_rows(moments: pd.DataFrame, by: str, reasons: Sequence[str]) -> list[tuple[object, str, pd.Series]]:
    """The moments' rows as (group, reason, totals), groups in order, reasons in ``reasons``' order."""
    indexed = moments.set_index([by, "reason"])
    return [(key, reason, indexed.loc[(key, reason)]) for key in sorted(moments[by].unique()) for reason in reasons]


def cutoff_rates(run: Run) -> pd.DataFrame:
    """Per table (seat count and lineup) and cut-off reason: hands, share ended that way, 95% CI."""
    info = run.tables.set_index("table")
    rows = []
    for table, reason, m in _reason_rows(run.partial(CUTOFFS_BY_TABLE), "table", CUTOFF_REASONS):
        share, low, high = proportion_from_moments(m)
        rows.append({"table": table, "seats": int(info.loc[table, "seats"]), "lineup": info.loc[table, "lineup"],
                     "label": info.loc[table, "label"], "reason": reason, "hands": int(m["n"]),
                     "count": int(m["total"]), "share": share,
                     "low": low, "high": high})
    return pd.DataFrame(rows)


def cutoff_rates_by_seats(run: Run) -> pd.DataFrame:
    """Per seat count (every lineup pooled) and cut-off reason: hands, share, 95% CI."""
    rows = []
    for seats, reason, m in _reason_rows(run.partial(CUTOFFS_BY_SEATS), "n_seats", CUTOFF_REASONS):
        share, low, high = proportion_from_moments(m)
        rows.append({"seats": int(seats), "reason": reason, "hands": int(m["n"]), "share": share,
                     "low": low, "high": high})
    return pd.DataFrame(rows)


def loopiest_lineups(run: Run, top: int = 5) -> pd.DataFrame:
    """The tables whose hands end by a cut-off (repeat or cap) most often, with a 95% CI; most first."""
    info = run.tables.set_index("table")
    rows = []
    for table, _, m in _reason_rows(run.partial(CUTOFFS_BY_TABLE), "table", ["cutoff"]):
        share, low, high = proportion_from_moments(m)
        rows.append({"label": info.loc[table, "label"], "hands": int(m["n"]), "cutoffs": int(m["total"]),
                     "share": share, "low": low, "high": high})
    frame = pd.DataFrame(rows).sort_values(["share", "hands"], ascending=[False, False], ignore_index=True)
    return frame.head(top)


def phase2_histogram(run: Run) -> pd.DataFrame:
    """Per seat count and phase-2 length: how many hands ran that long (``seats``, ``phase2_actions``, ``hands``),
    with ``capped``, the seat count's hands cut off at the cap, and ``cap``, the run's cap: what the phase-2 figure
    draws."""
    counts = run.partial(PHASE2_LENGTHS).astype({"n_seats": np.int64, "phase2_actions": np.int64,
                                                 "hands": np.int64})
    caps = run.partial(CUTOFFS_BY_SEATS)
    capped = caps[caps["reason"] == "cap"].set_index("n_seats")["total"].astype(np.int64)
    counts["capped"] = counts["n_seats"].map(capped).fillna(0).astype(np.int64)
    counts["cap"] = run.cap
    return counts.rename(columns={"n_seats": "seats"})


def phase2_length_summary(run: Run) -> pd.DataFrame:
    """Per seat count: phase-2 actions per hand (median, 99th percentile, maximum) and hands that hit the cap."""
    histogram = phase2_histogram(run)
    rows = []
    for seats, part in histogram.groupby("seats", sort=True):
        part = part.sort_values("phase2_actions")
        values, counts = part["phase2_actions"].to_numpy(), part["hands"].to_numpy()
        rows.append({"seats": int(seats), "hands": int(counts.sum()),
                     "median": histogram_percentile(values, counts, 50),
                     "p99": histogram_percentile(values, counts, 99), "max": int(values.max()),
                     "at_cap": int(part["capped"].iloc[0])})
    return pd.DataFrame(rows)


def cycle_length_counts(run: Run) -> pd.DataFrame:
    """Per seat count and cycle length: how many hands ended by a repeat with that cycle (actions between equals)."""
    counts = run.partial(CYCLE_LENGTHS)
    if counts.empty:
        return pd.DataFrame(columns=["seats", "cycle_length", "hands"])
    counts = counts.astype({"n_seats": np.int64, "cycle_length": np.int64, "hands": np.int64})
    return counts.rename(columns={"n_seats": "seats"}).reset_index(drop=True)


# ----- scores -----------------------------------------------------------------------------------------


def zero_sum_violations(run: Run) -> int:
    """How many hands' scores do not add up to zero (the rules say none)."""
    return int(run.partial(ZERO_SUM)["bad"].sum())


def _score_counts(by: tuple[str, ...]) -> Partial:
    keys = [*by, "score"]
    return additive(f"score counts by {', '.join(by)}", keys, lambda run: counts_frame(run.seats, keys, "seat_hands"))


SCORE_COUNTS = {by: _score_counts(by) for by in (("n_seats",), ("n_seats", "agent"))}


def score_distribution(run: Run, by: tuple[str, ...] = ("n_seats",)) -> pd.DataFrame:
    """The share of seat-hands with each score, per ``by`` group (seat count, and e.g. agent)."""
    keys = list(by)
    partial = SCORE_COUNTS.get(tuple(by)) or _score_counts(tuple(by))
    counts = run.partial(partial).astype({"seat_hands": np.int64, "score": np.int64})
    totals = counts.groupby(keys, observed=True)["seat_hands"].transform("sum")
    counts["share"] = counts["seat_hands"] / totals
    return counts.rename(columns={"n_seats": "seats"})


def _score_moments(by: tuple[str, ...]) -> Partial:
    keys = list(by)

    def compute(run: Run) -> pd.DataFrame:
        score = grouped_moments(run.seats, keys, "score")
        lost = grouped_moments(run.seats, keys, "lost").rename(columns={m: f"lost_{m}" for m in MOMENTS})
        return score.merge(lost, on=keys)

    return additive(f"scores by {', '.join(by)}", keys, compute)


SCORE_MOMENTS = {by: _score_moments(by) for by in (("n_seats", "position"), ("n_seats", "agent"), ("table", "agent"))}


def grouped_scores(run: Run, by: tuple[str, ...]) -> pd.DataFrame:
    """Per ``by`` group of seats: seat-hands, mean score with 95% CI, loss rate with 95% CI."""
    partial = SCORE_MOMENTS.get(tuple(by)) or _score_moments(tuple(by))
    rows = []
    for m in run.partial(partial).to_dict("records"):
        mean, half = mean_ci(m)
        loss, loss_low, loss_high = proportion_from_moments({k: m[f"lost_{k}"] for k in MOMENTS})
        rows.append({**{k: m[k] for k in by}, "seat_hands": int(m["n"]), "mean": mean, "ci95": half,
                     "loss_rate": loss, "loss_low": loss_low, "loss_high": loss_high})
    frame = pd.DataFrame(rows)
    for key in by:
        if key != "agent":
            frame[key] = frame[key].astype(np.int64)
    return frame.rename(columns={"n_seats": "seats"})


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


def knorri_partials() -> list[Partial]:
    """Every partial a Knorri report reads: what ``stream.stream_run`` gathers chunk by chunk."""
    from experiments.analysis import ladder

    return [CUTOFFS_BY_TABLE, CUTOFFS_BY_SEATS, PHASE2_LENGTHS, CYCLE_LENGTHS, ZERO_SUM, *SCORE_COUNTS.values(),
            *SCORE_MOMENTS.values(), ladder.PAIR_MOMENTS, ladder.RATINGS]
