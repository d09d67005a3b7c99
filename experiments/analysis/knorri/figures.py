"""The figures of a Knorri run (the notebooks' and ``knorri-sim report``'s), drawn from its statistics' tables.

Each function takes a table from ``experiments.analysis.knorri.stats`` (or the run's hands) and returns a
``matplotlib.figure.Figure`` in the house style of ``experiments.analysis.figures``, whose ladder, head-to-head
and ratings figures every game shares.

Each figure the report draws from one function here is declared on it (``@REPORT_FIGURES.figure``: its file name,
caption and the ``stats`` table it is drawn from), in the report's order; ``experiments.analysis.knorri.report``
adds the shared ladder figures and the cut-off page's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from experiments.analysis import figures as shared
from experiments.analysis import reports
from experiments.analysis.knorri import stats
from experiments.analysis.knorri.load import PHASE2_CAP

REASON_COLOURS = {"repeat": "#6a51a3", "cap": "#d94801"}

REPORT_FIGURES = reports.FigureBook()
"""The figures of Knorri's report that one function here draws, in the report's order."""


# ----- cut-offs ---------------------------------------------------------------------------------------


@REPORT_FIGURES.figure("cutoff_rates", "Hands ended by a repeat or by the cap, per table, with 95% CIs",
                        stats.cutoff_rates)
def cutoff_rates_figure(rates: pd.DataFrame) -> Figure:
    """Share of hands ended by a repeat and by the cap, per table (seat count and lineup), with 95% CIs.

    Every bar is labelled with its count out of the table's hands (``6/400``), and a count of zero, which draws no
    bar, gets a hollow marker at 0, so 0/400 never looks larger than 6/400 beside its interval's whisker.
    """
    order = rates.drop_duplicates("table").sort_values(["seats", "table"])
    labels = order["label"].tolist()
    shown = [shared.short_label(label) for label in labels]
    figure, (ax,) = shared.new_figure(9.5, max(3.5, 0.3 * shared.label_lines(shown) + 0.2 * len(shown) + 1.6))
    positions = np.arange(len(labels))
    height = 0.38
    counts = []
    for offset, reason in zip((-height / 2, height / 2), ("repeat", "cap"), strict=True):
        part = rates[rates["reason"] == reason].set_index("label").loc[labels].reset_index()
        colour = REASON_COLOURS[reason]
        ax.barh(positions + offset, 100 * part["share"], height,
                xerr=shared.error_bars(part, "share", "low", "high", 100), color=colour, capsize=3,
                label=f"ended by {reason}")
        zero = (part["count"] == 0).to_numpy()
        if zero.any():  # an empty line that is not clipped would stretch the layout to the figure's corner
            ax.plot(np.zeros(int(zero.sum())), (positions + offset)[zero], "D", markersize=6,
                    markerfacecolor="white", markeredgecolor=colour, linestyle="none", clip_on=False, zorder=3)
        for y, count, hands, high in zip(positions + offset, part["count"], part["hands"], part["high"], strict=True):
            counts.append(f"{count:,}/{hands:,}")
            ax.text(100 * high, y, f"  {counts[-1]}", va="center", fontsize=shared.FONT["tick"] - 2)
    ax.set_yticks(positions, shown, fontsize=shared.FONT["tick"])
    ax.invert_yaxis()
    ax.set_xlim(0, max(1.0, 100 * float(rates["high"].max()) * 1.25 if len(rates) else 1.0))
    units = "% of the table's hands"
    ax.set_xlabel(f"hands ending this way ({units}, 95% CI; number: hands/table's hands)",
                  fontsize=shared.FONT["label"])
    title = "Cut-offs by seat count and lineup"
    ax.set_title(title, fontsize=shared.FONT["title"])
    handles, names = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], marker="D", markersize=6, markerfacecolor="white", markeredgecolor="grey",
                          linestyle="none"))
    figure.legend(handles, [*names, "none (0 hands)"], fontsize=shared.FONT["tick"], loc="outside lower center",
                  ncol=3)  # below the axes: never over a bar
    return shared.declare(figure, title, units, counts, "95% CI", "x from 0")


@REPORT_FIGURES.figure("phase2_length", "Phase-2 actions per hand by seat count, the run's cap marked",
                        stats.phase2_histogram)
def phase2_length_figure(histogram: pd.DataFrame, bin_width: int = 10) -> Figure:
    """Histogram of phase-2 actions per hand, one line per seat count, with the run's action cap marked.

    ``histogram`` counts the hands of each seat count and length (``stats.phase2_histogram``: ``seats``,
    ``phase2_actions``, ``hands``, ``capped``, the seat count's hands cut off at the cap, and ``cap``, the run's
    cap; the rulings' 1,500 without it)."""
    figure, (ax,) = shared.new_figure()
    cap = int(histogram["cap"].max()) if "cap" in histogram and len(histogram) else PHASE2_CAP
    top = max(cap, int(histogram["phase2_actions"].max())) + bin_width
    bins = np.arange(0, top + bin_width, bin_width)
    names = []
    for seats, group in histogram.groupby("seats", sort=True):
        counts, edges = np.histogram(group["phase2_actions"], bins=bins, weights=group["hands"])
        hands = int(group["hands"].sum())
        share = 100 * counts / hands
        capped = 100 * float(group["capped"].iloc[0]) / hands
        names.append(f"{seats} seats ({hands:,} hands, {capped:.1f}% cut at the cap)")
        ax.stairs(share, edges, color=shared.SEAT_COLOURS.get(int(seats)), linewidth=1.6, label=names[-1])
    ax.axvline(cap, color="black", linestyle="--", linewidth=1.2, label=f"cap: {cap:,} actions")
    ax.set_yscale("log")
    ax.set_xlim(0, top + 4 * bin_width)
    title = "How long phase 2 runs"
    units = "% of the seat count's hands, log scale"
    shared.label_axes(ax, f"phase-2 actions in the hand (plays and pick-ups; bins of {bin_width})", f"hands ({units})",
                      title)
    return shared.declare(figure, title, units, names, None, "y log")


@REPORT_FIGURES.figure("cycle_lengths", "Cycle lengths of hands ended by a repeat", stats.cycle_length_counts)
def cycle_length_figure(counts: pd.DataFrame) -> Figure:
    """Hands ended by a repeat, by cycle length (actions between the two equal positions), per seat count."""
    figure, (ax,) = shared.new_figure()
    names = []
    if counts.empty:
        ax.text(0.5, 0.5, "no hand ended by a repeat", ha="center", va="center", transform=ax.transAxes,
                fontsize=shared.FONT["label"])
        names.append("no hand ended by a repeat")
    seat_counts = sorted(counts["seats"].unique()) if not counts.empty else []
    for seats in seat_counts:
        part = counts[counts["seats"] == seats].sort_values("cycle_length")
        total = part["hands"].sum()
        names.append(f"{seats} seats ({total:,} repeat{'s' if total != 1 else ''})")
        ax.plot(part["cycle_length"], 100 * part["hands"] / total, "o-", color=shared.SEAT_COLOURS.get(int(seats)),
                markersize=5, linewidth=0.8, alpha=0.85, label=names[-1])
    if seat_counts:
        ax.set_xscale("log")
        ticks = [t for t in (2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1500)
                 if counts["cycle_length"].min() / 1.5 <= t <= counts["cycle_length"].max() * 1.5]
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.xaxis.set_minor_formatter("")
        ax.set_yscale("log")
    title = "Cycle lengths of repeated positions"
    units = "% of the seat count's repeats, log"
    shared.label_axes(ax, "cycle length (phase-2 actions between the two equal positions, log scale)",
                      f"repeat-ended hands ({units})", title, legend=bool(seat_counts))
    return shared.declare(figure, title, units, names, None, "y log" if seat_counts else "y from 0")


# ----- scores -----------------------------------------------------------------------------------------


def _seat_count_panels(distribution: pd.DataFrame) -> tuple[Figure, list[tuple[Any, Any, pd.DataFrame]]]:
    """A score-distribution figure's grid: one panel per seat count, two to a row when there are several, the spare
    panel hidden; returns the figure and, per seat count in order, its axes, the count and its rows."""
    seat_counts = sorted(distribution["seats"].unique())
    cols = 2 if len(seat_counts) > 1 else 1
    rows = -(-len(seat_counts) // cols)
    figure, axes = shared.new_figure(10, 3.4 * rows + 0.8, rows, cols)
    for ax in axes[len(seat_counts):]:
        ax.set_visible(False)
    return figure, [(ax, seats, distribution[distribution["seats"] == seats])
                    for ax, seats in zip(axes, seat_counts, strict=False)]


def _score_axes(ax: Any, title: str, ylabel: str) -> None:
    """Title a score-distribution panel and name its axes: whole points along x, ``ylabel`` up y."""
    ax.set_title(title, fontsize=shared.FONT["label"])
    ax.set_xlabel("score in the hand (points)", fontsize=shared.FONT["label"])
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(ylabel, fontsize=shared.FONT["label"])


@REPORT_FIGURES.figure("score_distribution", "Score per seat-hand by seat count", stats.score_distribution)
def score_distribution_figure(distribution: pd.DataFrame) -> Figure:
    """The share of seat-hands with each score, one panel per seat count, each titled with its seat-hands."""
    figure, panels = _seat_count_panels(distribution)
    names = []
    for ax, seats, part in panels:
        ax.bar(part["score"], 100 * part["share"], color=shared.SEAT_COLOURS.get(int(seats)), width=0.8)
        mean = float((part["score"] * part["share"]).sum())
        names.append(f"{int(part['seat_hands'].sum()):,} seat-hands")
        _score_axes(ax, f"{seats} seats: {names[-1]} (mean {shared.signed(mean, 3)})", "seat-hands (%)")
    title = "Score per seat and hand, by seat count"
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, "seat-hands (%)", names, None, "y from 0")


@REPORT_FIGURES.figure("seat_position", "Mean score and loss rate by turn position (first-turn advantage)",
                        stats.position_scores)
def seat_position_figure(positions: pd.DataFrame) -> Figure:
    """Mean score and loss rate by turn position (0 = first turn of phase 1), per seat count, with 95% CIs.

    The loss rate's axis starts at 0 (a narrow range made small differences look large); the mean score's
    crosses 0, marked by a line."""
    figure, (left, right) = shared.new_figure(11, 4.8, 1, 2)
    names = []
    for seats, part in positions.groupby("seats", sort=True):
        colour = shared.SEAT_COLOURS.get(int(seats))
        names.append(f"{seats} seats ({int(part['seat_hands'].sum()):,} seat-hands)")
        left.errorbar(part["position"], part["mean"], yerr=part["ci95"], color=colour, marker="o", capsize=3,
                      label=names[-1])
        right.errorbar(part["position"], 100 * part["loss_rate"], yerr=shared.error_bars(part, "loss_rate", "loss_low",
                       "loss_high", 100), color=colour, marker="o", capsize=3, label=names[-1])
        right.axhline(100 / seats, color=colour, linestyle=":", linewidth=1)
    left.axhline(0, color="black", linewidth=0.8)
    right.set_ylim(bottom=0)
    left.set_xlabel("turn position (0 = first turn of phase 1)", fontsize=shared.FONT["label"])
    left.set_ylabel("mean score (points per hand, 95% CI)", fontsize=shared.FONT["label"])
    left.set_title("Mean score by seat position", fontsize=shared.FONT["label"])
    right.set_xlabel("turn position (0 = first turn of phase 1)", fontsize=shared.FONT["label"])
    right.set_ylabel("hands lost (% of the seat's hands, 95% CI)", fontsize=shared.FONT["label"])
    right.set_title("Loss rate by seat position (dotted: 1/seats)", fontsize=shared.FONT["label"])
    for ax in (left, right):
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize=shared.FONT["tick"])
    title = "First-turn advantage: score and losses by position"
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, "points per hand", names, "95% CI", ("y from 0", "y from 0"))


@REPORT_FIGURES.figure("agent_scores", "Score per seat-hand by agent and seat count",
                        lambda run: stats.score_distribution(run, ("n_seats", "agent")), compares_agents=True)
def agent_score_distribution_figure(distribution: pd.DataFrame) -> Figure:
    """The share of seat-hands with each score per agent, one panel per seat count, each agent's n in its legend."""
    colours = shared.agent_colours(distribution["agent"].unique().tolist())
    figure, panels = _seat_count_panels(distribution)
    names = []
    for ax, seats, part in panels:
        agents = sorted(part["agent"].unique())
        width = 0.8 / len(agents)
        for i, agent in enumerate(agents):
            mine = part[part["agent"] == agent]
            names.append(f"{agent} (n = {int(mine['seat_hands'].sum()):,})")
            ax.bar(mine["score"] + (i - (len(agents) - 1) / 2) * width, 100 * mine["share"], width,
                   color=colours[agent], label=names[-1])
        _score_axes(ax, f"{seats} seats", "the agent's seat-hands (%)")
        ax.legend(fontsize=shared.FONT["tick"], loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)  # beside its panel: the bars fill the panel's width
    title = "Score per seat and hand, by agent and seat count"
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, "seat-hands (%)", names, None, "y from 0")
