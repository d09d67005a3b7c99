"""The report of a run: every figure as a PNG and a Markdown summary of the key numbers, in one folder.

``knorri-sim report RUN_DIR`` calls ``write_report``; the notebooks draw the
same figures through ``FIGURES`` one at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis import figures, ladder, stats
from experiments.analysis.load import CUTOFF_REASONS, PHASE2_CAP, Run
from sim.games import plural

RATING_SENTENCE = ("openskill Plackett-Luce rating from whole finishing orders (prior 25 ± 8.3; "
                   "the interval is mu ± 2 sigma, not widened for duplicate deals)")


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: its file stem, what it shows, and how to draw it from a run."""

    name: str
    caption: str
    draw: Callable[[Run], Figure]
    compares_agents: bool = False  # drawn only when two different agents met at a table (else it would be empty)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("cutoff_rates", "Hands ended by a repeat or by the cap, per table, with 95% CIs",
               lambda run: figures.cutoff_rates_figure(stats.cutoff_rates(run))),
    FigureSpec("phase2_length", "Phase-2 actions per hand by seat count, the 1,500 cap marked",
               lambda run: figures.phase2_length_figure(run.hands)),
    FigureSpec("cycle_lengths", "Cycle lengths of hands ended by a repeat",
               lambda run: figures.cycle_length_figure(stats.cycle_length_counts(run))),
    FigureSpec("score_distribution", "Score per seat-hand by seat count",
               lambda run: figures.score_distribution_figure(stats.score_distribution(run))),
    FigureSpec("seat_position", "Mean score and loss rate by turn position (first-turn advantage)",
               lambda run: figures.seat_position_figure(stats.position_scores(run))),
    FigureSpec("agent_scores", "Score per seat-hand by agent and seat count",
               lambda run: figures.agent_score_distribution_figure(
                   stats.score_distribution(run, ("n_seats", "agent")))),
    FigureSpec("ladder_means", "Mean score per hand of each agent with duplicate-deal 95% CIs",
               lambda run: figures.ladder_means_figure(stats.agent_scores(run, per_table=True)),
               compares_agents=True),
    FigureSpec("pairwise", "Head to head: how often each agent finished ahead of each other",
               lambda run: figures.pairwise_figure(ladder.pairwise_results(run), run.agents),
               compares_agents=True),
    FigureSpec("ratings", "openskill Plackett-Luce ratings from whole finishing orders, mu ± 2 sigma",
               lambda run: figures.ratings_figure(ladder.ratings(run), run.row),
               compares_agents=True),
)


def write_report(run: Run, out: Path) -> list[Path]:
    """Draw every figure into ``out`` as PNG and write ``report.md``; return the files written."""
    return write_report_files(run, out, FIGURES, summary_markdown(run))


def write_report_files(run: Any, out: Path, specs: Sequence[FigureSpec], summary: str) -> list[Path]:
    """Draw each figure of ``specs`` from ``run`` into ``out`` as PNG, then write ``summary`` as ``report.md``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in drawn_figures(specs, run):
        path = out / f"{spec.name}.png"
        spec.draw(run).savefig(path)
        written.append(path)
    summary_path = out / "report.md"
    summary_path.write_text(summary)
    written.append(summary_path)
    return written


def run_names(manifests: Sequence[dict[str, Any]]) -> str:
    """The runs a report covers, as ``run_id (config name)``, comma separated."""
    return ", ".join(f"{m.get('run_id', '?')} ({m['config'].get('name', 'experiment')})" for m in manifests)


def read_state(run: Any) -> str:
    """``complete``, or how many of the run's chunks a partial report read."""
    return "complete" if run.complete else f"PARTIAL: {run.chunks_read} of {run.chunks_total} chunks read"


def agents_met(run: Any) -> bool:
    """Whether two different agents ever sat at one table (else there is no ladder, head to head or rating)."""
    return not ladder.pairwise_results(run).empty


def drawn_figures(specs: Sequence[FigureSpec], run: Any) -> list[FigureSpec]:
    """The figures a run gets: those comparing agents only when two different agents met."""
    return [spec for spec in specs if not spec.compares_agents or agents_met(run)]


def figure_lines(specs: Sequence[FigureSpec], run: Any) -> list[str]:
    """The summary's closing section: a link to each figure drawn with its caption, and which were not and why."""
    drawn = drawn_figures(specs, run)
    lines = ["## Figures", "", *(f"- [{spec.name}.png]({spec.name}.png): {spec.caption}" for spec in drawn)]
    left_out = [spec.name for spec in specs if spec not in drawn]
    if left_out:
        lines.append(f"- Not drawn: {', '.join(left_out)}: no two different agents met at a table, so there is no "
                     "one to compare (seat different agents together, e.g. --agents \"greedy;random\").")
    return lines


def head_to_head_shares(pairwise: pd.DataFrame) -> list[str]:
    """Each pair's share of wins with its 95% Wilson interval, as percentages (``57.1% (54.8–59.4)``)."""
    return [f"{100 * w:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"
            for w, lo, hi in zip(pairwise["win_share"], pairwise["low"], pairwise["high"], strict=True)]


def ratings_table(rated: pd.DataFrame, row: str = "row") -> pd.DataFrame:
    """openskill ratings as the summaries show them: agent, rows rated, mu ± 2 sigma and the interval."""
    shown = rated.assign(**{
        f"rated {plural(row)}": rated["rated"],
        "rating (mu ± 2 sigma)": [_rating_text(mu, sd) for mu, sd in zip(rated["rating"], rated["sigma"],
                                                                         strict=True)],
        "interval": [_interval_text(lo, hi) for lo, hi in zip(rated["low"], rated["high"], strict=True)]})
    return shown[["agent", f"rated {plural(row)}", "rating (mu ± 2 sigma)", "interval"]]


def _rating_text(mu: float, sigma: float) -> str:
    return "n/a" if math.isnan(mu) else f"{mu:.2f} ± {ladder.INTERVAL_SIGMAS * sigma:.2f}"


def _interval_text(low: float, high: float) -> str:
    return "n/a" if math.isnan(low) else f"{low:.2f} to {high:.2f}"


def summary_markdown(run: Run) -> str:
    """The key numbers of the run as Markdown, with the figures linked beside it."""
    manifest = run.manifest
    hands = len(run.hands)
    lines = [f"# Knorri run {run_names([manifest])}", ""]
    state = read_state(run)
    lines += [f"- Hands: {hands:,} ({state}); master seed {manifest.get('master_seed')}; "
              f"{manifest['config'].get('match_hands', 1)} hand(s) per match.",
              "- Tables: " + "; ".join(run.tables["label"]) + ".",
              f"- Zero sum: {_zero_sum(run)}.",
              "- Every interval is a 95% one over deal groups (duplicate deals are not independent).", ""]
    lines += ["## Cut-offs", "", _cutoff_table(run), "", "Phase-2 length (plays and pick-ups per hand):", "",
              markdown_table(stats.phase2_length_summary(run).rename(columns={"at_cap": f"at the {PHASE2_CAP:,} cap"})),
              "", _cycle_sentence(run), "", "Lineups that loop most (repeat or cap):", "",
              markdown_table(_with_interval(stats.loopiest_lineups(run), "share", "cut-off share")), ""]
    positions = stats.position_scores(run)
    lines += ["## Scores by seat position", "", "Position 0 has the first turn of phase 1.", "",
              markdown_table(_score_columns(positions, ["seats", "position"])), ""]
    lines += ["## Bot ladder", "", "Mean score per hand (points) per agent at each table:", "",
              markdown_table(_score_columns(stats.agent_scores(run, per_table=True), ["label", "agent"])), ""]
    pairwise = ladder.pairwise_results(run)
    if not pairwise.empty:
        shown = pairwise.assign(**{"finished ahead": head_to_head_shares(pairwise)})
        lines += ["Head to head (seat pairs of two different agents in one hand; a tie counts half):", "",
                  markdown_table(shown[["agent", "opponent", "games", "finished ahead"]]), ""]
        lines += [f"{RATING_SENTENCE} (each hand's order of going out):", "",
                  markdown_table(ratings_table(ladder.ratings(run), run.row)), ""]
    else:
        lines += ["No two different agents met at a table: no head-to-head results or ratings.", ""]
    return "\n".join(lines + figure_lines(FIGURES, run)) + "\n"


def _zero_sum(run: Run) -> str:
    bad = stats.zero_sum_violations(run)
    return f"all {len(run.hands):,} hands sum to zero" if bad == 0 else f"{bad:,} hands do NOT sum to zero"


def _cutoff_table(run: Run) -> str:
    rates = stats.cutoff_rates(run)
    wide = rates.drop_duplicates("table")[["seats", "lineup", "hands"]].reset_index(drop=True)
    for reason in CUTOFF_REASONS:
        part = rates[rates["reason"] == reason].reset_index(drop=True)
        wide[f"{reason} %"] = [percent_interval(s, lo, hi)
                               for s, lo, hi in zip(part["share"], part["low"], part["high"], strict=True)]
    return markdown_table(wide)


def _cycle_sentence(run: Run) -> str:
    counts = stats.cycle_length_counts(run)
    if counts.empty:
        return "No hand ended by a repeat."
    parts = []
    for seats, part in counts.groupby("seats"):
        top = part.sort_values("hands", ascending=False).iloc[0]
        parts.append(f"{seats} seats: {int(part['hands'].sum()):,} repeats, most often a cycle of "
                     f"{int(top['cycle_length'])} actions ({100 * top['hands'] / part['hands'].sum():.0f}%), "
                     f"longest {int(part['cycle_length'].max())}")
    return "Cycle lengths of repeats: " + "; ".join(parts) + "."


def _score_columns(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    shown = frame[keys + ["seat_hands"]].copy()
    shown["mean score"] = [f"{figures.signed(m, 3)} ± {c:.3f}" for m, c in zip(frame["mean"], frame["ci95"],
                                                                                  strict=True)]
    shown["loss rate"] = [percent_interval(s, lo, hi) for s, lo, hi in zip(frame["loss_rate"], frame["loss_low"],
                                                                        frame["loss_high"], strict=True)]
    return shown


def _with_interval(frame: pd.DataFrame, column: str, title: str) -> pd.DataFrame:
    shown = frame.drop(columns=[column, "low", "high"]).copy()
    shown[title] = [percent_interval(s, lo, hi) for s, lo, hi in zip(frame[column], frame["low"], frame["high"],
                                                                strict=True)]
    return shown


def percent_interval(share: float, low: float, high: float) -> str:
    """A share and its interval as percentages: ``12.34 (11.00–13.70)``, or ``n/a``."""
    if math.isnan(share):
        return "n/a"
    return f"{100 * share:.2f} ({100 * low:.2f}–{100 * high:.2f})"


def markdown_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table (no extra dependency): numbers with thousands separators."""
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:,.1f}" if not value.is_integer() else f"{int(value):,}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"
    body = ["| " + " | ".join(cell(v.item() if hasattr(v, "item") else v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])
