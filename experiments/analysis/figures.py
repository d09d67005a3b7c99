"""The figures every game's analysis shares (the house style, the ladder, head to head, ratings, a league).

Each function takes a table from a game's ``stats`` or from ``ladder``
(or the run's hands) and returns a ``matplotlib.figure.Figure``, made without
pyplot so that it works the same headless and in a notebook. Every figure has a
title, axes labelled with their units and a legend where colours mean something,
and declares the checklist's facts (``declare``: title, units, n, the intervals'
name and how zero shows), which ``tests/test_figure_checklist.py`` checks against
what was drawn for every figure of every report and notebook.
"""

from __future__ import annotations

import math
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.contract import plural

SEAT_COLOURS = {3: "#1b6ca8", 4: "#e07b00", 5: "#2e8b57", 6: "#b03a48"}
AGENT_PALETTE = ("#1b6ca8", "#e07b00", "#2e8b57", "#b03a48", "#6a51a3", "#8c6d31", "#636363", "#17becf")
FONT = {"title": 13, "label": 11, "tick": 10}
LABEL_WIDTH = 26  # characters per line of a table's label on an axis (``short_label``)
ZERO_WAYS = ("from 0", "log", "broken")
"""How a value axis shows zero: its range holds 0 (a rate's axis starts there; a signed value's crosses it, with a
line at 0), it is a log scale (which has no zero, and its label says "log"), or it is marked as a broken axis."""


@dataclass(frozen=True)
class FigureFacts:
    """What the figure checklist (CONTRIBUTING.md, "Figures") asks of one drawn figure, as its function declares it.

    ``title`` is the title drawn; ``units`` what the value axis counts, in its label's words; ``n`` the counts
    behind it, each as the figure prints it; ``interval`` the drawn intervals' name as printed (None: none drawn);
    ``zero`` per data axes in order (one entry for all), ``"<x|y|colour> <way>"`` with a way of ``ZERO_WAYS``.
    """

    title: str
    units: str
    n: tuple[str, ...]
    interval: str | None
    zero: tuple[str, ...]
    drawn_by: str = ""


def declare(figure: Figure, title: str, units: str, n: str | tuple[str, ...] | list[str], interval: str | None,
            zero: str | tuple[str, ...]) -> Figure:
    """Attach the checklist's facts to ``figure`` (``FigureFacts``) and return it; called last by the function that
    drew it, whose name the facts record so a test can tell every figure function was checked."""
    caller = sys._getframe(1)
    figure.checklist = FigureFacts(title, units, (n,) if isinstance(n, str) else tuple(n), interval,
                                   (zero,) if isinstance(zero, str) else tuple(zero),
                                   f"{caller.f_globals.get('__name__', '?')}.{caller.f_code.co_name}")
    return figure


def figure_facts(figure: Figure) -> FigureFacts | None:
    """The facts ``declare`` attached to a figure, or None for a figure that declared none."""
    facts = getattr(figure, "checklist", None)
    return facts if isinstance(facts, FigureFacts) else None


def short_label(label: str, width: int = LABEL_WIDTH) -> str:
    """A table's label wrapped onto lines of about ``width`` characters, so a long lineup does not take half the
    figure's width (nothing is cut: a word longer than a line keeps its own line)."""
    return textwrap.fill(str(label), width, break_long_words=False, break_on_hyphens=False)


def label_lines(labels: list[str]) -> int:
    """The lines ``labels`` take on an axis, to size a figure of one row per label."""
    return sum(label.count("\n") + 1 for label in labels)


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
    return palette_colours(sorted(agents))


def palette_colours(values: list) -> dict:
    """A colour per value from the palette, in the order given (round again past its last colour)."""
    return {value: AGENT_PALETTE[i % len(AGENT_PALETTE)] for i, value in enumerate(values)}


def side_offset(i: int, count: int, step: float) -> float:
    """How far the i-th of ``count`` side-by-side marks (bars, points) sits from the middle of their place."""
    return (i - (count - 1) / 2) * step


def length_share_bars(ax: Any, counts: pd.DataFrame, group: str, groups: list, colours: dict, length: str,
                      rows: str, unit: str, names: dict | None = None, longest: int | None = None) -> list[str]:
    """Grouped bars of the share of rows lasting 1 to ``longest`` (default: the longest seen) ``length`` (hands,
    rounds), a colour per group.

    ``counts`` has one row per group and length: ``share`` of the group's rows, and their count in the ``rows``
    column ("games", "matches"); each group's legend entry names it (``names``, else the value), its rows and
    its mean length in ``unit``. Returns each group's count as its legend prints it (``"400 games"``).
    """
    lengths = np.arange(1, (longest or int(counts[length].max())) + 1)
    width = 0.8 / max(1, len(groups))
    shown = []
    for i, value in enumerate(groups):
        part = counts[counts[group] == value]
        share = part.set_index(length)["share"].reindex(lengths, fill_value=0.0)
        mean = float((share * lengths).sum())
        shown.append(f"{int(part[rows].sum()):,} {rows}")
        places = lengths + side_offset(i, len(groups), width)
        ax.bar(places, 100 * share.to_numpy(), width, color=colours[value],
               label=f"{(names or {}).get(value, value)} ({shown[-1]}, mean {mean:.2f} {unit})")
        zero_marks(ax, places[share.to_numpy() == 0], colours[value])
    ax.set_xticks(lengths)
    return shown


def zero_marks(ax: Any, places: np.ndarray, colour: str, horizontal: bool = False, at: Any = 0.0) -> None:
    """Ring each bar of zero at ``places`` (on the axis, or at ``at``) so that it is seen, not left blank."""
    level = np.broadcast_to(at, np.shape(places))
    x, y = (level, places) if horizontal else (places, level)
    (marks,) = ax.plot(x, y, linestyle="none", marker="o", markersize=6, markerfacecolor="white",
                       markeredgecolor=colour, markeredgewidth=1.8, clip_on=False)
    marks.set_in_layout(False)  # drawn past the axes' edge, it must not squeeze the layout


def error_bars(frame: pd.DataFrame, centre: str, low: str, high: str, scale: float = 1.0) -> np.ndarray:
    """Matplotlib's ``[lower, upper]`` error lengths from a centre column and its interval's columns."""
    lower = (frame[centre] - frame[low]).clip(lower=0) * scale
    upper = (frame[high] - frame[centre]).clip(lower=0) * scale
    return np.vstack([lower.to_numpy(), upper.to_numpy()])


# ----- the ladder -------------------------------------------------------------------------------------


def ladder_means_figure(scores: pd.DataFrame, row: str = "hand") -> Figure:
    """Mean score per hand of each agent at each mixed table (``agent_scores(run, per_table=True)``), 95% CIs.

    Tables of one agent only are left out: there every seat averages zero by symmetry.
    ``row`` is what a score is for: a ``hand`` of Knorri, a ``game`` of Knockout Whist. Each table's label is
    wrapped (``short_label``); each agent's legend entry gives its seat-rows behind the points.
    """
    mixed = scores.groupby("table")["agent"].transform("nunique") > 1
    scores = scores[mixed].sort_values(["seats", "table"])
    labels = scores.drop_duplicates("table")["label"].tolist()
    shown = [short_label(label) for label in labels]
    figure, (ax,) = new_figure(9.5, max(3.5, 0.45 * label_lines(shown) + 0.25 * len(shown) + 1.8))
    colours = agent_colours(scores["agent"].unique().tolist())
    agents = sorted(scores["agent"].unique())
    height = 0.8 / max(1, len(agents))
    count_column = f"seat_{plural(row)}"
    names = []
    for i, agent in enumerate(agents):
        part = scores[scores["agent"] == agent].set_index("label").reindex(labels)
        y = np.arange(len(labels)) + (i - (len(agents) - 1) / 2) * height
        name = agent if count_column not in part else \
            f"{agent} (n = {int(part[count_column].sum()):,} seat-{plural(row)})"
        names.append(name)
        ax.errorbar(part["mean"], y, xerr=part["ci95"], fmt="o", color=colours[agent], capsize=4, markersize=7,
                    label=name)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(np.arange(len(labels)), shown, fontsize=FONT["tick"])
    ax.invert_yaxis()
    units = f"points per seat and {row}"
    ax.set_xlabel(f"mean score ({units}, 95% CI over duplicate deals)", fontsize=FONT["label"])
    title = f"Bot ladder: mean score per {row} at each mixed table"
    ax.set_title(title, fontsize=FONT["title"])
    if agents:  # the legend below the axes, where it covers no point and no interval
        figure.legend(*ax.get_legend_handles_labels(), fontsize=FONT["tick"], title="agent",
                      title_fontsize=FONT["tick"], loc="outside lower center", ncol=min(3, len(agents)))
    else:
        ax.text(0.5, 0.5, "no table seats two different agents", ha="center", va="center", transform=ax.transAxes,
                fontsize=FONT["label"])
        names = ["no table seats two different agents"]
    return declare(figure, title, units, names, "95% CI", "x from 0")


def pairwise_figure(pairwise: pd.DataFrame, agents: list[str], row: str = "hand") -> Figure:
    """Head to head: how often the row agent finished ahead of the column agent in the same hand (or ``row``),
    each cell with the seat pairs behind it (two agents meet once per pair of their seats in a row).

    A tie counts half, so a pair's two cells add up to 100%: each pair's share is rounded once and its mirror cell
    shows 100 minus it. The diagonal (an agent against itself) and pairs that never met are grey, off the scale.
    """
    size = max(4.5, 1.3 * len(agents) + 2.5)
    figure, (ax,) = new_figure(size + 1.2, size)
    ax.grid(False)
    matrix = np.full((len(agents), len(agents)), np.nan)
    counts = np.zeros((len(agents), len(agents)), dtype=np.int64)
    index = {name: i for i, name in enumerate(agents)}
    for pair in pairwise.itertuples():
        i, j = index[pair.agent], index[pair.opponent]
        counts[i, j] = pair.games
        if i < j:  # round once per pair; the mirror cell is the rest of 100
            matrix[i, j] = round(100 * pair.win_share, 1)
            matrix[j, i] = round(100 - matrix[i, j], 1)
    colours = matplotlib.colormaps["RdBu"].with_extremes(bad="#bdbdbd")
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap=colours, vmin=0, vmax=100)
    n_texts = []
    for i in range(len(agents)):
        for j in range(len(agents)):
            if i == j:
                ax.text(j, i, "itself", ha="center", va="center", fontsize=FONT["tick"], color="#404040")
            elif np.isnan(matrix[i, j]):
                ax.text(j, i, "never met", ha="center", va="center", fontsize=FONT["tick"], color="#404040")
            else:
                n_texts.append(f"{counts[i, j]:,} pairs")
                ax.text(j, i, f"{matrix[i, j]:.1f}%\n{n_texts[-1]}", ha="center", va="center",
                        fontsize=FONT["tick"], color="white" if abs(matrix[i, j] - 50) > 30 else "black")
    ax.set_xticks(range(len(agents)), agents, fontsize=FONT["label"])
    ax.set_yticks(range(len(agents)), agents, fontsize=FONT["label"])
    ax.set_xlabel(f"opponent (another seat of the same {row}; n: seat pairs of the two in one {row})",
                  fontsize=FONT["label"])
    ax.set_ylabel("agent", fontsize=FONT["label"])
    title = "Head to head: agent finished ahead of opponent"
    ax.set_title(title, fontsize=FONT["title"])
    bar = figure.colorbar(image, ax=ax, shrink=0.8)
    units = "% of seat pairs won by the row agent"
    bar.set_label(f"{units} (a tie counts half, so a pair's cells add to 100)", fontsize=FONT["tick"])
    return declare(figure, title, units, n_texts or ["never met"], None, "colour from 0")


RATING_AXIS = "openskill Plackett-Luce rating: mu with mu ± 2 sigma (prior 25 ± 8.3)"


def ratings_figure(ratings: pd.DataFrame, row: str = "row") -> Figure:
    """Each agent's openskill Plackett-Luce rating (mu) with its mu ± 2 sigma interval, on an axis from 0."""
    rated = ratings.dropna(subset=["rating"]).sort_values("rating")
    figure, (ax,) = new_figure(9, max(3.0, 0.6 * len(rated) + 1.8))
    colours = agent_colours(ratings["agent"].tolist())
    positions = np.arange(len(rated))
    names = []
    for y, entry in zip(positions, rated.itertuples(), strict=True):
        lower, upper = max(0.0, entry.rating - entry.low), max(0.0, entry.high - entry.rating)
        names.append(f"{entry.agent}: {entry.rating:.1f} ± {entry.high - entry.rating:.1f} "
                     f"({entry.rated:,} {plural(row)})")
        ax.errorbar([entry.rating], [y], xerr=[[lower], [upper]], fmt="o", color=colours[entry.agent], capsize=5,
                    markersize=8, label=names[-1])
    ax.set_yticks(positions, rated["agent"].tolist(), fontsize=FONT["label"])
    ax.set_xlabel(RATING_AXIS, fontsize=FONT["label"])
    title = "Bot ladder: ratings from whole finishing orders"
    ax.set_title(title, fontsize=FONT["title"])
    if len(rated):
        ax.set_xlim(left=min(0.0, float(rated["low"].min())))
        ax.legend(fontsize=FONT["tick"], loc="lower right")
    else:
        ax.text(0.5, 0.5, "no two different agents met at a table", ha="center", va="center",
                transform=ax.transAxes, fontsize=FONT["label"])
        names = ["no two different agents met at a table"]
    return declare(figure, title, "openskill Plackett-Luce rating", names, "mu ± 2 sigma", "x from 0")


def league_ratings_figure(ratings: dict[int, pd.DataFrame], title: str) -> Figure:
    """A league's ratings: each agent's mu with its mu ± 2 sigma interval, one band of rows per seat count, each
    row naming how many rows rated it, on an axis from 0."""
    agents = sorted({name for frame in ratings.values() for name in frame["agent"]})
    colours = agent_colours(agents)
    figure, (ax,) = new_figure(9, max(3.0, 0.45 * sum(len(f) + 1 for f in ratings.values()) + 1.5))
    ticks, labels, y = [], [], 0.0
    lowest = 0.0
    for seats in sorted(ratings, reverse=True):
        rated = ratings[seats].dropna(subset=["rating"]).sort_values("rating")
        for entry in rated.itertuples():
            ax.errorbar([entry.rating], [y], xerr=[[entry.rating - entry.low], [entry.high - entry.rating]],
                        fmt="o", color=colours[entry.agent], capsize=4, markersize=7)
            ticks.append(y)
            labels.append(f"{seats} seats: {entry.agent} (n = {entry.rated:,})")
            lowest = min(lowest, float(entry.low))
            y += 1
        y += 1  # a gap between seat counts
    ax.set_yticks(ticks, labels, fontsize=FONT["tick"])
    if not labels:
        ax.text(0.5, 0.5, "no ratings", ha="center", va="center", transform=ax.transAxes, fontsize=FONT["label"])
    ax.set_xlim(left=lowest)
    ax.set_xlabel(RATING_AXIS, fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    ax.grid(axis="x", alpha=0.3)
    return declare(figure, title, "openskill Plackett-Luce rating", labels or ["no ratings"], "mu ± 2 sigma",
                   "x from 0")
