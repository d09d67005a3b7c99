"""The figures every game's analysis shares (the house style, the ladder, head to head, ratings, a league).

Each function takes a table from a game's ``stats`` or from ``ladder``
(or the run's hands) and returns a ``matplotlib.figure.Figure``, made without
pyplot so that it works the same headless and in a notebook. Every figure has a
title, axes labelled with their units and a legend where colours mean something.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.contract import plural

SEAT_COLOURS = {3: "#1b6ca8", 4: "#e07b00", 5: "#2e8b57", 6: "#b03a48"}
AGENT_PALETTE = ("#1b6ca8", "#e07b00", "#2e8b57", "#b03a48", "#6a51a3", "#8c6d31", "#636363", "#17becf")
FONT = {"title": 13, "label": 11, "tick": 10}


def new_figure(width: float = 9.0, height: float = 5.5, rows: int = 1, cols: int = 1, **kwargs) -> tuple[Figure, list]:
    """A figure of ``rows`` x ``cols`` axes in the house style (size, dpi, grid, tick size); the axes as a list."""
    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    axes = figure.subplots(rows, cols, squeeze=False, **kwargs)
    for ax in axes.flat:
        ax.tick_params(labelsize=FONT["tick"])
        ax.grid(True, alpha=0.3)
    return figure, list(axes.flat)


def label_axes(ax: Any, xlabel: str, ylabel: str, title: str, legend: bool = True) -> None:
    """Name an axes' x and y axes and give it a title in the house font sizes; add the legend unless told not to."""
    ax.set_xlabel(xlabel, fontsize=FONT["label"])
    ax.set_ylabel(ylabel, fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    if legend:
        ax.legend(fontsize=FONT["tick"])


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals, a value that rounds to zero as plain ``0.000`` (never
    ``-0.000``); ``n/a`` for NaN."""
    if math.isnan(value):
        return "n/a"
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def agent_colours(agents: list[str]) -> dict[str, str]:
    """A fixed colour per agent name (alphabetical), the same in every figure."""
    return {name: AGENT_PALETTE[i % len(AGENT_PALETTE)] for i, name in enumerate(sorted(agents))}


def side_offset(i: int, count: int, step: float) -> float:
    """How far the i-th of ``count`` side-by-side marks (bars, points) sits from the middle of their place."""
    return (i - (count - 1) / 2) * step


def length_share_bars(ax: Any, counts: pd.DataFrame, group: str, groups: list, colours: dict, length: str,
                      rows: str, unit: str, names: dict | None = None, longest: int | None = None) -> None:
    """Grouped bars of the share of rows lasting 1 to ``longest`` (default: the longest seen) ``length`` (hands,
    rounds), a colour per group.

    ``counts`` has one row per group and length: ``share`` of the group's rows, and their count in the ``rows``
    column ("games", "matches"); each group's legend entry names it (``names``, else the value), its rows and
    its mean length in ``unit``.
    """
    lengths = np.arange(1, (longest or int(counts[length].max())) + 1)
    width = 0.8 / max(1, len(groups))
    for i, value in enumerate(groups):
        part = counts[counts[group] == value]
        share = part.set_index(length)["share"].reindex(lengths, fill_value=0.0)
        mean = float((share * lengths).sum())
        ax.bar(lengths + side_offset(i, len(groups), width), 100 * share.to_numpy(), width, color=colours[value],
               label=f"{(names or {}).get(value, value)} ({int(part[rows].sum()):,} {rows}, mean {mean:.2f} {unit})")
    ax.set_xticks(lengths)


def error_bars(frame: pd.DataFrame, centre: str, low: str, high: str, scale: float = 1.0) -> np.ndarray:
    """Matplotlib's ``[lower, upper]`` error lengths from a centre column and its interval's columns."""
    lower = (frame[centre] - frame[low]).clip(lower=0) * scale
    upper = (frame[high] - frame[centre]).clip(lower=0) * scale
    return np.vstack([lower.to_numpy(), upper.to_numpy()])


# ----- the ladder -------------------------------------------------------------------------------------


def ladder_means_figure(scores: pd.DataFrame, row: str = "hand") -> Figure:
    """Mean score per hand of each agent at each mixed table (``agent_scores(run, per_table=True)``), 95% CIs.

    Tables of one agent only are left out: there every seat averages zero by symmetry.
    ``row`` is what a score is for: a ``hand`` of Knorri, a ``game`` of Knockout Whist.
    """
    mixed = scores.groupby("table")["agent"].transform("nunique") > 1
    scores = scores[mixed].sort_values(["seats", "table"])
    labels = scores.drop_duplicates("table")["label"].tolist()
    figure, (ax,) = new_figure(9.5, max(3.5, 0.7 * len(labels) + 1.8))
    colours = agent_colours(scores["agent"].unique().tolist())
    agents = sorted(scores["agent"].unique())
    height = 0.8 / max(1, len(agents))
    for i, agent in enumerate(agents):
        part = scores[scores["agent"] == agent].set_index("label").reindex(labels)
        y = np.arange(len(labels)) + (i - (len(agents) - 1) / 2) * height
        ax.errorbar(part["mean"], y, xerr=part["ci95"], fmt="o", color=colours[agent], capsize=4, markersize=7,
                    label=agent)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(np.arange(len(labels)), labels, fontsize=FONT["tick"])
    ax.invert_yaxis()
    ax.set_xlabel(f"mean score (points per seat and {row}, 95% CI over duplicate deals)", fontsize=FONT["label"])
    ax.set_title(f"Bot ladder: mean score per {row} at each mixed table", fontsize=FONT["title"])
    if agents:
        ax.legend(fontsize=FONT["tick"], title="agent", title_fontsize=FONT["tick"])
    else:
        ax.text(0.5, 0.5, "no table seats two different agents", ha="center", va="center", transform=ax.transAxes,
                fontsize=FONT["label"])
    return figure


def pairwise_figure(pairwise: pd.DataFrame, agents: list[str], row: str = "hand") -> Figure:
    """Head to head: how often the row agent finished ahead of the column agent in the same hand (or ``row``)."""
    size = max(4.5, 1.3 * len(agents) + 2.5)
    figure, (ax,) = new_figure(size + 1.2, size)
    ax.grid(False)
    matrix = np.full((len(agents), len(agents)), np.nan)
    games = np.zeros((len(agents), len(agents)), dtype=np.int64)
    index = {name: i for i, name in enumerate(agents)}
    for pair in pairwise.itertuples():
        matrix[index[pair.agent], index[pair.opponent]] = 100 * pair.win_share
        games[index[pair.agent], index[pair.opponent]] = pair.games
    image = ax.imshow(matrix, cmap="RdBu", vmin=0, vmax=100)
    for i in range(len(agents)):
        for j in range(len(agents)):
            if not np.isnan(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j]:.1f}%\n{games[i, j]:,} games", ha="center", va="center",
                        fontsize=FONT["tick"], color="white" if abs(matrix[i, j] - 50) > 30 else "black")
    ax.set_xticks(range(len(agents)), agents, fontsize=FONT["label"])
    ax.set_yticks(range(len(agents)), agents, fontsize=FONT["label"])
    ax.set_xlabel(f"opponent (another seat of the same {row})", fontsize=FONT["label"])
    ax.set_ylabel("agent", fontsize=FONT["label"])
    ax.set_title("Head to head: agent finished ahead of opponent", fontsize=FONT["title"])
    bar = figure.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("seat pairs won by the row agent (%; a tie counts half)", fontsize=FONT["tick"])
    return figure


RATING_AXIS = "openskill Plackett-Luce rating: mu with mu ± 2 sigma (prior 25 ± 8.3)"


def ratings_figure(ratings: pd.DataFrame, row: str = "row") -> Figure:
    """Each agent's openskill Plackett-Luce rating (mu) with its mu ± 2 sigma interval."""
    rated = ratings.dropna(subset=["rating"]).sort_values("rating")
    figure, (ax,) = new_figure(9, max(3.0, 0.6 * len(rated) + 1.8))
    colours = agent_colours(ratings["agent"].tolist())
    positions = np.arange(len(rated))
    for y, entry in zip(positions, rated.itertuples(), strict=True):
        lower, upper = max(0.0, entry.rating - entry.low), max(0.0, entry.high - entry.rating)
        ax.errorbar([entry.rating], [y], xerr=[[lower], [upper]], fmt="o", color=colours[entry.agent], capsize=5,
                    markersize=8, label=f"{entry.agent}: {entry.rating:.1f} ± {entry.high - entry.rating:.1f} "
                                        f"({entry.rated:,} {plural(row)})")
    ax.set_yticks(positions, rated["agent"].tolist(), fontsize=FONT["label"])
    ax.set_xlabel(RATING_AXIS, fontsize=FONT["label"])
    ax.set_title("Bot ladder: ratings from whole finishing orders", fontsize=FONT["title"])
    if len(rated):
        ax.legend(fontsize=FONT["tick"], loc="lower right")
    else:
        ax.text(0.5, 0.5, "no two different agents met at a table", ha="center", va="center",
                transform=ax.transAxes, fontsize=FONT["label"])
    return figure


def league_ratings_figure(ratings: dict[int, pd.DataFrame], title: str) -> Figure:
    """A league's ratings: each agent's mu with its mu ± 2 sigma interval, one band of rows per seat count."""
    agents = sorted({name for frame in ratings.values() for name in frame["agent"]})
    colours = agent_colours(agents)
    figure, (ax,) = new_figure(9, max(3.0, 0.45 * sum(len(f) + 1 for f in ratings.values()) + 1.5))
    ticks, labels, y = [], [], 0.0
    for seats in sorted(ratings, reverse=True):
        rated = ratings[seats].dropna(subset=["rating"]).sort_values("rating")
        for entry in rated.itertuples():
            ax.errorbar([entry.rating], [y], xerr=[[entry.rating - entry.low], [entry.high - entry.rating]],
                        fmt="o", color=colours[entry.agent], capsize=4, markersize=7)
            ticks.append(y)
            labels.append(f"{seats} seats: {entry.agent}")
            y += 1
        y += 1  # a gap between seat counts
    ax.set_yticks(ticks, labels, fontsize=FONT["tick"])
    ax.set_xlabel(RATING_AXIS, fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    ax.grid(axis="x", alpha=0.3)
    return figure
