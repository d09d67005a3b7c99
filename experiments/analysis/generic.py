"""The generic report: what any game's run shows from its adapter's metadata alone.

A game without an analysis of its own (``experiments.analysis.reports``: none registered) gets this report. It
knows no rules: it reads what the game's adapter declares (``sim.games``): the row's name (``ROW``), the per-seat
``score``, the outcome the summary counts (``OUTCOME``), the ``end_reason`` categories, the finishing places
(``PLACE_COLUMNS``, ``finishing_places``) and the partners (``seat_teams``). The run is read with the checks every
game's loader shares (``experiments.analysis.load``) into a ``rows`` table (one row per row of the run) and a
``seats`` table (one row per seat of a row). Every interval is a 95% one over deal groups (the ``cluster``
column), as in the games' own reports; the ratings are the shared ladder's, ranking seats by place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure

from experiments.analysis import figures, ladder, reports
from experiments.analysis.load import (
    BATCH_ROWS,
    LoadedRun,
    Partial,
    additive,
    chunks_total,
    cluster_ids,
    lineup_table,
    open_run,
    read_manifest,
    read_shards,
    run_game,
    stream_paths,
)
from experiments.analysis.reports import FigureSpec, markdown_table, percent_intervals
from experiments.analysis.stats import by_keys, counts_frame, plain_keys, proportion_from_moments, tagged_moments
from experiments.runner.moments import grouped_moments, mean_ci
from sim import games
from sim.contract import plural

ROW_COLUMNS = ("table", "deal_group", "hand_index", "n_seats")  # the runner's identifier columns a row needs


@dataclass(kw_only=True)
class GenericRun(LoadedRun):
    """A loaded run of any game, read through its adapter's metadata: its rows and their seats."""

    game: str
    title: str
    row: str  # what one row is (the adapter's ``ROW``); ``seats[row]`` indexes ``rows``
    outcome_rate: str  # the name of the rate the adapter's ``OUTCOME`` counts ("loss rate", "win rate")
    has_score: bool
    end_reasons: tuple[str, ...]  # the ``end_reason`` categories, () for a game without the column
    folders: list[Path]
    manifests: list[dict[str, Any]]
    rows: pd.DataFrame | None  # None for a streamed run (``stream_run``)
    rank_by: ClassVar[str] = "ahead"  # minus the place: the ladder ranks a higher value ahead


def load_run(folder: str | Path) -> GenericRun:
    """Read the complete shards of the run in ``folder``, whatever its game; refuse a bad folder in one line.

    Every row is held in memory: for a run of millions of rows use ``stream_run``, which keeps the statistics alone.
    """
    folder = Path(folder)
    manifest, paths = open_run(folder, run_game(read_manifest(folder)))
    return _read_paths(folder, manifest, paths)


def stream_run(folder: str | Path, partials: Sequence[Partial] | None = None,
               batch_rows: int = BATCH_ROWS) -> GenericRun:
    """The run in ``folder`` as its statistics alone: each shard read in turn, its ``partials`` (by default every one
    the report reads) added up, its rows let go; memory stays that of one chunk whatever the run's size, and every
    statistic equals ``load_run``'s."""
    folder = Path(folder)
    manifest, paths = open_run(folder, run_game(read_manifest(folder)))
    return stream_paths([manifest], paths, lambda chunk: _read_paths(folder, manifest, chunk),
                        REPORT_PARTIALS if partials is None else partials, ["rows"],
                        batch_rows)


def _read_paths(folder: Path, manifest: dict[str, Any], paths: list[Path]) -> GenericRun:
    """The run's rows in ``paths`` (all its complete shards, or one chunk's), read through its adapter."""
    game = run_game(manifest)
    adapter = games.adapter(game)
    specs = {spec.name: spec for spec in adapter.HAND_COLUMNS}
    outcome, rate_name = adapter.OUTCOME
    per_seat = [name for name in dict.fromkeys(["score", *adapter.PLACE_COLUMNS, outcome])
                if name in specs and specs[name].per_seat]
    end_reasons = tuple(specs["end_reason"].categories or ()) if "end_reason" in specs else ()
    row_names = [*ROW_COLUMNS, *(["end_reason"] if end_reasons else []), *([] if outcome in per_seat else [outcome])]
    data = read_shards(folder, paths, lambda width: row_names + [f"{name}_{seat}" for name in ["agent", *per_seat]
                                                                 for seat in range(width)])
    data = data.sort_by("hand_index")  # run order: the ratings rate rows one after another
    tables = lineup_table(manifest)
    rows = _rows_frame(data, tables, end_reasons, outcome if outcome not in per_seat else None)
    seats = _seats_frame(data, rows, adapter, per_seat, outcome)
    seats[adapter.ROW] = seats.pop("row")
    agents = sorted(str(name) for name in seats["agent"].unique())
    seats["agent"] = pd.Categorical(seats["agent"], categories=agents)
    return GenericRun(game=game, title=adapter.TITLE, row=adapter.ROW, outcome_rate=rate_name,
                      has_score="score" in per_seat, end_reasons=end_reasons, folders=[folder], manifests=[manifest],
                      tables=tables, rows=rows, seats=seats, chunks_read=len(paths),
                      chunks_total=chunks_total(manifest, paths), agents=agents)


def _rows_frame(data: pa.Table, tables: pd.DataFrame, end_reasons: tuple[str, ...],
                outcome: str | None) -> pd.DataFrame:
    """One row per row of the run, in run order: identifiers, end reason, the outcome's seat, cluster and label."""
    rows = pd.DataFrame({name: data.column(name).to_numpy().astype(np.int64) for name in ROW_COLUMNS})
    if end_reasons:
        reasons = data.column("end_reason").to_pandas().astype(str)
        rows["end_reason"] = pd.Categorical(reasons, categories=list(end_reasons))
    if outcome is not None:
        rows["outcome_seat"] = data.column(outcome).to_numpy().astype(np.int64)
    rows["cluster"] = cluster_ids(rows["table"].to_numpy(), rows["deal_group"].to_numpy())
    rows["label"] = rows["table"].map(tables.set_index("table")["label"])
    return rows


def _seats_frame(data: pa.Table, rows: pd.DataFrame, adapter: Any, per_seat: list[str],
                 outcome: str) -> pd.DataFrame:
    """One row per seat a row's table has (row by row, seats in order): agent, team, score, place, outcome."""
    parts = []
    for n_seats in sorted(rows["n_seats"].unique()):
        at = np.flatnonzero(rows["n_seats"].to_numpy() == n_seats)

        def columns(name: str, n: int = int(n_seats), at: np.ndarray = at) -> np.ndarray:
            return np.stack([data.column(f"{name}_{seat}").to_pandas().to_numpy()[at] for seat in range(n)], axis=1)

        places = np.asarray(adapter.finishing_places({name: columns(name) for name in adapter.PLACE_COLUMNS}),
                            dtype=np.int64)
        seat = np.tile(np.arange(n_seats), len(at))
        if outcome in per_seat:
            hit = columns(outcome).astype(bool).reshape(-1)
        else:
            hit = rows["outcome_seat"].to_numpy()[at].repeat(n_seats) == seat
        part = {"row": at.repeat(n_seats), "seat": seat, "team": np.asarray(adapter.seat_teams(int(n_seats)))[seat],
                "agent": columns("agent").astype(str).reshape(-1), "place": places.reshape(-1), "outcome": hit}
        if "score" in per_seat:
            part["score"] = columns("score").astype(np.int64).reshape(-1)
        parts.append(pd.DataFrame(part))
    seats = pd.concat(parts, ignore_index=True).sort_values(["row", "seat"], ignore_index=True, kind="stable")
    seats["ahead"] = -seats["place"]
    for name in ("table", "n_seats", "cluster", "label"):
        seats[name] = rows[name].to_numpy()[seats["row"].to_numpy()]
    return seats


# ----- statistics -------------------------------------------------------------------------------------
# Each is read from sufficient statistics (``experiments.analysis.load.Partial``) that add up chunk by chunk, so a
# streamed run and a loaded one give the same numbers.


END_REASON_MOMENTS = additive("end reasons", ["table", "reason"], lambda run: tagged_moments(
    run.rows, ["table"], {reason: (run.rows["end_reason"] == reason).to_numpy() for reason in run.end_reasons},
    "reason"))
SEAT_OUTCOMES = additive("outcome by seat", ["n_seats", "seat"], lambda run: grouped_moments(
    plain_keys(run.seats, ["n_seats", "seat"]).assign(outcome=run.seats["outcome"].to_numpy()), ["n_seats", "seat"],
    "outcome"))


def _agent_moments(run: GenericRun) -> pd.DataFrame:
    seats = run.seats
    values = {"outcome": seats["outcome"].to_numpy(), "place": seats["place"].to_numpy()}
    if run.has_score:
        values["score"] = seats["score"].to_numpy()
    return tagged_moments(seats, ["table", "agent"], values, "measure")


AGENT_MOMENTS = additive("agent results", ["table", "agent", "measure"], _agent_moments)
PLACE_COUNTS = additive("place counts", ["n_seats", "agent", "place"], lambda run: counts_frame(
    plain_keys(run.seats, ["n_seats", "agent", "place"], cluster=False), ["n_seats", "agent", "place"], "count"))


def end_reason_shares(run: GenericRun) -> pd.DataFrame:
    """Per table and end reason: rows, the share that ended so, and its 95% CI (empty for a game without reasons)."""
    columns = ["table", "label", "reason", "rows", "share", "low", "high"]
    if not run.end_reasons:
        return pd.DataFrame(columns=columns)
    found = by_keys(run.partial(END_REASON_MOMENTS), ["table", "reason"])
    labels = run.tables.set_index("table")["label"]
    records = []
    for table in sorted({int(key[0]) for key in found}):
        for reason in run.end_reasons:
            m = found[(table, reason)]
            share, low, high = proportion_from_moments(m)
            records.append({"table": table, "label": labels[table], "reason": reason, "rows": int(m["n"]),
                            "share": share, "low": low, "high": high})
    return pd.DataFrame(records, columns=columns)


def outcome_by_seat(run: GenericRun) -> pd.DataFrame:
    """Per seat count and seat: seat-rows and the outcome rate (the adapter's ``OUTCOME``) with its 95% CI."""
    records = []
    for m in run.partial(SEAT_OUTCOMES).to_dict("records"):
        rate, low, high = proportion_from_moments(m)
        records.append({"seats": int(m["n_seats"]), "seat": int(m["seat"]), "seat_rows": int(m["n"]), "rate": rate,
                        "low": low, "high": high})
    return pd.DataFrame(records)


def agent_results(run: GenericRun) -> pd.DataFrame:
    """Per table and agent: seat-rows, mean score, outcome rate and mean place, each with its 95% CI."""
    moments = run.partial(AGENT_MOMENTS)
    found = by_keys(moments, ["table", "agent", "measure"])
    labels = run.tables.set_index("table")["label"]
    records = []
    for _, m in moments[moments["measure"] == "outcome"].iterrows():
        key = (m["table"], m["agent"])
        rate, low, high = proportion_from_moments(m)
        mean, half = mean_ci(found[(*key, "score")]) if run.has_score else (np.nan, np.nan)
        place, place_half = mean_ci(found[(*key, "place")])
        records.append({"table": int(m["table"]), "label": labels[int(m["table"])], "agent": m["agent"],
                        "seat_rows": int(m["n"]), "mean": mean, "ci95": half, "rate": rate, "low": low, "high": high,
                        "mean_place": place, "place_ci95": place_half})
    return pd.DataFrame(records)


def place_shares(run: GenericRun) -> pd.DataFrame:
    """Per seat count and agent: the share of its seat-rows at each finishing place (1 first; ties share the best)."""
    counts = run.partial(PLACE_COUNTS).astype({"n_seats": np.int64, "place": np.int64, "count": np.int64})
    counts = counts.set_index(["n_seats", "agent", "place"])["count"].unstack("place", fill_value=0)
    shares = counts.div(counts.sum(axis=1), axis=0)
    shares.columns = [f"place {int(place)}" for place in shares.columns]
    return shares.reset_index().rename(columns={"n_seats": "seats"})


REPORT_PARTIALS = (END_REASON_MOMENTS, SEAT_OUTCOMES, AGENT_MOMENTS, PLACE_COUNTS, ladder.PAIR_MOMENTS, ladder.RATINGS)
"""Every partial the generic report reads: what ``stream_run`` gathers chunk by chunk."""


# ----- figures ----------------------------------------------------------------------------------------


def outcome_by_seat_figure(rates: pd.DataFrame, rate_name: str, row: str) -> Figure:
    """The outcome rate by seat with 95% CIs, one line per seat count; dotted: 1/seats."""
    figure, (ax,) = figures.new_figure(9.5, 5.2)
    names = []
    for i, (n_seats, part) in enumerate(rates.groupby("seats", sort=True)):
        colour = figures.AGENT_PALETTE[i % len(figures.AGENT_PALETTE)]
        names.append(f"{int(part['seat_rows'].iloc[0]):,} {plural(row)}")
        ax.errorbar(part["seat"], 100 * part["rate"], yerr=figures.error_bars(part, "rate", "low", "high", 100),
                    marker="o", capsize=3, color=colour, label=f"{n_seats} seats ({names[-1]})")
        ax.axhline(100 / n_seats, color=colour, linestyle=":", linewidth=1)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0)
    units = f"% of the seat's {plural(row)}"
    title = f"{rate_name.capitalize()} by seat (dotted: 1/seats)"
    figures.label_axes(ax, "seat", f"{rate_name} ({units}, 95% CI)", title)
    return figures.declare(figure, title, units, names, "95% CI", "y from 0")


def outcome_by_agent_figure(results: pd.DataFrame, rate_name: str, row: str) -> Figure:
    """The outcome rate of each agent at each table with 95% CIs, one colour per agent."""
    labels = list(dict.fromkeys(results["label"]))
    shown = [figures.short_label(label) for label in labels]
    figure, (ax,) = figures.new_figure(9.5, max(3.5, 0.45 * figures.label_lines(shown) + 0.25 * len(shown) + 1.8))
    agents = sorted(str(agent) for agent in results["agent"].unique())
    colours = figures.agent_colours(agents)
    height = 0.8 / max(1, len(agents))
    names = []
    for i, agent in enumerate(agents):
        part = results[results["agent"] == agent].set_index("label").reindex(labels)
        y = np.arange(len(labels)) + figures.side_offset(i, len(agents), height)
        names.append(f"n = {int(part['seat_rows'].sum()):,}")
        ax.errorbar(100 * part["rate"], y, xerr=figures.error_bars(part, "rate", "low", "high", 100), fmt="o",
                    color=colours[agent], capsize=4, markersize=7, label=f"{agent} ({names[-1]})")
    ax.set_yticks(np.arange(len(labels)), shown, fontsize=figures.FONT["tick"])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    units = f"% of the agent's seat-{plural(row)}"
    title = f"{rate_name.capitalize()} of each agent at each table"
    figures.label_axes(ax, f"{rate_name} ({units}, 95% CI over duplicate deals)", "table", title)
    return figures.declare(figure, title, units, names, "95% CI", "x from 0")


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("outcome_by_seat", "The outcome rate by seat, per seat count, with 95% CIs",
               lambda run: outcome_by_seat_figure(outcome_by_seat(run), run.outcome_rate, run.row)),
    FigureSpec("outcome_by_agent", "The outcome rate of each agent at each table, with 95% CIs",
               lambda run: outcome_by_agent_figure(agent_results(run), run.outcome_rate, run.row)),
    reports.ratings_figure_spec("openskill Plackett-Luce ratings from whole finishing orders, mu ± 2 sigma"),
)


# ----- the summary ------------------------------------------------------------------------------------


def summary_markdown(run: GenericRun) -> str:
    """The key numbers of the run as Markdown, from the adapter's metadata, with the figures linked beside it."""
    rows = plural(run.row)
    lines = [f"# {run.title} run {reports.run_names(run.manifests)}", "",
             f"- {rows.capitalize()}: {run.row_count:,} ({reports.read_state(run)}); "
             f"seat-{rows}: {int(outcome_by_seat(run)['seat_rows'].sum()):,}.",
             "- Tables: " + "; ".join(run.tables["label"]) + ".",
             f"- This is the generic report, from what the {run.title} adapter declares: the game has no analysis "
             "of its own.", reports.INTERVAL_SENTENCE, ""]
    if run.end_reasons:
        lines += [f"## How {rows} end", "", markdown_table(_end_reason_table(run)), ""]
    by_seat = outcome_by_seat(run)
    shown = by_seat[["seats", "seat", "seat_rows"]].rename(columns={"seat_rows": f"seat-{rows}"})
    shown[f"{run.outcome_rate} %"] = percent_intervals(by_seat, "rate", "low", "high")
    lines += [f"## {run.outcome_rate.capitalize()} by seat", "", markdown_table(shown), ""]
    results = agent_results(run)
    shown = results[["label", "agent", "seat_rows"]].rename(columns={"label": "table", "seat_rows": f"seat-{rows}"})
    if run.has_score:
        shown["mean score"] = reports.mean_intervals(results)
    shown[f"{run.outcome_rate} %"] = percent_intervals(results, "rate", "low", "high")
    shown["mean place"] = reports.count_intervals(results, "mean_place", "place_ci95")
    places = place_shares(run)
    for place, name in enumerate(places.columns[2:], start=1):  # no place past the seat count's last
        places[name] = [f"{100 * share:.1f}%" if place <= seats else ""
                        for share, seats in zip(places[name], places["seats"], strict=True)]
    lines += ["## Agents", "", "Per agent at each table (place 1 is first; seats that finished together share "
              "the best place they span):", "", markdown_table(shown), "",
              f"Finishing places (share of the agent's seat-{rows}, per seat count):", "", markdown_table(places), ""]
    if reports.agents_met(run):
        lines += reports.ratings_lines(run, f"each {run.row}'s finishing order")
    else:
        lines += ["No two different agents met at a table: no ratings.", ""]
    return "\n".join(lines + reports.figure_lines(FIGURES, run)) + "\n"


def _end_reason_table(run: GenericRun) -> pd.DataFrame:
    shares = end_reason_shares(run)
    wide = shares.drop_duplicates("table")[["label", "rows"]].rename(columns={"label": "table",
                                                                              "rows": plural(run.row)})
    wide = wide.reset_index(drop=True)
    for reason in run.end_reasons:
        wide[f"{reason} %"] = percent_intervals(shares[shares["reason"] == reason], "share", "low", "high")
    return wide


GENERIC_REPORT = reports.GameReport(stream_run, FIGURES, summary_markdown)
"""The report of a game without one of its own (``report_for`` picks it)."""


def report_for(game: str) -> reports.GameReport:
    """The report of ``game``'s runs: its own if registered (``reports.registered_reports``), else the generic one
    from its adapter's metadata."""
    return reports.registered_reports().get(game, GENERIC_REPORT)
