"""Kort's figures for the notebook and ``knorri-sim report``, drawn from ``stats`` tables.

Each function returns a ``matplotlib.figure.Figure`` made without pyplot (the same
headless and in a notebook), with a title, axes labelled with their units and a
legend. Every figure gives each of the run's tables (its ``label``: the two teams,
and the options off their defaults) one colour, in the order of the tables.

Each figure the report draws is declared on its function (``@REPORT_FIGURES.figure``:
its file name, caption and the ``stats`` table it is drawn from), in the report's
order; ``experiments.analysis.kort.report`` adds the shared ratings figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis import figures as shared
from experiments.analysis import reports
from experiments.analysis.kort import stats
from experiments.analysis.kort.stats import HOLDER_SPLITS
from sim.kort.adapter import RESULTS

RESULT_NAMES = {"ordinary": "ordinary (1 win)", "kort": "Kort (5)", "at_kort": "At-kort (7)",
                "bavan_made": "Bavan made (7)", "bavan_failed": "Bavan failed (1)", "trop_failed": "TROP FAILED (1)"}

REPORT_FIGURES = reports.FigureBook()
"""The figures of Kort's report that one function here draws, in the report's order."""


def _labels(frame: pd.DataFrame) -> list:
    column = frame["label"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [v for v in column.cat.categories if (column == v).any()]
    return list(dict.fromkeys(column))


@REPORT_FIGURES.figure("round_results", "How rounds end, per table, with 95% CIs (log scale)", stats.result_shares)
def result_share_figure(shares: pd.DataFrame) -> Figure:
    """How rounds end: the share of each result per table, log scale, with 95% CIs and the count of rounds."""
    labels = _labels(shares)
    colours = shared.palette_colours(labels)
    figure, (ax,) = shared.new_figure(9.5, 5.6)
    height = 0.8 / max(1, len(labels))
    positions = np.arange(len(RESULTS))
    names = []
    for i, label in enumerate(labels):
        part = shares[shares["label"] == label].set_index("result").loc[list(RESULTS)].reset_index()
        y = positions + shared.side_offset(i, len(labels), height)
        shown = part["share"] > 0
        names.append(f"{int(part['rounds'].iloc[0]):,} rounds")
        ax.barh(y[shown], 100 * part["share"][shown], height, color=colours[label],
                xerr=shared.error_bars(part[shown], "share", "low", "high", 100), capsize=3,
                label=f"{label} ({names[-1]})")
        for yi, count, high in zip(y, part["count"], part["high"], strict=True):  # past the interval's end
            ax.text(max(100 * high if count else 0, 0.011) * 1.12, yi, f"{count:,}", va="center",
                    fontsize=shared.FONT["tick"] - 2)
    ax.set_xscale("log")
    ax.set_xlim(0.01, 200)
    ax.set_yticks(positions, [RESULT_NAMES[r] for r in RESULTS], fontsize=shared.FONT["tick"])
    ax.invert_yaxis()
    units = "% of the table's rounds, log scale"
    shared.label_axes(ax, f"rounds ending this way ({units}, 95% CI; number: rounds)",
                      "round result (match wins it gives)", "How rounds end")
    return shared.declare(figure, "How rounds end", units, names, "95% CI", "x log")


@REPORT_FIGURES.figure("holder_value",
                        "Rounds won by the trump holder's team, by trump choice and redeal, with 95% CIs",
                        stats.holder_value)
def holder_value_figure(value: pd.DataFrame) -> Figure:
    """The holder's team's share of round wins, over all rounds and split by trump choice and redeal, one colour
    per table and holding team (``stats.holder_value``)."""
    groups = list(dict.fromkeys(zip(value["label"], value["holder_agents"], strict=True)))
    colours = shared.palette_colours(groups)
    figure, (ax,) = shared.new_figure(9.5, 6.0)
    splits = list(HOLDER_SPLITS)
    width = 0.8 / max(1, len(groups))
    positions = np.arange(len(splits))
    names = []
    for i, (label, holder) in enumerate(groups):
        part = value[(value["label"] == label) & (value["holder_agents"] == holder)]
        part = part.set_index("split").loc[splits].reset_index()
        x = positions + shared.side_offset(i, len(groups), width)
        ax.bar(x, 100 * np.nan_to_num(part["holder_won"]), width, color=colours[(label, holder)],
               yerr=np.nan_to_num(shared.error_bars(part, "holder_won", "low", "high", 100)), capsize=3,
               label=f"{label}: {holder} holding")
        for xi, rounds in zip(x, part["rounds"], strict=True):
            names.append(f"{rounds:,}")
            ax.text(xi, 1, names[-1], ha="center", va="bottom", rotation=90, fontsize=shared.FONT["tick"] - 2,
                    color="black", bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 1})
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(positions, splits, fontsize=shared.FONT["tick"])
    ax.set_ylim(0, 100)
    title = "The value of holding the trump (dotted: an even share)"
    shared.label_axes(ax, "rounds (number in each bar: how many)", "rounds won by the holder's team (%, 95% CI)", title,
                      legend=False)
    # the legend under the axes, clear of the bars
    ax.legend(fontsize=shared.FONT["tick"], loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    return shared.declare(figure, title, "rounds won by the holder's team (%", names, "95% CI", "y from 0")


@REPORT_FIGURES.figure("match_length", "Rounds per match, per table", stats.rounds_per_match)
def rounds_per_match_figure(counts: pd.DataFrame) -> Figure:
    """The share of matches lasting each number of rounds, grouped bars, one colour per table."""
    labels = _labels(counts)
    colours = shared.palette_colours(labels)
    figure, (ax,) = shared.new_figure(9.5, 5.2)
    names = shared.length_share_bars(ax, counts, "label", labels, colours, "rounds", "matches", "rounds")
    title = "How many rounds a match lasts"
    shared.label_axes(ax, "rounds in the match (a redeal does not start a round)", "matches (% of the table's matches)",
                      title, legend=False)
    figure.legend(fontsize=shared.FONT["tick"], loc="outside lower center")  # below the bars, covering none
    return shared.declare(figure, title, "% of the table's matches", names, None, "y from 0")


@REPORT_FIGURES.figure("team_ladder", "Matches and rounds won by each team against each other, with 95% CIs",
                        stats.team_results, compares_agents=True)
def team_ladder_figure(results: pd.DataFrame) -> Figure:
    """Each pairing of two teams once (the winning side first): its match win rate and share of rounds won."""
    first = _one_side_per_pairing(results)
    figure, (ax,) = shared.new_figure(9.5, max(3.2, 0.8 * len(first) + 1.8))
    y = np.arange(len(first))
    ax.errorbar(100 * first["win_rate"], y - 0.12,
                xerr=shared.error_bars(first, "win_rate", "win_low", "win_high", 100), fmt="o",
                color=shared.AGENT_PALETTE[0], capsize=4, markersize=7, label="matches won")
    ax.errorbar(100 * first["round_wins"], y + 0.12,
                xerr=shared.error_bars(first, "round_wins", "round_wins_low", "round_wins_high", 100), fmt="s",
                color=shared.AGENT_PALETTE[1], capsize=4, markersize=6, label="rounds won")
    ax.axvline(50, color="grey", linestyle=":", linewidth=1)
    counts = [f"{row.matches:,} matches" for row in first.itertuples()]
    names = [f"{row.team} vs {row.opponent}\n{n}" for row, n in zip(first.itertuples(), counts, strict=True)]
    ax.set_yticks(y, names, fontsize=shared.FONT["tick"])
    ax.set_ylim(max(1, len(first)) - 0.5, -0.5)  # first pairing on top, each in a band of its own
    ax.set_xlim(-3, 103)  # room for a whole marker at 0% or 100%
    ax.set_xticks(np.arange(0, 101, 10))
    if first.empty:
        ax.text(0.5, 0.5, "no two different teams met", ha="center", va="center", transform=ax.transAxes,
                fontsize=shared.FONT["label"])
        counts = ["no two different teams met"]
    title = "The ladder of agents as teams"
    shared.label_axes(ax, "share won by the first team (%, 95% CI over duplicate deals)", "pairing of teams", title,
                      legend=not first.empty)
    return shared.declare(figure, title, "share won by the first team (%", counts, "95% CI", "x from 0")


def _one_side_per_pairing(results: pd.DataFrame) -> pd.DataFrame:
    """One row per table and pairing: the side with the higher win rate (ties: the first listed)."""
    if results.empty:
        return results
    key = [(table, *sorted(pair)) for table, *pair in zip(results["table"], results["team"], results["opponent"],
                                                        strict=True)]
    ranked = results.assign(key=key).sort_values(["table", "win_rate"], ascending=[True, False], kind="stable")
    return ranked.drop_duplicates("key").drop(columns="key").reset_index(drop=True)
