"""The report of a Knorri run: every figure as a PNG and a Markdown summary of the key numbers, in one folder.

``knorri-sim report RUN_DIR`` writes it through the report registry
(``experiments.analysis.reports``, where this module registers it); the
notebooks draw the same figures through ``FIGURES`` one at a time: those
declared on their drawing functions in ``experiments.analysis.knorri.figures``
(name, caption, statistic), then the shared ladder figures and the cut-off
page's.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.analysis import ladder, reports
from experiments.analysis.knorri import cutoff_page, cutoffs, figures, stats
from experiments.analysis.knorri.load import Run
from experiments.analysis.knorri.stream import stream_run
from experiments.analysis.reports import FigureSpec, markdown_table, percent_intervals
from experiments.replay.examples import end_reason_examples
from sim.contract import plural

FIGURES: tuple[FigureSpec, ...] = (
    *figures.REPORT_FIGURES.specs,
    *reports.ladder_figure_specs("hand", lambda run: stats.agent_scores(run, per_table=True), "finished ahead of"),
    *(FigureSpec(spec.name, spec.caption, spec.draw, lambda run: cutoff_analysis(run))
      for spec in cutoff_page.FIGURES if spec.applies(None)),  # knorri-sim cutoffs' figures of one run
)


def cutoff_analysis(run: Run) -> cutoffs.CutoffAnalysis:
    """``knorri-sim cutoffs``' statistics of the run (shares, loop anatomy, survival), computed once per run."""
    return run.memo("cutoffs", lambda: cutoffs.analyse(run.folder))


def write_report(run: Run, out: Path) -> list[Path]:
    """Draw every figure into ``out`` as PNG and write ``report.md``; return the files written."""
    return REPORT.write(run, out)


def summary_markdown(run: Run) -> str:
    """The key numbers of the run as Markdown, with the figures linked beside it."""
    manifest = run.manifest
    hands = run.row_count
    lines = [f"# Knorri run {reports.run_names([manifest])}", ""]
    state = reports.read_state(run)
    match_hands = int(manifest["config"].get("match_hands", 1))
    lines += [f"- Hands: {hands:,} ({state}); master seed {manifest.get('master_seed')}; "
              f"{match_hands} {plural('hand', match_hands)} per match.",
              "- Tables: " + "; ".join(run.tables["label"]) + ".",
              f"- Zero sum: {_zero_sum(run)}.",
              reports.INTERVAL_SENTENCE, ""]
    lines += ["## Cut-offs", "", *cutoff_page.section_lines(cutoff_analysis(run), level=3),
              "### Phase-2 length and the loopiest lineups", "", "Phase-2 length (plays and pick-ups per hand):", "",
              markdown_table(stats.phase2_length_summary(run).rename(columns={"at_cap": f"at the {run.cap:,} cap"})),
              "", _cycle_sentence(run), "", "Lineups that loop most (repeat or cap):", "",
              markdown_table(_with_interval(stats.loopiest_lineups(run), "share", "cut-off share %")), ""]
    positions = stats.position_scores(run)
    lines += ["## Scores by seat position", "", "Position 0 has the first turn of phase 1.", "",
              markdown_table(_score_columns(positions, ["seats", "position"])), ""]
    lines += ["## Bot ladder", "", "Mean score per hand (points) per agent at each table:", "",
              markdown_table(_score_columns(stats.agent_scores(run, per_table=True), ["label", "agent"])), ""]
    pairwise = ladder.pairwise_results(run)
    if not pairwise.empty:
        shown = pairwise.assign(**{"finished ahead": reports.head_to_head_shares(pairwise)})
        lines += ["Head to head (seat pairs of two different agents in one hand; a tie counts half):", "",
                  markdown_table(shown[["agent", "opponent", "games", "finished ahead"]]), ""]
        lines += reports.ratings_lines(run, "each hand's order of going out")
    else:
        lines += ["No two different agents met at a table: no head-to-head results or ratings.", ""]
    return "\n".join(lines + reports.figure_lines(FIGURES, run)) + "\n"


def _zero_sum(run: Run) -> str:
    bad = stats.zero_sum_violations(run)
    return f"all {run.row_count:,} hands sum to zero" if bad == 0 else f"{bad:,} hands do NOT sum to zero"


def _cycle_sentence(run: Run) -> str:
    counts = stats.cycle_length_counts(run)
    if counts.empty:
        return "No hand ended by a repeat."
    parts = []
    for seats, part in counts.groupby("seats"):
        top = part.sort_values("hands", ascending=False).iloc[0]
        repeats = int(part["hands"].sum())
        parts.append(f"{seats} seats: {repeats:,} {plural('repeat', repeats)}, most often a cycle of "
                     f"{int(top['cycle_length'])} actions ({100 * top['hands'] / part['hands'].sum():.0f}%), "
                     f"longest {int(part['cycle_length'].max())}")
    return "Cycle lengths of repeats: " + "; ".join(parts) + "."


def _score_columns(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    shown = frame[keys + ["seat_hands"]].copy()
    shown["mean score"] = reports.mean_intervals(frame)
    shown["loss rate %"] = percent_intervals(frame, "loss_rate", "loss_low", "loss_high")
    return shown


def _with_interval(frame: pd.DataFrame, column: str, title: str) -> pd.DataFrame:
    shown = frame.drop(columns=[column, "low", "high"]).copy()
    shown[title] = percent_intervals(frame, column, "low", "high")
    return shown


# the report streams the run (its statistics alone, chunk by chunk): any size in the memory of one chunk
REPORT = reports.register_report("knorri", stream_run, FIGURES, summary_markdown,
                                 extras=end_reason_examples)  # a replay of one hand per end reason
