"""Cut-off science on a Knorri run: how often each table cuts hands off, the anatomy of the loops, how long hands
run as a survival curve, computed in bounded memory.

Nothing here reads a run into memory: DuckDB aggregates the run's complete shards
(``RUN/hands/part-*.parquet``, only the columns a query names) down to small tables, spilling to a temporary
folder if it must (``connect``), so a 100M-hand run is read as well as a small one. Every share's 95% interval
is the project's (``experiments.analysis.stats``): Wilson's on the effective size a cluster-robust variance over
deal groups gives, from the clusters' sums (the cluster moments of ``experiments.runner.moments``). The
survival curves and the exponential tail fits are ``lifelines``', fed one weighted row per (length, ended or
cut off) so their size does not grow with the run. The counterfactual (a second run under other options) is
``experiments.analysis.knorri.counterfactual``.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from lifelines import ExponentialFitter, KaplanMeierFitter

from experiments.analysis.load import SEAT_AGENT, chunks_total, complete_shards, lineup_table, read_manifest, run_game
from experiments.analysis.stats import proportion_from_moments
from sim import games

ANATOMY_COLUMNS = ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths", "cycle_seats")
LOOP_REASON = "repeat"  # the cut-off whose hands have a cycle (Knorri's repeated position)
ANY = "any cut-off"
TAIL_QUANTILES = (0.0, 0.5, 0.75, 0.9, 0.97)  # survival drops to 1 - q: the tail fits start there
FIT_QUANTILE = 0.75  # the fit the summary quotes: beyond the length a quarter of hands outlast
MIN_TAIL_EVENTS = 10  # fewer hands ending beyond a threshold give no rate worth quoting
MEMORY_LIMIT = "512MB"  # DuckDB's limit before it spills to its temporary folder (peak RSS about 0.4 GB above it)


@dataclass
class CutoffRun:
    """A run folder as the cut-off analysis reads it: its manifest, complete shards, tables and game facts."""

    folder: Path
    manifest: dict[str, Any]
    game: str
    title: str
    cut_offs: tuple[str, ...]
    paths: list[Path]
    columns: list[str]
    width: int
    tables: pd.DataFrame
    chunks_total: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def has_anatomy(self) -> bool:
        """Whether the shards hold the loop-anatomy columns (runs made before them hold only ``cycle_length``)."""
        return all(name in self.columns for name in ANATOMY_COLUMNS)

    @property
    def complete(self) -> bool:
        """Whether every planned chunk was read."""
        return len(self.paths) == self.chunks_total


def open_cutoff_run(folder: str | Path) -> CutoffRun:
    """The run in ``folder`` with its game's cut-off reasons (``CUT_OFFS`` of its adapter); a bad folder is one
    line (``RunFolderError``)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    game = run_game(manifest)
    adapter = games.adapter(game)
    paths = complete_shards(folder, manifest)
    columns = pq.read_schema(paths[0]).names
    width = sum(1 for name in columns if SEAT_AGENT.fullmatch(name))
    return CutoffRun(folder=folder, manifest=manifest, game=game, title=adapter.TITLE,
                     cut_offs=tuple(adapter.CUT_OFFS), paths=paths, columns=columns, width=width,
                     tables=lineup_table(manifest), chunks_total=chunks_total(manifest, paths),
                     options=dict(manifest["config"].get("options") or {}))


@contextmanager
def connect() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB that keeps under ``MEMORY_LIMIT`` by spilling to a temporary folder (removed after)."""
    spill = tempfile.mkdtemp(prefix="knorri-cutoffs-")
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": 2, "preserve_insertion_order": False,
                                 "temp_directory": spill})
    con.execute("SET enable_progress_bar = false")  # a library's queries print nothing
    try:
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def register_hands(con: duckdb.DuckDBPyConnection, run: CutoffRun, name: str = "hands") -> str:
    """Make ``name`` a view of the run's complete shards (read lazily, column by column) and return it."""
    files = ", ".join("'" + str(path).replace("'", "''") + "'" for path in run.paths)
    con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet([{files}], hive_partitioning = false)")
    return name


def options_text(options: dict[str, Any]) -> str:
    """A run's options as ``cap=20000, repeat=0``, or ``the default rules`` when it set none."""
    return ", ".join(f"{key}={value}" for key, value in sorted(options.items())) or "the default rules"


def sql_list(values: tuple[str, ...] | list[str]) -> str:
    """Strings as an SQL list literal, ``('repeat', 'cap')``."""
    return "(" + ", ".join("'" + value.replace("'", "''") + "'" for value in values) + ")"


def moments_sql(value: str, key: str) -> str:
    """The SELECT list of the cluster moments of per-cluster columns ``{value}`` (S_g) and ``n`` (n_g), as ``key_*``."""
    return (f"sum({value})::HUGEINT AS {key}_total, sum({value} * {value})::HUGEINT AS {key}_total_sq, "
            f"sum({value} * n)::HUGEINT AS {key}_cross")


def moments_of(row: pd.Series, key: str) -> dict[str, int]:
    """The cluster moments (``experiments.runner.moments.MOMENTS``) in a row of a query built with ``moments_sql``
    (and ``rows``, ``rows_sq``, ``groups``): the six totals the runner's chunk summaries add up too."""
    return {"n": int(row["rows"]), "total": int(row[f"{key}_total"]), "clusters": int(row["groups"]),
            "cluster_sq": int(row[f"{key}_total_sq"]), "cluster_cross": int(row[f"{key}_cross"]),
            "cluster_n_sq": int(row["rows_sq"])}


# ----- shares by table --------------------------------------------------------------------------------


def cutoff_shares(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> pd.DataFrame:
    """Per table and cut-off reason (and any cut-off): hands, cut-offs, share and its 95% interval over deal groups."""
    reasons = [*run.cut_offs, ANY]
    hits = [f"count(*) FILTER (WHERE end_reason = '{reason}') AS h{i}" for i, reason in enumerate(run.cut_offs)]
    hits.append(f"count(*) FILTER (WHERE end_reason IN {sql_list(run.cut_offs)}) AS h{len(run.cut_offs)}")
    moments = ", ".join(moments_sql(f"h{i}", f"h{i}") for i in range(len(reasons)))
    frame = con.execute(f"""
        WITH groups AS (SELECT "table" AS t, deal_group, count(*) AS n, {', '.join(hits)}
                        FROM {view} GROUP BY ALL)
        SELECT t, count(*) AS groups, sum(n)::HUGEINT AS rows, sum(n * n)::HUGEINT AS rows_sq, {moments}
        FROM groups GROUP BY t ORDER BY t""").df()
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
    """The loops of hands cut off by a repeat: distributions per seat count, which seats act, and consistency.

    Every frame counts repeat-ended hands. Without the anatomy columns only ``lengths`` is filled.
    """

    present: bool
    lengths: pd.DataFrame  # seats, value (cycle_length), hands
    choices: pd.DataFrame = field(default_factory=pd.DataFrame)  # seats, value (cycle_choices), hands
    paths: pd.DataFrame = field(default_factory=pd.DataFrame)  # seats, value (cycle_log2_paths, 1-wide bins), hands
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)  # per seat count: repeats, quantiles, min choices
    seats: pd.DataFrame = field(default_factory=pd.DataFrame)  # per table and seat: agent, repeats, in the cycle
    violations: dict[str, int] = field(default_factory=dict)  # each consistency rule: hands breaking it


def loop_anatomy(con: duckdb.DuckDBPyConnection, run: CutoffRun, view: str = "hands") -> Anatomy:
    """The anatomy of every repeat: cycle lengths, choices per cycle, log2 paths (so the chance uniform random play
    goes round again, 2^-x), the seats that act in the cycle; and how many hands break the columns' rules."""
    where = f"WHERE end_reason = '{LOOP_REASON}'"

    def counts(expression: str) -> pd.DataFrame:
        return con.execute(f"""SELECT n_seats::INTEGER AS seats, {expression} AS value, count(*) AS hands
                               FROM {view} {where} GROUP BY ALL ORDER BY seats, value""").df()

    lengths = counts("cycle_length::BIGINT")
    if not run.has_anatomy:
        return Anatomy(present=False, lengths=lengths)
    summary = con.execute(f"""
        SELECT n_seats::INTEGER AS seats, count(*) AS repeats,
               quantile_cont(cycle_log2_paths, 0.1) AS paths_p10, quantile_cont(cycle_log2_paths, 0.5) AS paths_median,
               quantile_cont(cycle_log2_paths, 0.9) AS paths_p90, min(cycle_log2_paths) AS paths_min,
               quantile_cont(cycle_choices, 0.5) AS choices_median, min(cycle_choices) AS choices_min,
               quantile_cont(cycle_length, 0.5) AS length_median, avg(bit_count(cycle_seats::INTEGER)) AS seats_mean
        FROM {view} {where} GROUP BY ALL ORDER BY seats""").df()
    summary["again_median"] = np.exp2(-summary["paths_median"].astype(float))
    seat_sums = ", ".join(f"coalesce(sum((cycle_seats::INTEGER >> {s}) & 1), 0) AS in_{s}" for s in range(run.width))
    by_seat = con.execute(f"""SELECT "table" AS t, count(*) AS repeats, {seat_sums}
                              FROM {view} {where} GROUP BY ALL ORDER BY t""").df()
    info = run.tables.set_index("table")
    seat_rows = []
    for _, row in by_seat.iterrows():
        table = int(row["t"])
        for seat in range(int(info.loc[table, "seats"])):
            seat_rows.append({"table": table, "label": info.loc[table, "label"], "seat": seat,
                              "repeats": int(row["repeats"]), "in_cycle": int(row[f"in_{seat}"]),
                              "share": int(row[f"in_{seat}"]) / int(row["repeats"])})
    checks = con.execute(f"""
        SELECT count(*) FILTER (WHERE cycle_start + cycle_length <> phase2_actions) AS start_plus_length,
               count(*) FILTER (WHERE cycle_choices < 1) AS choices_at_least_one,
               count(*) FILTER (WHERE cycle_log2_paths < cycle_choices - 1e-3) AS paths_at_least_choices,
               count(*) FILTER (WHERE end_reason = '{LOOP_REASON}' AND (cycle_start IS NULL OR cycle_choices IS NULL
                                OR cycle_log2_paths IS NULL OR cycle_seats IS NULL)) AS repeat_has_anatomy,
               count(*) FILTER (WHERE end_reason <> '{LOOP_REASON}' AND (cycle_start IS NOT NULL
                                OR cycle_choices IS NOT NULL OR cycle_seats IS NOT NULL)) AS others_null
        FROM {view}""").df().iloc[0]
    return Anatomy(present=True, lengths=lengths, choices=counts("cycle_choices::BIGINT"),
                   paths=counts("floor(cycle_log2_paths)::BIGINT"), summary=summary, seats=pd.DataFrame(seat_rows),
                   violations={name: int(value) for name, value in checks.items()})


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
    return con.execute(f"""
        SELECT "table"::INTEGER AS t, phase2_actions::BIGINT AS length,
               end_reason NOT IN {sql_list(run.cut_offs)} AS ended, count(*) AS hands
        FROM {view} GROUP BY ALL ORDER BY t, length, ended""").df()


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
    """What ``knorri-sim cutoffs`` shows of one run: shares, anatomy and survival (and a counterfactual, if given)."""

    run: CutoffRun
    shares: pd.DataFrame
    anatomy: Anatomy
    survival: Survival
    counterfactual: Any = None  # experiments.analysis.knorri.counterfactual.Counterfactual


def analyse(folder: str | Path, counterfactual: str | Path | None = None) -> CutoffAnalysis:
    """Every cut-off statistic of the run in ``folder`` (and its pairing with ``counterfactual``), in bounded memory."""
    from experiments.analysis.knorri.counterfactual import compare_runs

    run = open_cutoff_run(folder)
    other = open_cutoff_run(counterfactual) if counterfactual is not None else None
    with connect() as con:
        register_hands(con, run)
        result = CutoffAnalysis(run=run, shares=cutoff_shares(con, run), anatomy=loop_anatomy(con, run),
                                survival=hand_survival(con, run))
        if other is not None:
            result.counterfactual = compare_runs(con, run, other)
    return result
