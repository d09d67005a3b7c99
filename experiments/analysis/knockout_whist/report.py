"""The report of a Knockout Whist run: every figure as a PNG and a Markdown summary of the key numbers.

``knorri-sim report RUN_DIR`` writes it for a run whose manifest names Knockout
Whist (this module registers it in ``experiments.analysis.reports``); the notebook
draws the same figures through ``FIGURES``: those declared on their drawing
functions in ``experiments.analysis.knockout_whist.figures`` (name, caption,
statistic), then the shared ladder figures.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.analysis import ladder, reports
from experiments.analysis.knockout_whist import figures as kw_figures
from experiments.analysis.knockout_whist import stats
from experiments.analysis.knockout_whist.load import GameRun
from experiments.analysis.knockout_whist.stream import stream_run
from experiments.analysis.reports import FigureSpec, markdown_table, percent_interval, percent_intervals
from sim.knockout_whist.adapter import END_REASONS, GAME

FIGURES: tuple[FigureSpec, ...] = (
    *kw_figures.REPORT_FIGURES.specs,
    *reports.ladder_figure_specs("game", stats.agent_results, "outlasted"),
)


def summary_markdown(run: GameRun) -> str:
    """The key numbers of the run(s) as Markdown, with the figures linked beside it."""
    lines = [f"# Knockout Whist run {reports.run_names(run.manifests)}", "",
             f"- Games: {run.row_count:,} ({reports.read_state(run)}); variant(s): {', '.join(run.variants)}.",
             "- Tables: " + "; ".join(run.tables["label"]) + ".",
             reports.zero_sum_line(stats.zero_sum_violations(run), run.row), reports.INTERVAL_SENTENCE, ""]
    by = ("variant", "n_seats") if len(run.variants) > 1 else ("n_seats",)
    lines += ["## Who wins from which seat", "",
              "Seat 0 deals hand 1, so seat 1 leads its first trick; a fair share is 1/seats.", "",
              markdown_table(_win_table(stats.seat_win_rates(run, by))), ""]
    lines += ["## How long games last", "", markdown_table(_length_table(stats.game_length_summary(run, by))), ""]
    lines += ["## Dog's lives", "", markdown_table(_dog_table(stats.dog_summary(run, by))), ""]
    lines += _ladder_lines(run)
    return "\n".join(lines + reports.figure_lines(FIGURES, run)) + "\n"


# ----- inside --------------------------------------------------------------------------------------


def _keys(frame: pd.DataFrame) -> list[str]:
    return [name for name in ("variant", "seats") if name in frame.columns]


def _win_table(rates: pd.DataFrame) -> pd.DataFrame:
    wide = rates.pivot_table(index=_keys(rates), columns="seat", values="win_rate", observed=True)
    shown = rates.drop_duplicates(_keys(rates))[_keys(rates) + ["games"]].reset_index(drop=True)
    for seat in wide.columns:
        part = rates[rates["seat"] == seat].set_index(_keys(rates)).reindex(wide.index)
        shown[f"seat {seat} wins %"] = [percent_interval(s, lo, hi) if not math.isnan(s) else "" for s, lo, hi in
                                        zip(part["win_rate"], part["low"], part["high"], strict=True)]
    return shown


def _length_table(summary: pd.DataFrame) -> pd.DataFrame:
    shown = summary[_keys(summary) + ["games"]].copy()
    shown["hands played"] = reports.count_intervals(summary, "mean_hands", "ci95")
    shown["median"] = summary["median_hands"]
    for reason in END_REASONS:
        shown[f"{reason} %"] = percent_intervals(summary, reason)
    return shown


def _dog_table(dogs: pd.DataFrame) -> pd.DataFrame:
    shown = dogs[_keys(dogs) + ["games", "dogs"]].copy()
    for name, title in (("given", "games with a dog %"), ("saved", "dogs saved %"), ("won", "dogs that won %")):
        shown[title] = percent_intervals(dogs, name)
    return shown


def _ladder_lines(run: GameRun) -> list[str]:
    results = stats.agent_results(run)
    shown = results[["label", "agent", "seat_games"]].copy()
    shown["mean score"] = reports.mean_intervals(results)
    shown["win rate %"] = percent_intervals(results, "win_rate", "win_low", "win_high")
    shown["mean place"] = [f"{p:.2f}" for p in results["mean_place"]]
    lines = ["## Bot ladder", "", "Mean score per game (seats - 1 for a win, -1 otherwise) per agent at each table:",
             "", markdown_table(shown), ""]
    pairwise = ladder.pairwise_results(run)
    if pairwise.empty:
        return lines + ["No two different agents met at a table: no head-to-head results or ratings.", ""]
    outlasted = reports.head_to_head_shares(pairwise)
    lines += ["Head to head (seat pairs of two different agents in one game: the seat that lasted longer takes the "
              "pair, the game's winner outlasting everyone; two seats out after the same hand count half each):", "",
              markdown_table(pairwise.assign(outlasted=outlasted)[["agent", "opponent", "games", "outlasted"]]), ""]
    return lines + reports.ratings_lines(run, "each game's placing")


# the report streams the run (its statistics alone, chunk by chunk): any size in the memory of one chunk
REPORT = reports.register_report(GAME, stream_run, FIGURES, summary_markdown)
