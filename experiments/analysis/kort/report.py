"""The report of a Kort run: every figure as a PNG and a Markdown summary of the key numbers.

``knorri-sim report RUN_DIR`` writes it for a run whose manifest names Kort (this
module registers it in ``experiments.analysis.reports``); the notebook draws the
same figures through ``FIGURES``: those declared on their drawing functions in
``experiments.analysis.kort.figures`` (name, caption, statistic), then the shared
ratings figure.
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis import reports
from experiments.analysis.kort import figures as kort_figures
from experiments.analysis.kort import stats
from experiments.analysis.kort.load import KortRun
from experiments.analysis.kort.stream import stream_run
from experiments.analysis.reports import FigureSpec, markdown_table, percent_interval, percent_intervals
from sim.kort.adapter import GAME, RESULTS

FIGURES: tuple[FigureSpec, ...] = (
    *kort_figures.REPORT_FIGURES.specs,
    reports.ratings_figure_spec("openskill Plackett-Luce ratings of the agents from team results, mu ± 2 sigma"),
)


def summary_markdown(run: KortRun) -> str:
    """The key numbers of the run(s) as Markdown, with the figures linked beside it."""
    lines = [f"# Kort run {reports.run_names(run.manifests)}", "",
             f"- Matches: {run.row_count:,} ({reports.read_state(run)}); rounds: {stats.round_count(run):,}.",
             "- Tables (team of seats 0 and 2 vs team of seats 1 and 3, as configured): "
             + "; ".join(f"{label} ({assign})" for label, assign in zip(run.tables["label"], run.tables["assign"],
                                                                        strict=True)) + ".",
             reports.zero_sum_line(stats.zero_sum_violations(run), run.row), reports.INTERVAL_SENTENCE, ""]
    lines += ["## How rounds end", "", markdown_table(_result_table(stats.result_shares(run))), ""]
    lines += ["## The value of holding the trump", "",
              "Share of rounds whose wins went to the trump holder's team (an even share is 50%):", "",
              markdown_table(_holder_table(stats.holder_value(run))), "",
              "The team holding the trump in round 1 won the match:", "",
              markdown_table(_first_holder_table(stats.first_holder_value(run))), ""]
    lines += ["## Redeals", "", "Rounds redealt, and the holder's team's round wins after a redeal and on a first "
              "deal (redeals per match: the next table):", "", markdown_table(_redeal_table(stats.redeal_effect(run))),
              ""]
    lines += ["## Rounds per match", "", markdown_table(_length_table(stats.match_length_summary(run))), ""]
    lines += _ladder_lines(run)
    return "\n".join(lines + reports.figure_lines(FIGURES, run)) + "\n"


# ----- inside --------------------------------------------------------------------------------------


def _result_table(shares: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for label, group in shares.groupby("label", sort=False, observed=True):
        row: dict[str, object] = {"table": label, "rounds": int(group["rounds"].iloc[0])}
        for result in RESULTS:
            part = group[group["result"] == result].iloc[0]
            row[f"{result} %"] = percent_interval(part["share"], part["low"], part["high"])
        rows.append(row)
    return pd.DataFrame(rows)


def _holder_table(value: pd.DataFrame) -> pd.DataFrame:
    shown = value[["label", "holder_agents", "split", "rounds"]].rename(
        columns={"label": "table", "holder_agents": "holder's team", "split": "which rounds"})
    shown["holder's team won %"] = percent_intervals(value, "holder_won", "low", "high")
    for column, title in (("holder_wins_per_round", "match wins per round: holder's team"),
                          ("other_wins_per_round", "other team")):
        shown[title] = value[column].map(lambda wins: "n/a" if pd.isna(wins) else f"{wins:.3f}")
    return shown


def _first_holder_table(value: pd.DataFrame) -> pd.DataFrame:
    shown = value[["label", "matches"]].rename(columns={"label": "table"})
    shown["first holder's team won %"] = percent_intervals(value, "first_holder_won", "low", "high")
    return shown


def _redeal_table(effect: pd.DataFrame) -> pd.DataFrame:
    shown = effect[["label", "holder_agents", "rounds", "redealt_rounds"]].rename(
        columns={"label": "table", "holder_agents": "holder's team", "redealt_rounds": "redealt"})
    for name, title in (("redealt", "redealt %"), ("holder_won_redeal", "holder's team won after a redeal %"),
                        ("holder_won_first_deal", "holder's team won on a first deal %")):
        shown[title] = percent_intervals(effect, name)
    return shown


def _length_table(summary: pd.DataFrame) -> pd.DataFrame:
    shown = summary[["label", "matches"]].rename(columns={"label": "table"})
    shown["rounds per match"] = reports.count_intervals(summary, "mean_rounds", "ci95")
    shown["median"] = summary["median_rounds"]
    shown["most"] = summary["max_rounds"]
    shown["redeals per match"] = reports.count_intervals(summary, "mean_redeals", "redeals_ci95", 3)
    shown["decisions per match"] = summary["mean_decisions"].map("{:.0f}".format)
    return shown


def _ladder_lines(run: KortRun) -> list[str]:
    results = stats.team_results(run)
    if results.empty:
        return ["## The ladder of teams", "", "No two different teams met at a table: no team results or ratings.",
                ""]
    shown = results[["label", "team", "opponent", "matches"]].rename(columns={"label": "table"})
    shown["match win rate %"] = percent_intervals(results, "win_rate", "win_low", "win_high")
    shown["mean result"] = reports.mean_intervals(results)
    shown["rounds won %"] = percent_intervals(results, "round_wins")
    shown["match wins taken %"] = (100 * results["wins_share"]).map("{:.1f}".format)
    return ["## The ladder of teams", "",
            "Each pairing of two different teams (a team is the agents at seats 0 and 2, or 1 and 3), both ways: "
            "matches won, mean result (+1 a win, -1 a loss), rounds won, and the share of the rounds' match wins:",
            "", markdown_table(shown), "",
            *reports.ratings_lines(run, "each match's two teams, a team being the agents at its seats")]


# the report streams the run (its statistics alone, chunk by chunk): any size in the memory of one chunk
REPORT = reports.register_report(GAME, stream_run, FIGURES, summary_markdown)
