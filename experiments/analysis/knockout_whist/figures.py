"""Knockout Whist's figures for the notebook and ``knorri-sim report``, drawn from ``stats`` tables.

Each function returns a ``matplotlib.figure.Figure`` made without pyplot (the same
headless and in a notebook), with a title, axes labelled with their units and a
legend. ``group`` is the column whose values get one colour each: ``seats`` for
a run's tables, ``variant`` for runs of several variants. The ladder's figures
are the shared ones (``experiments.analysis.figures``), called with ``row="game"``.

Each figure the report draws from one function here is declared on it
(``@REPORT_FIGURES.figure``: its file name, caption and the ``stats`` table it is
drawn from), in the report's order; ``experiments.analysis.knockout_whist.report``
adds the shared ladder figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis import figures as shared
from experiments.analysis import reports
from experiments.analysis.knockout_whist import stats
from sim.knockout_whist.encoding import LAST_HAND

KW_SEAT_COLOURS = {2: "#6a51a3", **shared.SEAT_COLOURS, 7: "#8c6d31"}
DOG_MEASURES = (("given", "games with a dog's life (% of games)"),
                ("saved", "dogs whose card took a trick (% of dogs)"),
                ("won", "dogs that went on to win (% of dogs)"))

REPORT_FIGURES = reports.FigureBook()
"""The figures of Knockout Whist's report that one function here draws, in the report's order."""


def group_colours(values: list) -> dict:
    """A colour per group: the seat-count colours for seat counts, else the palette in the order given."""
    if all(isinstance(v, (int, np.integer)) and int(v) in KW_SEAT_COLOURS for v in values):
        return {v: KW_SEAT_COLOURS[int(v)] for v in values}
    return shared.palette_colours(values)


def _group_name(group: str, value: object) -> str:
    return f"{value} seats" if group == "seats" else str(value)


def _groups(frame: pd.DataFrame, group: str) -> list:
    column = frame[group]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [v for v in column.cat.categories if (column == v).any()]
    return sorted(column.unique())


def _group_axes(frame: pd.DataFrame, group: str) -> tuple[Figure, Any, list, dict]:
    """A new figure and its axes, the groups present in ``frame[group]``, and a colour for each group."""
    figure, (ax,) = shared.new_figure(9.5, 5.2)
    groups = _groups(frame, group)
    return figure, ax, groups, group_colours(groups)


@REPORT_FIGURES.figure("seat_wins", "Win rate by seat, per seat count, with 95% CIs", stats.seat_win_rates)
def seat_win_figure(rates: pd.DataFrame, group: str = "seats") -> Figure:
    """Win rate by seat (0 deals hand 1, 1 leads it) with 95% CIs, one line per group; dotted: 1/seats."""
    figure, ax, groups, colours = _group_axes(rates, group)
    spread = 0.25 / max(1, len(groups))
    names = []
    for i, value in enumerate(groups):
        part = rates[rates[group] == value].sort_values("seat")
        x = part["seat"] + shared.side_offset(i, len(groups), spread)
        names.append(f"{int(part['games'].iloc[0]):,} games")
        ax.errorbar(x, 100 * part["win_rate"], yerr=shared.error_bars(part, "win_rate", "low", "high", 100), marker="o",
                    capsize=3, color=colours[value], label=f"{_group_name(group, value)} ({names[-1]})")
    for fair in sorted(rates["fair"].unique()):
        ax.axhline(100 * fair, color="grey", linestyle=":", linewidth=1)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0)
    title = "Who wins from which seat (dotted: 1/seats, a fair share)"
    shared.label_axes(ax, "seat (0 deals hand 1, so seat 1 leads its first trick)",
                      "games won (% of the seat's games, 95% CI)", title)
    return shared.declare(figure, title, "% of the seat's games", names, "95% CI", "y from 0")


@REPORT_FIGURES.figure("game_length", "Hands played per game, per seat count", stats.game_lengths)
def game_length_figure(lengths: pd.DataFrame, group: str = "seats") -> Figure:
    """The share of games lasting 1 to 7 hands, grouped bars, one colour per group."""
    figure, ax, groups, colours = _group_axes(lengths, group)
    names = shared.length_share_bars(ax, lengths, group, groups, colours, "hands_played", "games", "hands",
                                     names={value: _group_name(group, value) for value in groups}, longest=LAST_HAND)
    title = "How long games last"
    shared.label_axes(ax, "hands played in the game (a rainbow ends it in hand 4)", "games (% of the group's games)",
                      title)
    return shared.declare(figure, title, "% of the group's games", names, None, "y from 0")


@REPORT_FIGURES.figure("dogs", "Dog's lives given, saved and won, per seat count, with 95% CIs", stats.dog_summary)
def dog_figure(dogs: pd.DataFrame, group: str = "seats") -> Figure:
    """Dog's lives: games with one given, dogs saved, dogs that won; grouped bars with 95% CIs."""
    figure, ax, groups, colours = _group_axes(dogs, group)
    width = 0.8 / max(1, len(groups))
    positions = np.arange(len(DOG_MEASURES))
    names = []
    for i, value in enumerate(groups):
        row = dogs[dogs[group] == value].iloc[0]
        shares = np.array([row[name] for name, _ in DOG_MEASURES], dtype=np.float64)
        lows = np.array([row[f"{name}_low"] for name, _ in DOG_MEASURES], dtype=np.float64)
        highs = np.array([row[f"{name}_high"] for name, _ in DOG_MEASURES], dtype=np.float64)
        errors = 100 * np.vstack([np.clip(shares - lows, 0, None), np.clip(highs - shares, 0, None)])
        names.append(f"{int(row['dogs']):,} dogs in {int(row['games']):,} games")
        ax.bar(positions + shared.side_offset(i, len(groups), width), 100 * np.nan_to_num(shares), width,
               yerr=np.nan_to_num(errors), capsize=3, color=colours[value],
               label=f"{_group_name(group, value)} ({names[-1]})")
    ax.set_xticks(positions, [label for _, label in DOG_MEASURES], fontsize=shared.FONT["tick"])
    ax.set_ylim(0, 105)
    ax.set_ylabel("share (%, 95% CI)", fontsize=shared.FONT["label"])
    title = "Dog's lives: how often given, how often they save the seat"
    ax.set_title(title, fontsize=shared.FONT["title"])
    ax.legend(fontsize=shared.FONT["tick"])
    return shared.declare(figure, title, "share (%", names, "95% CI", "y from 0")
