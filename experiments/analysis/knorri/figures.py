"""The figures of a Knorri run (the notebooks' and ``knorri-sim report``'s), drawn from its statistics' tables.

Each function takes a table from ``experiments.analysis.knorri.stats`` (or the run's hands) and returns a
``matplotlib.figure.Figure`` in the house style of ``experiments.analysis.figures``, whose ladder, head-to-head
and ratings figures every game shares.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis.figures import (
    FONT,
    SEAT_COLOURS,
    agent_colours,
    error_bars,
    label_axes,
    new_figure,
    signed,
)
from experiments.analysis.knorri.load import PHASE2_CAP

REASON_COLOURS = {"repeat": "#6a51a3", "cap": "#d94801"}


# ----- cut-offs ---------------------------------------------------------------------------------------


def cutoff_rates_figure(rates: pd.DataFrame) -> Figure:
    """Share of hands ended by a repeat and by the cap, per table (seat count and lineup), with 95% CIs."""
    labels = rates.drop_duplicates("table").sort_values(["seats", "table"])["label"].tolist()
    figure, (ax,) = new_figure(9.5, max(3.5, 0.55 * len(labels) + 1.8))
    positions = np.arange(len(labels))
    height = 0.38
    for offset, reason in zip((-height / 2, height / 2), ("repeat", "cap"), strict=True):
        part = rates[rates["reason"] == reason].set_index("label").loc[labels].reset_index()
        ax.barh(positions + offset, 100 * part["share"], height, xerr=error_bars(part, "share", "low", "high", 100),
                color=REASON_COLOURS[reason], capsize=3, label=f"ended by {reason}")
    ax.set_yticks(positions, labels, fontsize=FONT["tick"])
    ax.invert_yaxis()
    ax.set_xlabel("hands ending this way (% of the table's hands, 95% CI)", fontsize=FONT["label"])
    ax.set_title("Cut-offs by seat count and lineup", fontsize=FONT["title"])
    figure.legend(fontsize=FONT["tick"], loc="outside lower center", ncol=2)  # below the axes: never over a bar
    return figure


def phase2_length_figure(hands: pd.DataFrame, bin_width: int = 10) -> Figure:
    """Histogram of phase-2 actions per hand, one line per seat count, with the 1,500-action cap marked."""
    figure, (ax,) = new_figure()
    top = max(PHASE2_CAP, int(hands["phase2_actions"].max())) + bin_width
    bins = np.arange(0, top + bin_width, bin_width)
    for seats, group in hands.groupby("n_seats", sort=True):
        counts, edges = np.histogram(group["phase2_actions"], bins=bins)
        share = 100 * counts / len(group)
        capped = 100 * float((group["end_reason"] == "cap").mean())
        ax.stairs(share, edges, color=SEAT_COLOURS.get(int(seats)), linewidth=1.6,
                  label=f"{seats} seats ({len(group):,} hands, {capped:.1f}% cut at the cap)")
    ax.axvline(PHASE2_CAP, color="black", linestyle="--", linewidth=1.2, label=f"cap: {PHASE2_CAP:,} actions")
    ax.set_yscale("log")
    ax.set_xlim(0, top + 4 * bin_width)
    label_axes(ax, f"phase-2 actions in the hand (plays and pick-ups; bins of {bin_width})",
               "hands (% of the seat count's hands, log scale)", "How long phase 2 runs")
    return figure


def cycle_length_figure(counts: pd.DataFrame) -> Figure:
    """Hands ended by a repeat, by cycle length (actions between the two equal positions), per seat count."""
    figure, (ax,) = new_figure()
    if counts.empty:
        ax.text(0.5, 0.5, "no hand ended by a repeat", ha="center", va="center", transform=ax.transAxes,
                fontsize=FONT["label"])
    seat_counts = sorted(counts["seats"].unique()) if not counts.empty else []
    for seats in seat_counts:
        part = counts[counts["seats"] == seats].sort_values("cycle_length")
        total = part["hands"].sum()
        ax.plot(part["cycle_length"], 100 * part["hands"] / total, "o-", color=SEAT_COLOURS.get(int(seats)),
                markersize=5, linewidth=0.8, alpha=0.85, label=f"{seats} seats ({total:,} repeats)")
    if seat_counts:
        ax.set_xscale("log")
        ticks = [t for t in (2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1500)
                 if counts["cycle_length"].min() / 1.5 <= t <= counts["cycle_length"].max() * 1.5]
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.xaxis.set_minor_formatter("")
    ax.set_yscale("log")
    label_axes(ax, "cycle length (phase-2 actions between the two equal positions, log scale)",
               "repeat-ended hands (% of the seat count's repeats, log)", "Cycle lengths of repeated positions",
               legend=bool(seat_counts))
    return figure


# ----- scores -----------------------------------------------------------------------------------------


def score_distribution_figure(distribution: pd.DataFrame) -> Figure:
    """The share of seat-hands with each score, one panel per seat count."""
    seat_counts = sorted(distribution["seats"].unique())
    cols = 2 if len(seat_counts) > 1 else 1
    rows = -(-len(seat_counts) // cols)
    figure, axes = new_figure(10, 3.4 * rows + 0.8, rows, cols)
    for ax, seats in zip(axes, seat_counts, strict=False):
        part = distribution[distribution["seats"] == seats]
        ax.bar(part["score"], 100 * part["share"], color=SEAT_COLOURS.get(int(seats)), width=0.8)
        mean = float((part["score"] * part["share"]).sum())
        ax.set_title(f"{seats} seats (mean {signed(mean, 3)})", fontsize=FONT["label"])
        ax.set_xlabel("score in the hand (points)", fontsize=FONT["label"])
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("seat-hands (%)", fontsize=FONT["label"])
    for ax in axes[len(seat_counts):]:
        ax.set_visible(False)
    figure.suptitle("Score per seat and hand, by seat count", fontsize=FONT["title"])
    return figure


def seat_position_figure(positions: pd.DataFrame) -> Figure:
    """Mean score and loss rate by turn position (0 = first turn of phase 1), per seat count, with 95% CIs."""
    figure, (left, right) = new_figure(11, 4.8, 1, 2)
    for seats, part in positions.groupby("seats", sort=True):
        colour = SEAT_COLOURS.get(int(seats))
        left.errorbar(part["position"], part["mean"], yerr=part["ci95"], color=colour, marker="o", capsize=3,
                      label=f"{seats} seats")
        right.errorbar(part["position"], 100 * part["loss_rate"], yerr=error_bars(part, "loss_rate", "loss_low",
                       "loss_high", 100), color=colour, marker="o", capsize=3, label=f"{seats} seats")
        right.axhline(100 / seats, color=colour, linestyle=":", linewidth=1)
    left.axhline(0, color="black", linewidth=0.8)
    left.set_xlabel("turn position (0 = first turn of phase 1)", fontsize=FONT["label"])
    left.set_ylabel("mean score (points per hand, 95% CI)", fontsize=FONT["label"])
    left.set_title("Mean score by seat position", fontsize=FONT["label"])
    right.set_xlabel("turn position (0 = first turn of phase 1)", fontsize=FONT["label"])
    right.set_ylabel("hands lost (% of the seat's hands, 95% CI)", fontsize=FONT["label"])
    right.set_title("Loss rate by seat position (dotted: 1/seats)", fontsize=FONT["label"])
    for ax in (left, right):
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize=FONT["tick"])
    figure.suptitle("First-turn advantage: score and losses by position", fontsize=FONT["title"])
    return figure


def agent_score_distribution_figure(distribution: pd.DataFrame) -> Figure:
    """The share of seat-hands with each score per agent, one panel per seat count."""
    seat_counts = sorted(distribution["seats"].unique())
    colours = agent_colours(distribution["agent"].unique().tolist())
    cols = 2 if len(seat_counts) > 1 else 1
    rows = -(-len(seat_counts) // cols)
    figure, axes = new_figure(10, 3.4 * rows + 0.8, rows, cols)
    for ax, seats in zip(axes, seat_counts, strict=False):
        part = distribution[distribution["seats"] == seats]
        agents = sorted(part["agent"].unique())
        width = 0.8 / len(agents)
        for i, agent in enumerate(agents):
            mine = part[part["agent"] == agent]
            ax.bar(mine["score"] + (i - (len(agents) - 1) / 2) * width, 100 * mine["share"], width,
                   color=colours[agent], label=agent)
        ax.set_title(f"{seats} seats", fontsize=FONT["label"])
        ax.set_xlabel("score in the hand (points)", fontsize=FONT["label"])
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("the agent's seat-hands (%)", fontsize=FONT["label"])
        ax.legend(fontsize=FONT["tick"])
    for ax in axes[len(seat_counts):]:
        ax.set_visible(False)
    figure.suptitle("Score per seat and hand, by agent and seat count", fontsize=FONT["title"])
    return figure
