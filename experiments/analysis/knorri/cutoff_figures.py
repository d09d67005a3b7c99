"""The figures of ``knorri-sim cutoffs``: shares, loop anatomy, survival, the exponential tail and what the cut-off
changes (by the run's own continuation past its cut-offs, or its pairing with a second run).

Each function takes the small tables of ``experiments.analysis.knorri.cutoffs`` (or ``counterfactual``) and
returns a ``matplotlib.figure.Figure`` in the house style (``experiments.analysis.figures``): a title, axes
named with their units, the number of hands behind every series, intervals named, and zero on every axis
that counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis import figures as shared
from experiments.analysis.knorri.counterfactual import Counterfactual
from experiments.analysis.knorri.cutoffs import ANY, FIT_QUANTILE, Anatomy, Survival, options_text
from experiments.analysis.knorri.figures import REASON_COLOURS

TABLE_COLOURS = shared.AGENT_PALETTE  # one colour per table, in table order
FEW_POINTS = 30  # a step curve of this many points or fewer marks each, so a single hand is seen


def table_colour(index: int) -> str:
    """The colour of the ``index``-th table drawn."""
    return TABLE_COLOURS[index % len(TABLE_COLOURS)]


def shares_figure(shares: pd.DataFrame) -> Figure:
    """Share of each table's hands cut off by each reason, with 95% intervals over deal groups."""
    reasons = [reason for reason in shares["reason"].unique() if reason != ANY]
    tables = shares.drop_duplicates("table").sort_values(["seats", "table"])
    counts = [f"n = {hands:,}" for hands in tables["hands"]]
    labels = [shared.short_label(f"{label} ({n})") for label, n in zip(tables["label"], counts, strict=True)]
    figure, (ax,) = shared.new_figure(9.5, max(3.5, 0.42 * shared.label_lines(labels) + 0.3 * len(labels) + 2.0))
    positions = np.arange(len(labels))
    height = 0.8 / max(1, len(reasons))
    for i, reason in enumerate(reasons):
        part = shares[shares["reason"] == reason].set_index("table").loc[tables["table"]].reset_index()
        ax.barh(positions + shared.side_offset(i, len(reasons), height), 100 * part["share"], height,
                xerr=shared.error_bars(part, "share", "low", "high", 100), capsize=3,
                color=REASON_COLOURS.get(reason, shared.AGENT_PALETTE[i]), label=f"cut off by {reason}")
    ax.set_yticks(positions, labels, fontsize=shared.FONT["tick"])
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    units = "% of the table's hands"
    ax.set_xlabel(f"hands cut off ({units}; bars: 95% interval over deal groups)", fontsize=shared.FONT["label"])
    title = "How often each table cuts hands off"
    ax.set_title(title, fontsize=shared.FONT["title"])
    figure.legend(fontsize=shared.FONT["tick"], loc="outside lower center", ncol=max(1, len(reasons)))
    return shared.declare(figure, title, units, counts, "95% interval", "x from 0")


def anatomy_figure(anatomy: Anatomy) -> Figure:
    """The loops of repeat-ended hands: cycle lengths, choices per cycle, log2 paths (with the chance uniform random
    play goes round again) and the share of loops each seat acts in."""
    units = "% of the table's repeats"
    if not anatomy.present:
        figure, (ax,) = shared.new_figure(9.0, 5.0)
        names = _distribution(ax, anatomy.lengths,
                              "cycle length (phase-2 actions from the earlier position to the repeat)")
        title = "Cycle lengths of repeats (this run has no other loop-anatomy columns)"
        ax.set_title(title, fontsize=shared.FONT["title"])
        return shared.declare(figure, title, units, names, None, "y from 0")
    figure, axes = shared.new_figure(13.0, 9.5, rows=2, cols=2)
    names = _distribution(axes[0], anatomy.lengths, "cycle length (phase-2 actions in the cycle)")
    axes[0].set_title("Cycle length", fontsize=shared.FONT["title"])
    _distribution(axes[1], anatomy.choices, "decisions in the cycle with more than one legal action")
    axes[1].set_title("Choices per cycle (0 would be a forced loop)", fontsize=shared.FONT["title"])
    _distribution(axes[2], anatomy.paths, "cycle_log2_paths (sum of log2 legal actions; bins of 1)")
    axes[2].set_title("Paths through the cycle", fontsize=shared.FONT["title"])
    top = axes[2].secondary_xaxis("top", functions=(lambda x: x, lambda x: x))
    ticks = [t for t in (0, 5, 10, 15, 20, 30, 40, 60) if t <= max(1, float(anatomy.paths["value"].max()) + 1)]
    top.set_xticks(ticks, [_chance(t) for t in ticks], fontsize=shared.FONT["tick"] - 1)
    top.set_xlabel("chance uniform random play goes round the same cycle again (2^-x)", fontsize=shared.FONT["tick"])
    names += _seat_bars(axes[3], anatomy.seats)
    title = "The loops of repeat-ended hands"
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, units, names, None, "y from 0")


def _chance(bits: float) -> str:
    return "1" if bits == 0 else f"1/{2 ** bits:,.0f}" if bits < 20 else f"2^-{bits:g}"


def _distribution(ax, counts: pd.DataFrame, xlabel: str) -> list[str]:
    """The share of each table's repeats at each value, a line per table with its n in the legend (the legend's
    entries returned). A run with one table per seat count keeps the seat counts' colours and names."""
    units = "repeat-ended hands (% of the table's repeats)"
    if counts.empty:
        ax.text(0.5, 0.5, "no hand ended by a repeat", ha="center", va="center", transform=ax.transAxes)
        shared.label_axes(ax, xlabel, units, "", legend=False)
        ax.set_ylim(bottom=0)
        return ["no hand ended by a repeat"]
    tables = counts.drop_duplicates("table").sort_values("table")
    by_seats = tables["seats"].is_unique
    names = []
    for i, (_, table) in enumerate(tables.iterrows()):
        part = counts[counts["table"] == table["table"]]
        total = int(part["hands"].sum())
        share = 100 * part["hands"] / total
        seats = int(table["seats"])
        names.append(f"{seats} seats (n = {total:,})" if by_seats
                     else shared.short_label(f"{table['label']} (n = {total:,})", 40))
        ax.plot(part["value"], share, "o-", markersize=4, linewidth=0.9,
                color=shared.SEAT_COLOURS.get(seats) if by_seats else table_colour(i), label=names[-1])
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    shared.label_axes(ax, xlabel, units, "")
    return names


def _seat_bars(ax, seats: pd.DataFrame) -> list[str]:
    """Per table, the share of its repeats in which each seat acted inside the cycle (the legend's entries
    returned)."""
    tables = list(dict.fromkeys(seats["label"])) if not seats.empty else []
    width = 0.8 / max(1, len(tables))
    names = []
    for i, label in enumerate(tables):
        part = seats[seats["label"] == label]
        names.append(f"n = {int(part['repeats'].iloc[0]):,} repeats")
        places = part["seat"].to_numpy() + shared.side_offset(i, len(tables), width)
        ax.bar(places, 100 * part["share"], width, color=table_colour(i),
               label=shared.short_label(f"{label} ({names[-1]})", 40))
        shared.zero_marks(ax, places[part["share"].to_numpy() == 0], table_colour(i))
    ax.set_ylim(0, 100 + 12 * len(tables))  # room above the bars for the legend
    shared.label_axes(ax, "seat", "repeats in which the seat acted in the cycle (%)", "Which seats loop", legend=False)
    if tables:
        ax.legend(fontsize=shared.FONT["tick"] - 1, loc="upper center", ncol=2)
    return names


def survival_figure(survival: Survival) -> Figure:
    """Kaplan-Meier curves of phase-2 length per table, cut-off hands censored, with lifelines' 95% bands."""
    figure, (ax,) = shared.new_figure(10.0, 5.8)
    names = []
    for i, (table, part) in enumerate(survival.curves.groupby("table", sort=True)):
        row = survival.medians.set_index("table").loc[table]
        colour = table_colour(i)
        names.append(f"n = {int(row['hands']):,}, {int(row['cut off']):,} censored")
        ax.step(part["time"], 100 * part["survival"], where="post", color=colour, linewidth=1.4,
                label=shared.short_label(f"{row['label']} ({names[-1]})", 60))
        ax.fill_between(part["time"], 100 * part["low"], 100 * part["high"], step="post", color=colour, alpha=0.2)
    if survival.cap is not None:
        ax.axvline(survival.cap, color="black", linestyle="--", linewidth=1.0, label=f"cap: {survival.cap:,} actions")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 102)
    title = "Hand length as a survival curve (cut-offs censored; shaded: 95% interval)"
    shared.label_axes(ax, "phase-2 actions (plays and pick-ups)", "hands still playing (%, Kaplan-Meier)", title)
    ax.legend(fontsize=shared.FONT["tick"] - 1)
    return shared.declare(figure, title, "%, Kaplan-Meier", names, "95% interval", "y from 0")


def tail_figure(survival: Survival) -> Figure:
    """Where an exponential tail fits: the Kaplan-Meier curve on a log scale beside the exponential fitted beyond
    the length a quarter of hands outlast (solid where fitted, dashed where extrapolated back), and the fitted
    decay rate per 100 actions as the fit's threshold moves out (a flat line is an exponential tail)."""
    figure, (ax, rates) = shared.new_figure(14.0, 5.8, cols=2)
    tails = survival.tails
    names = []
    for i, (table, part) in enumerate(survival.curves.groupby("table", sort=True)):
        colour = table_colour(i)
        positive = part[part["survival"] > 0]
        row = survival.medians.set_index("table").loc[table]
        names.append(f"n = {int(row['hands']):,}")
        ax.step(positive["time"], positive["survival"], where="post", color=colour, linewidth=1.3,
                label=shared.short_label(f"{row['label']} ({names[-1]})", 60))
        fit = tails[(tails["table"] == table) & (tails["quantile"] == FIT_QUANTILE)].iloc[0]
        if math.isnan(fit["rate"]) or math.isinf(fit["threshold"]):
            continue
        start, end = float(fit["threshold"]), float(part["time"].max())
        at_start = float(part[part["time"] <= start]["survival"].iloc[-1])
        hazard = fit["rate"] / 100
        fitted = np.linspace(start, end, 50)
        ax.plot(fitted, at_start * np.exp(-hazard * (fitted - start)), color=colour, linewidth=2.2, alpha=0.6)
        back = np.linspace(0, start, 50)
        ax.plot(back, at_start * np.exp(-hazard * (back - start)), color=colour, linewidth=1.2, linestyle="--")
    ax.set_yscale("log")
    ax.set_xlim(left=0)
    ax.set_ylim(top=1.5)  # the extrapolation back to 0 would climb past 1, which no survival curve does
    shared.label_axes(ax, "phase-2 actions", "hands still playing (share, log scale)",
                      f"Exponential fitted beyond the {FIT_QUANTILE:.0%} point (solid), extrapolated (dashed)")
    ax.legend(fontsize=shared.FONT["tick"] - 1)
    for i, (_, part) in enumerate(tails.groupby("table", sort=True)):
        part = part[part["rate"].notna()]
        offset = shared.side_offset(i, tails["table"].nunique(), 1.2)
        rates.errorbar(100 * part["quantile"] + offset, part["rate"],
                       yerr=shared.error_bars(part, "rate", "low", "high"), fmt="o-", capsize=3, color=table_colour(i),
                       label=shared.short_label(str(part["label"].iloc[0]), 60) if len(part) else None)
    rates.set_ylim(bottom=0)
    shared.label_axes(rates, "fit starts where this % of hands has ended (0: the whole curve)",
                      "decay rate (per 100 phase-2 actions; bars: 95% interval)", "Decay rate by where the fit starts",
                      legend=bool(tails["rate"].notna().any()) if len(tails) else False)
    title = "Where an exponential tail fits"
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, "share, log scale", names, "95% interval", ("y log", "y from 0"))


def counterfactual_figure(counterfactual: Counterfactual) -> Figure:
    """For the cut-off hands followed on (by the run's own continuation or a second run's pairs): how many more
    actions the ones that ended took (fewer, drawn left of zero, only where a pairing's check is partial), and per
    table and reason how many ended with the same result, a changed one, never ended, or left the first run's path."""
    figure, (ax, bars) = shared.new_figure(14.0, 5.8, cols=2)
    extra = counterfactual.extra
    later = "played on" if counterfactual.continued else "in the second run"
    names = []
    for reason, part in extra.groupby("reason", sort=True):
        total = int(part["hands"].sum())
        ordered = part.sort_values("extra")
        names.append(f"n = {total:,} that ended")
        ax.step(ordered["extra"], 100 * ordered["hands"].cumsum() / total, where="post",
                marker="o" if len(ordered) <= FEW_POINTS else None, markersize=4,
                color=REASON_COLOURS.get(reason), label=f"cut off by {reason} ({names[-1]})")
    if extra.empty:
        ax.text(0.5, 0.5, f"no cut-off hand ended {later}", ha="center", va="center", transform=ax.transAxes)
        names.append(f"no cut-off hand ended {later}")
    fewest = float(extra["extra"].min()) if not extra.empty else 0.0
    if fewest < 0:  # a pairing whose check is partial: shown as it is, left of a line at zero
        ax.axvline(0, color="black", linewidth=1.0)
        ax.set_xlim(left=fewest - 0.05 * (float(extra["extra"].max()) - fewest))
    else:
        ax.set_xlim(left=0)
    ax.set_ylim(0, 102)
    shared.label_axes(ax, f"more phase-2 actions the hand took to end {later}" + (" (below 0: fewer)" if fewest < 0
                                                                                   else ""),
                      "cut-off hands that ended (cumulative %)", "How much longer the cut-off hands ran",
                      legend=not extra.empty)
    outcomes = counterfactual.outcomes
    names += [f"n = {cut:,}" for cut in outcomes["cut"]]
    labels = [shared.short_label(f"{label}: {reason} (n\u00a0=\u00a0{cut:,})", 34) for label, reason, cut in
              zip(outcomes["label"], outcomes["reason"], outcomes["cut"], strict=True)]
    paired = outcomes["paired"].clip(lower=1)
    same = outcomes["ended"] - outcomes["scores_changed"].clip(upper=outcomes["ended"])
    changed = outcomes["ended"] - same
    left = np.zeros(len(outcomes))
    parts = [(same, "ended, same result", "#2e8b57"), (changed, "ended, result changed", "#e07b00"),
             (outcomes["never_ended"], "never ended", "#b03a48")]
    if not counterfactual.continued:
        parts.append((outcomes["diverged"], "left the first run's path" + (" (at least)" if counterfactual.partial
                                                                            else ""), "#8c8c8c"))
    rows = np.arange(len(labels))
    for k, (values, name, colour) in enumerate(parts):
        share = 100 * values.to_numpy() / paired.to_numpy()
        bars.barh(rows, share, left=left, color=colour, label=name)
        zero = share == 0  # a bar of width zero draws nothing: it gets a mark of its own, spread down the row
        shared.zero_marks(bars, rows[zero] + shared.side_offset(k, len(parts), 0.8 / len(parts)), colour,
                          horizontal=True, at=left[zero])
        left += share
    bars.set_yticks(rows, labels, fontsize=shared.FONT["tick"] - 1)
    bars.invert_yaxis()
    bars.set_xlim(0, 100)
    whose, what = (("cut-off hands", "playing on") if counterfactual.continued else
                   ("paired cut-off hands", "the second run"))
    shared.label_axes(bars, f"% of the table's {whose}", "", f"What {what} made of them")
    bars.legend(fontsize=shared.FONT["tick"] - 1, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2,
                frameon=False)  # below the bars, where it covers none of them
    first, second = options_text(counterfactual.first_options), options_text(counterfactual.second_options)
    title = (f"Cut-off hands ({first}) played on past the cut under {second}" if counterfactual.continued else
             f"Cut-off hands of the first run ({first}) paired with the second run's under {second}")
    figure.suptitle(title, fontsize=shared.FONT["title"])
    return shared.declare(figure, title, "cumulative %", names, None, ("y from 0", "x from 0"))


def agent_effect_figure(counterfactual: Counterfactual) -> Figure:
    """Each agent's mean score per seat-hand both ways and the paired difference, with 95% intervals."""
    agents = counterfactual.agents
    counts = [f"n = {n:,}" for n in agents["seat_hands"]]
    labels = [f"{seats} seats: {agent} ({n})" for seats, agent, n in
              zip(agents["seats"], agents["agent"], counts, strict=True)]
    figure, (ax,) = shared.new_figure(10.0, max(3.5, 0.55 * len(labels) + 2.2))
    positions = np.arange(len(labels))
    first, second = counterfactual.names
    ax.errorbar(agents["diff"], positions, xerr=agents["diff_ci95"], fmt="o", capsize=4, color="#1b6ca8",
                label=f"{second} minus {first} (95% interval over deal groups)")
    ax.axvline(0, color="black", linewidth=1.0)
    ax.set_yticks(positions, labels, fontsize=shared.FONT["tick"])
    ax.invert_yaxis()
    span = float(np.nanmax(np.abs(agents["diff"]) + agents["diff_ci95"].fillna(0))) if len(agents) else 0.0
    ax.set_xlim(-max(span, 0.05) * 1.2, max(span, 0.05) * 1.2)
    title = "The cut-off rule's effect on each agent's mean score"
    shared.label_axes(ax, "change in mean score (points per seat-hand)", "", title)
    return shared.declare(figure, title, "points per seat-hand", counts, "95% interval", "x from 0")
