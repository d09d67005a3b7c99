"""A duel's two figures: the LLR at each look against the bounds that stop it, and the running mean difference with
its interval; ``knorri-sim report`` draws them for a duel's folder (``experiments.duel.reading``) beside the game's
own figures, and puts a section on the duel at the top of ``report.md``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from experiments.analysis.figures import FONT, declare, new_figure
from experiments.duel.play import looks
from experiments.duel.reading import DuelReading
from experiments.duel.sprt import H0, H1, Z95, running_moments, test_words
from sim.contract import plural

DUEL_FIGURES = (("duel_llr", "The duel's LLR at each look against the bounds that stop it"),
                ("duel_mean", "The running mean difference A - B with its 95% CI, and the edges the test weighs"))


def _look_llrs(reading: DuelReading) -> tuple[np.ndarray, np.ndarray]:
    """The deal counts the test looked at, up to the look that decided (or the last reached), and the LLR at each."""
    seen = [look for look in looks(reading.max_deals) if look <= min(len(reading.differences), reading.verdict.deals)]
    if not seen:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    n, mean, variance = (values[np.asarray(seen) - 1] for values in running_moments(reading.differences))
    return np.asarray(seen), reading.test.llr(n, mean, variance)


def llr_path_figure(reading: DuelReading) -> Figure:
    """The LLR at each look of the test against its two bounds, to the look that decided: a random walk with one
    step per deal, stopped where it first left the band (an infinite LLR, of differences all equal, drawn at the
    edge and marked)."""
    lower, upper = reading.test.bounds
    deals, llr = _look_llrs(reading)
    figure, (ax,) = new_figure(9, 5)
    finite = np.abs(llr[np.isfinite(llr)])
    edge = 1.5 * max(upper, float(finite.max()) if len(finite) else 0.0)  # where an infinite LLR is drawn
    shown = np.clip(llr, -edge, edge)
    rows = reading.verdict.deals * len(reading.design)
    n = f"n = {reading.verdict.deals:,} deals ({rows:,} {plural(reading.row)})"
    ax.plot(deals, shown, "o-", color="#1b6ca8", markersize=4, label=f"LLR at each look ({n})")
    for x, value in zip(deals, llr, strict=True):
        if math.isinf(value):
            ax.annotate("+inf" if value > 0 else "-inf", (x, math.copysign(edge, value)), textcoords="offset points",
                        xytext=(4, 4), fontsize=FONT["tick"])
    ax.axhline(upper, color="#2e8b57", linestyle="--", label=f"accept H1 at {upper:+.2f}")
    ax.axhline(lower, color="#b03a48", linestyle="--", label=f"accept H0 at {lower:+.2f}")
    ax.axhline(0, color="black", linewidth=0.8)
    top = max(1.5 * upper, float(np.abs(shown).max()) if len(shown) else 0.0) * 1.1
    ax.set_ylim(-top, top)
    ax.set_xlim(0, max(reading.verdict.deals, int(deals.max()) if len(deals) else 1) * 1.05)
    title = f"Duel: the test's LLR at each look ({reading.decision})"
    units = "log-likelihood ratio of H1 over H0"
    ax.set_xlabel(f"deals played (each deal is {len(reading.design)} {plural(reading.row)})", fontsize=FONT["label"])
    ax.set_ylabel(units, fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    ax.legend(fontsize=FONT["tick"], loc="best")
    return declare(figure, title, units, n, None, "y from 0")


def running_mean_figure(reading: DuelReading) -> Figure:
    """The mean paired difference A - B after each deal with its fixed-sample 95% CI (a guide after a sequential
    stop), the lines of the edges the test weighs, and the deal where it decided."""
    deals = min(len(reading.differences), reading.verdict.deals)
    figure, (ax,) = new_figure(9, 5)
    n_text = f"n = {deals:,} deals"
    if deals >= 2:
        n, mean, variance = (values[:deals] for values in running_moments(reading.differences[:deals]))
        half = Z95 * np.sqrt(variance / n)
        ax.fill_between(n[1:], (mean - half)[1:], (mean + half)[1:], color="#1b6ca8", alpha=0.2,
                        label="95% CI (fixed-sample; a guide after the test stops)")
        ax.plot(n, mean, color="#1b6ca8", label=f"mean difference A - B ({n_text})")
        low, high = float((mean - half)[1:].min()), float((mean + half)[1:].max())
    else:
        ax.text(0.5, 0.5, "fewer than 2 deals: no interval", ha="center", va="center", transform=ax.transAxes)
        low, high = 0.0, 0.0
    test = reading.test
    ax.axhline(test.delta1, color="#2e8b57", linestyle="--", label=f"H1's edge {test.delta1:g}")
    if test.delta0 != 0:
        ax.axhline(test.delta0, color="#b03a48", linestyle="--", label=f"H0's edge {test.delta0:g}")
    ax.axhline(0, color="black", linewidth=0.8)
    if reading.decision in (H0, H1):
        ax.axvline(reading.verdict.deals, color="#636363", linestyle=":", label=f"{reading.decision} decided here")
    span = max(high, test.delta1, 0.0) - min(low, test.delta0, 0.0)
    ax.set_ylim(min(low, test.delta0, 0.0) - 0.05 * span - 1e-9, max(high, test.delta1, 0.0) + 0.05 * span + 1e-9)
    a, b = reading.agents[:2]
    title = f"Duel: running mean difference, A = {a} minus B = {b}"
    units = f"points per {reading.row}"
    ax.set_xlabel("deals played", fontsize=FONT["label"])
    ax.set_ylabel(f"mean difference A - B ({units})", fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    ax.legend(fontsize=FONT["tick"], loc="best")
    return declare(figure, title, units, n_text, "95% CI", "y from 0")


def write_duel_report(reading: DuelReading, out: Path) -> list[Path]:
    """Draw the duel's figures into ``out`` and put a section on the duel at the top of its ``report.md`` (written
    by the game's report first); return the PNGs."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (name, _), draw in zip(DUEL_FIGURES, (llr_path_figure, running_mean_figure), strict=True):
        path = out / f"{name}.png"
        draw(reading).savefig(path)
        written.append(path)
    a, b, *others = reading.agents
    state = reading.state_line()
    section = ["## The duel", "", f"- {state[0].upper()}{state[1:]}.",
               f"- A = {a}, B = {b}, others {', '.join(dict.fromkeys(others))}; "
               f"{test_words(reading.test, reading.row)}"
               + ("." if reading.recorded else " (the defaults: this duel's manifest does not record its test)."),
               *(f"- [{name}.png]({name}.png): {caption}" for name, caption in DUEL_FIGURES)]
    summary = out / "report.md"
    lines = summary.read_text().splitlines() if summary.exists() else []
    top = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
    rest = lines[top:]
    summary.write_text("\n".join([*lines[:top], "", *section, *([""] if rest and rest[0] else []), *rest])
                       .rstrip("\n") + "\n")
    return written
