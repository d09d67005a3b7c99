"""Cut-off science on a Knorri run: how often each table cuts hands off, the anatomy of the loops, how long hands
run as a survival curve, computed in bounded memory.

Nothing here reads a run into memory: DuckDB aggregates the run's complete shards
(``RUN/hands/part-*.parquet``, only the columns a query names) down to small tables, spilling to a temporary
folder if it must (``connect``), so a 100M-hand run is read as well as a small one. Every share's 95% interval
is the project's (``experiments.analysis.stats``): Wilson's on the effective size a cluster-robust variance over
deal groups gives, from the clusters' sums (the cluster moments of ``experiments.runner.moments``). The
survival curves and the exponential tail fits are ``lifelines``', fed one weighted row per (length, ended or
cut off) so their size does not grow with the run. What the cut-off changes, from a run continued past its
cut-offs (``--continue-past-cutoff``) or from a second run under other options, is
``experiments.analysis.knorri.counterfactual``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
from lifelines import ExponentialFitter, KaplanMeierFitter

from experiments.analysis.duck import (
    WHERE,
    connect,
    moments_of,
    moments_sql,
    quantile_of_counts,
    sql_list,
    summed,
)
from experiments.analysis.knorri.counterfactual import compare_continued, compare_runs
from experiments.analysis.knorri.cutoff_run import CutoffRun, open_cutoff_run, run_slices
from experiments.analysis.stats import proportion_from_moments
from sim import games

LOOP_REASON = "repeat"  # the cut-off whose hands have a cycle (Knorri's repeated position)
ANY = "any cut-off"
TAIL_QUANTILES = (0.0, 0.5, 0.75, 0.9, 0.97)  # survival drops to 1 - q: the tail fits start there
FIT_QUANTILE = 0.75  # the fit the summary quotes: beyond the length a quarter of hands outlast
MIN_TAIL_EVENTS = 10  # fewer hands ending beyond a threshold give no rate worth quoting


def options_text(options: dict[str, Any]) -> str:
    """A run's options as ``cap=20000, repeat=0``, or ``the default rules`` when it set none."""
    return ", ".join(f"{key}={value}" for key, value in sorted(options.items())) or "the default rules"


# ----- shares by table --------------------------------------------------------------------------------


def cutoff_shares(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> pd.DataFrame:
    """Per table and cut-off reason (and any cut-off): hands, cut-offs, share and its 95% interval over deal groups."""
    reasons = [*run.cut_offs, ANY]
    hits = [f"count(*) FILTER (WHERE end_reason = '{reason}') AS h{i}" for i, reason in enumerate(run.cut_offs)]
    hits.append(f"count(*) FILTER (WHERE end_reason IN {sql_list(run.cut_offs)}) AS h{len(run.cut_offs)}")
    moments = ", ".join(moments_sql(f"h{i}", f"h{i}") for i in range(len(reasons)))
    frame = summed(con, f"""
        WITH groups AS (SELECT "table" AS t, deal_group, count(*) AS n, {', '.join(hits)}
                        FROM {view} WHERE {WHERE} GROUP BY ALL)
        SELECT t, count(*) AS groups, sum(n)::BIGINT AS rows, sum(n * n)::BIGINT AS rows_sq, {moments}
        FROM groups GROUP BY t""", ["t"], run_slices(run), {view: run.shards})
    info = run.tables.set_index("table")
    rows = []
    for _, row in frame.iterrows():
        table = int(row["t"])
        for i, reason in enumerate(reasons):
            moments_row = moments_of(row, f"h{i}")
            share, low, high = proportion_from_moments(moments_row)
            rows.append({"table": table, "seats": int(info.loc[table, "seats"]), "lineup": info.loc[table, "lineup"],
                         "label": info.loc[table, "label"], "reason": reason, "hands": moments_row["n"],
                         "cutoffs": moments_row["total"], "share": share, "low": low, "high": high})
    return pd.DataFrame(rows, columns=["table", "seats", "lineup", "label", "reason", "hands", "cutoffs", "share",
                                       "low", "high"])


# ----- loop anatomy -----------------------------------------------------------------------------------


@dataclass
class Anatomy:
    """The loops of hands cut off by a repeat: distributions per table, which seats act, and consistency.

    Every frame counts repeat-ended hands, per table (a lineup at a seat count: a run may seat several lineups at
    one count, and their loops differ). Without the anatomy columns only ``lengths`` is filled.
    """

    present: bool
    lengths: pd.DataFrame  # table, label, seats, value (cycle_length), hands
    choices: pd.DataFrame = field(default_factory=pd.DataFrame)  # table, label, seats, value (cycle_choices), hands
    paths: pd.DataFrame = field(default_factory=pd.DataFrame)  # the same, value cycle_log2_paths in 1-wide bins
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)  # per table: repeats, quantiles, min choices
    seats: pd.DataFrame = field(default_factory=pd.DataFrame)  # per table and seat: agent, repeats, in the cycle
    violations: dict[str, int] = field(default_factory=dict)  # each consistency rule: hands breaking it


def loop_anatomy(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> Anatomy:
    """The anatomy of every repeat: cycle lengths, choices per cycle, log2 paths (so the chance uniform random play
    goes round again, 2^-x), the seats that act in the cycle; and how many hands break the columns' rules.

    Each distribution is a histogram added up slice by slice; its quantiles are exact (``quantile_of_counts``)."""
    parts = run_slices(run)
    where = f"WHERE end_reason = '{LOOP_REASON}' AND {WHERE}"
    info = run.tables.set_index("table")

    def counts(expression: str) -> pd.DataFrame:
        frame = summed(con, f"""SELECT "table"::INTEGER AS t, {expression} AS value, count(*) AS hands
                                FROM {view} {where} GROUP BY ALL""", ["t", "value"], parts, {view: run.shards})
        frame = frame.rename(columns={"t": "table"})
        frame.insert(1, "label", frame["table"].map(info["label"]))
        frame.insert(2, "seats", frame["table"].map(info["seats"]).astype(np.int64))
        return frame

    lengths = counts("cycle_length::BIGINT")
    if not run.has_anatomy:
        return Anatomy(present=False, lengths=lengths)
    choices, paths = counts("cycle_choices::BIGINT"), counts("cycle_log2_paths::DOUBLE")
    seat_sums = ", ".join(f"coalesce(sum((cycle_seats::INTEGER >> {s}) & 1), 0)::BIGINT AS in_{s}"
                          for s in range(run.width))
    by_seat = summed(con, f"""SELECT "table" AS t, count(*) AS repeats,
                                     sum(bit_count(cycle_seats::INTEGER))::BIGINT AS seats_acting, {seat_sums}
                              FROM {view} {where} GROUP BY ALL""", ["t"], parts, {view: run.shards})
    seat_rows = []
    for _, row in by_seat.iterrows():
        table = int(row["t"])
        for seat in range(int(info.loc[table, "seats"])):
            seat_rows.append({"table": table, "label": info.loc[table, "label"], "seat": seat,
                              "repeats": int(row["repeats"]), "in_cycle": int(row[f"in_{seat}"]),
                              "share": int(row[f"in_{seat}"]) / int(row["repeats"])})
    checks = summed(con, f"""
        SELECT count(*) FILTER (WHERE cycle_start + cycle_length <> phase2_actions) AS start_plus_length,
               count(*) FILTER (WHERE cycle_choices < 1) AS choices_at_least_one,
               count(*) FILTER (WHERE cycle_log2_paths < cycle_choices - 1e-3) AS paths_at_least_choices,
               count(*) FILTER (WHERE end_reason = '{LOOP_REASON}' AND (cycle_start IS NULL OR cycle_choices IS NULL
                                OR cycle_log2_paths IS NULL OR cycle_seats IS NULL)) AS repeat_has_anatomy,
               count(*) FILTER (WHERE end_reason <> '{LOOP_REASON}' AND (cycle_start IS NOT NULL
                                OR cycle_choices IS NOT NULL OR cycle_seats IS NOT NULL)) AS others_null
        FROM {view} WHERE {WHERE}""", [], parts, {view: run.shards}).iloc[0]
    summary = anatomy_summary(lengths, choices, paths, by_seat.set_index("t")["seats_acting"])
    return Anatomy(present=True, lengths=lengths, choices=choices,
                   paths=paths.assign(value=np.floor(paths["value"]).astype(np.int64)).groupby(
                       ["table", "label", "seats", "value"], as_index=False)["hands"].sum(),
                   summary=summary, seats=pd.DataFrame(seat_rows),
                   violations={name: int(value) for name, value in checks.items()})


def anatomy_summary(lengths: pd.DataFrame, choices: pd.DataFrame, paths: pd.DataFrame,
                    seats_acting: pd.Series) -> pd.DataFrame:
    """Per table, from the exact histograms: repeats, the quantiles of log2 paths, choices and cycle length, the
    fewest paths and choices, the mean number of seats acting in a cycle (``seats_acting``: their sum per table),
    and the median chance of going round again under uniform random play (2^-median paths)."""
    rows = []
    for table, part in paths.groupby("table", sort=True):
        values, hands = part["value"].to_numpy(float), part["hands"].to_numpy()
        chosen = choices[choices["table"] == table]
        long = lengths[lengths["table"] == table]
        repeats = int(hands.sum())
        rows.append({"table": int(table), "label": part["label"].iloc[0], "seats": int(part["seats"].iloc[0]),
                     "repeats": repeats,
                     "paths_p10": quantile_of_counts(values, hands, 0.1),
                     "paths_median": quantile_of_counts(values, hands, 0.5),
                     "paths_p90": quantile_of_counts(values, hands, 0.9), "paths_min": float(values.min()),
                     "choices_median": quantile_of_counts(chosen["value"].to_numpy(float), chosen["hands"].to_numpy(),
                                                          0.5),
                     "choices_min": int(chosen["value"].min()),
                     "length_median": quantile_of_counts(long["value"].to_numpy(float), long["hands"].to_numpy(), 0.5),
                     "seats_mean": float(seats_acting.get(table, 0)) / repeats})
    summary = pd.DataFrame(rows, columns=["table", "label", "seats", "repeats", "paths_p10", "paths_median",
                                          "paths_p90", "paths_min", "choices_median", "choices_min", "length_median",
                                          "seats_mean"])
    summary["again_median"] = np.exp2(-summary["paths_median"].astype(float))
    return summary


# ----- hand length as a survival curve ----------------------------------------------------------------


@dataclass
class Survival:
    """Phase-2 length per table as Kaplan-Meier curves (cut-off hands censored) and exponential tail fits."""

    curves: pd.DataFrame  # table, label, time, survival, low, high (lifelines' 95% band)
    medians: pd.DataFrame  # table, label, hands, cut off, median (and its 95% interval)
    tails: pd.DataFrame  # table, label, quantile, threshold, beyond, events, rate (per 100 actions), low, high
    cap: int | None  # the run's action cap, where its options or its game's defaults name one


def length_counts(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> pd.DataFrame:
    """Hands per table, phase-2 length and whether the hand ended (not cut off): the weighted rows lifelines fits."""
    return summed(con, f"""
        SELECT "table"::INTEGER AS t, phase2_actions::BIGINT AS length,
               end_reason NOT IN {sql_list(run.cut_offs)} AS ended, count(*) AS hands
        FROM {view} WHERE {WHERE} GROUP BY ALL""", ["t", "length", "ended"], run_slices(run),
                  {view: run.shards})


def hand_survival(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> Survival:
    """Kaplan-Meier of phase-2 length per table, cut-off hands censored at their length, with lifelines' 95%
    (exponential Greenwood) band, and exponential fits of the tail beyond each of ``TAIL_QUANTILES``."""
    counts = length_counts(con, run, view)
    info = run.tables.set_index("table")
    curves, medians, tails = [], [], []
    for table, part in counts.groupby("t", sort=True):
        label = info.loc[table, "label"]
        durations, ended, weights = part["length"].to_numpy(), part["ended"].to_numpy(), part["hands"].to_numpy()
        fitter = KaplanMeierFitter().fit(durations, ended, weights=weights)
        band = fitter.confidence_interval_survival_function_
        curves.append(pd.DataFrame({"table": table, "label": label, "time": fitter.survival_function_.index,
                                    "survival": fitter.survival_function_.iloc[:, 0].to_numpy(),
                                    "low": band.iloc[:, 0].to_numpy(), "high": band.iloc[:, 1].to_numpy()}))
        median = float(fitter.median_survival_time_)
        medians.append({"table": table, "label": label, "hands": int(weights.sum()),
                        "cut off": int(weights[~ended].sum()), "median": median,
                        "median_low": _time_where(band.iloc[:, 0], 0.5), "median_high": _time_where(band.iloc[:, 1],
                                                                                                    0.5)})
        for quantile in TAIL_QUANTILES:
            threshold = 0.0 if quantile == 0 else _time_where(fitter.survival_function_.iloc[:, 0], 1 - quantile)
            tails.append({"table": table, "label": label, "quantile": quantile, "threshold": threshold,
                          **exponential_tail(durations, ended, weights, threshold)})
    return Survival(curves=pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(),
                    medians=pd.DataFrame(medians), tails=pd.DataFrame(tails), cap=run_cap(run))


def exponential_tail(durations: np.ndarray, ended: np.ndarray, weights: np.ndarray, threshold: float) -> dict:
    """An exponential fit (lifelines' ``ExponentialFitter``, maximum likelihood with censoring) of the time hands
    outlive ``threshold`` by, over the hands still playing there: their decay rate per 100 actions, 95% interval.

    The exponential is memoryless, so its fit to the tail is the fit to ``T - threshold`` given ``T > threshold``;
    a rate that stays put as the threshold moves out is an exponential tail, and one that drifts is not.
    """
    beyond = durations > threshold
    events = int(weights[beyond & ended].sum())
    out = {"beyond": int(weights[beyond].sum()), "events": events, "rate": math.nan, "low": math.nan,
           "high": math.nan}
    if events < MIN_TAIL_EVENTS:
        return out
    fitter = ExponentialFitter().fit(durations[beyond] - threshold, ended[beyond], weights=weights[beyond])
    scale = fitter.summary.loc["lambda_"]
    # S(t) = exp(-t / lambda_): a decay of 100 / lambda_ per 100 actions; lifelines' 95% interval of the scale, inverted
    out.update(rate=100.0 / float(fitter.lambda_), low=100.0 / float(scale["coef upper 95%"]),
               high=100.0 / max(float(scale["coef lower 95%"]), 1e-12))
    return out


def _time_where(curve: pd.Series, level: float) -> float:
    """The first time a (non-increasing) survival curve is at or below ``level``; infinity if it never is."""
    below = curve[curve <= level]
    return float(below.index[0]) if len(below) else math.inf


def run_cap(run: CutoffRun) -> int | None:
    """The run's ``cap`` option (its game's default where the manifest gives none), or None for a game without."""
    if "cap" in run.options:
        return int(run.options["cap"])
    spec = next((option for option in games.adapter(run.game).OPTIONS if option.name == "cap"), None)
    if spec is not None:
        return int(spec.default)
    from experiments.analysis.knorri.load import PHASE2_CAP  # the rulings' cap, before the option existed

    return PHASE2_CAP if run.game == "knorri" else None


# ----- everything at once -----------------------------------------------------------------------------


@dataclass
class CutoffAnalysis:
    """What ``knorri-sim cutoffs`` shows of one run: shares, anatomy and survival, what its own continuation made of
    its cut-off hands (a run made with ``--continue-past-cutoff``) and its pairing with a second run, if given."""

    run: CutoffRun
    shares: pd.DataFrame
    anatomy: Anatomy
    survival: Survival
    counterfactual: Any = None  # experiments.analysis.knorri.counterfactual.Counterfactual of a second run
    continuation: Any = None  # the same, of the run's own continued columns


def analyse(folder: str | Path, counterfactual: str | Path | None = None) -> CutoffAnalysis:
    """Every cut-off statistic of the run in ``folder`` (its continuation's, if it played its cut-off hands on, and
    its pairing with ``counterfactual``), in bounded memory."""
    run = open_cutoff_run(folder)
    other = open_cutoff_run(counterfactual) if counterfactual is not None else None
    with connect() as con:
        result = CutoffAnalysis(run=run, shares=cutoff_shares(con, run), anatomy=loop_anatomy(con, run),
                                survival=hand_survival(con, run))
        if run.continued:
            result.continuation = compare_continued(con, run)
        if other is not None:
            result.counterfactual = compare_runs(con, run, other)
    return result
