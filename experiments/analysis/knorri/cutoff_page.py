"""The Markdown page (and printed summary) of ``knorri-sim cutoffs``, and the figures it links, written to a folder.

``knorri-sim report`` on a Knorri run includes the same section (``section_lines``) and figures (``FIGURES``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis.knorri import cutoff_figures
from experiments.analysis.knorri.counterfactual import HOW_TO_CHECK, PATH_CHECKS, Counterfactual
from experiments.analysis.knorri.cutoffs import ANY, FIT_QUANTILE, CutoffAnalysis, analyse, options_text
from experiments.analysis.ladder import INTERVAL_SIGMAS
from experiments.analysis.reports import (
    INTERVAL_SENTENCE,
    CutoffReport,
    markdown_table,
    mean_intervals,
    percent_intervals,
    register_cutoff_analysis,
)

PAGE = "cutoffs.md"
TAIL_METHOD = (
    "The exponential tail is lifelines' `ExponentialFitter` (maximum likelihood, cut-off hands censored) of how "
    "far hands outlast a threshold, over the hands still playing there: the exponential is memoryless, so that is "
    "its fit to the tail. It was chosen over a straight line through the Kaplan-Meier log-survival because it "
    "weighs censored hands properly and gives a likelihood interval, where neighbouring Kaplan-Meier points are "
    "correlated and a regression's interval would be too narrow. Where the rate stays put as the threshold moves "
    "out, the tail is exponential; where it drifts, it is not.")


@dataclass(frozen=True)
class CutoffFigure:
    """One figure of the page: its file stem, caption, how to draw it, and which following of the cut-off hands it
    needs (``continuation``: the run's own, ``counterfactual``: a second run's; None: the run alone)."""

    name: str
    caption: str
    draw: Callable[[CutoffAnalysis], Figure]
    follows: str | None = None
    of_agents: bool = False  # drawn only where some table seated several agents (``several_agents``)

    def applies(self, analysis: CutoffAnalysis | None) -> bool:
        """Whether ``analysis`` has this figure (``None``: a run alone, as ``knorri-sim report`` has)."""
        if self.follows is None:
            return True
        cf = getattr(analysis, self.follows) if analysis is not None else None
        return cf is not None and not (self.of_agents and not several_agents(cf.agents))


def several_agents(agents: pd.DataFrame) -> bool:
    """Whether some seat count's table seated more than one agent: with one, every hand's scores sum to zero among
    the same agent's seats, so its change in mean score is zero by construction and a figure of it says nothing."""
    return not agents.empty and int(agents.groupby("seats")["agent"].nunique().max()) > 1


FIGURES: tuple[CutoffFigure, ...] = (
    CutoffFigure("cutoff_shares", "Share of each table's hands cut off, by reason, with 95% intervals over deal groups",
                 lambda a: cutoff_figures.shares_figure(a.shares)),
    CutoffFigure("cutoff_anatomy", "The loops of repeat-ended hands: cycle length, choices, log2 paths, seats",
                 lambda a: cutoff_figures.anatomy_figure(a.anatomy)),
    CutoffFigure("cutoff_survival", "Phase-2 length per table as a Kaplan-Meier curve, cut-offs censored, 95% bands",
                 lambda a: cutoff_figures.survival_figure(a.survival)),
    CutoffFigure("cutoff_tail", "Where an exponential tail fits: log survival with the fit, decay rate by threshold",
                 lambda a: cutoff_figures.tail_figure(a.survival)),
    CutoffFigure("cutoff_continuation", "The cut-off hands played on past the cut by the run's own continuation",
                 lambda a: cutoff_figures.counterfactual_figure(a.continuation), follows="continuation"),
    CutoffFigure("cutoff_continuation_agent_effect",
                 "Each agent's change in mean score with the cut-off hands played on",
                 lambda a: cutoff_figures.agent_effect_figure(a.continuation), follows="continuation", of_agents=True),
    CutoffFigure("cutoff_counterfactual", "The cut-off hands paired with the second run's, under its options",
                 lambda a: cutoff_figures.counterfactual_figure(a.counterfactual), follows="counterfactual"),
    CutoffFigure("cutoff_agent_effect", "Each agent's change in mean score under the second run's options",
                 lambda a: cutoff_figures.agent_effect_figure(a.counterfactual), follows="counterfactual",
                 of_agents=True),
)


def write_page(analysis: CutoffAnalysis, out: Path) -> list[Path]:
    """Draw every figure that applies into ``out`` as PNG and write ``cutoffs.md``; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in FIGURES:
        if spec.applies(analysis):
            path = out / f"{spec.name}.png"
            spec.draw(analysis).savefig(path)
            written.append(path)
    page = out / PAGE
    page.write_text(page_markdown(analysis))
    written.append(page)
    return written


def page_markdown(analysis: CutoffAnalysis) -> str:
    """The whole page: the run, its cut-off section and the figures linked."""
    run = analysis.run
    lines = [*notice_lines(analysis), f"# Cut-offs of {run.title} run {run.manifest.get('run_id', '?')}", "",
             *run_lines(analysis), "",
             *section_lines(analysis, level=2), "## Figures", ""]
    lines += [f"- [{spec.name}.png]({spec.name}.png): {spec.caption}" for spec in FIGURES if spec.applies(analysis)]
    return "\n".join(lines) + "\n"


def notice_lines(analysis: CutoffAnalysis) -> list[str]:
    """The page's first line when its pairing with a second run cannot tell every hand that left the first run's
    path (``PARTIAL_CHECKS``): what is missing and how to make the check whole; none otherwise."""
    cf = analysis.counterfactual
    if cf is None or not cf.partial:
        return []
    return [f"> **The pairing's path check is partial.** Its check is {PATH_CHECKS[cf.check]}; a paired hand that "
            f"left the first run's path before the cut may then count as ended or changed. To check every hand, "
            f"{HOW_TO_CHECK}.", ""]


def run_lines(analysis: CutoffAnalysis) -> list[str]:
    """What the run is: hands read, the game's cut-off reasons, its options."""
    run = analysis.run
    hands = int(analysis.shares.drop_duplicates("table")["hands"].sum())
    state = "complete" if run.complete else f"PARTIAL: {len(run.paths)} of {run.chunks_total} chunks read"
    return [f"- Hands: {hands:,} ({state}), folder `{run.folder}`; options: {options_text(run.options)}.",
            f"- Cut-offs (the game's own list): {', '.join(run.cut_offs)}; a cut-off hand ends with the scores the "
            "rules give it, and counts as censored in the survival curves.",
            INTERVAL_SENTENCE]


def section_lines(analysis: CutoffAnalysis, level: int = 2) -> list[str]:
    """The cut-off section (shares, anatomy, survival, the continuation, the counterfactual) with headings at
    ``level``."""
    head = "#" * level
    lines = [f"{head} Cut-off shares by table", "", markdown_table(shares_table(analysis.shares)), ""]
    lines += [f"{head} Loop anatomy", "", *anatomy_lines(analysis), ""]
    lines += [f"{head} Hand length as a survival curve", "", *survival_lines(analysis), ""]
    if analysis.continuation is not None:
        lines += [f"{head} The cut-off hands played on", "", *counterfactual_lines(analysis.continuation), ""]
    if analysis.counterfactual is not None:
        lines += [f"{head} Counterfactual", "", *counterfactual_lines(analysis.counterfactual), ""]
    return lines


def shares_table(shares: pd.DataFrame) -> pd.DataFrame:
    """One row per table: hands and each reason's share (%) with its interval."""
    wide = shares.drop_duplicates("table")[["seats", "lineup", "hands"]].reset_index(drop=True)
    for reason in shares["reason"].unique():
        part = shares[shares["reason"] == reason].reset_index(drop=True)
        wide[f"{reason} %" if reason != ANY else "any cut-off %"] = percent_intervals(part, "share", "low", "high")
    return wide


def anatomy_lines(analysis: CutoffAnalysis) -> list[str]:
    """The loops in numbers: per table, and the columns' consistency; one line for a run without them."""
    anatomy = analysis.anatomy
    if anatomy.lengths.empty:
        return ["No hand ended by a repeat."]
    if not anatomy.present:
        per = anatomy.lengths.groupby("label", sort=False).apply(_top_length, include_groups=False)
        return ["This run has no loop-anatomy columns (cycle_start, cycle_choices, cycle_log2_paths, cycle_seats: "
                "made before they existed), so only cycle lengths are shown: " + "; ".join(per) + "."]
    summary = anatomy.summary
    shown = pd.DataFrame({
        "table": summary["label"], "repeats": summary["repeats"],
        "median cycle length": summary["length_median"], "median choices": summary["choices_median"],
        "fewest choices": summary["choices_min"],
        "log2 paths: median (10th–90th pct)": [f"{m:.1f} ({lo:.1f}–{hi:.1f})" for m, lo, hi in
                                               zip(summary["paths_median"], summary["paths_p10"], summary["paths_p90"],
                                                   strict=True)],
        "chance of going round again at the median": [f"1 in {1 / p:,.0f}" for p in summary["again_median"]],
        "seats acting in the cycle (mean)": [f"{m:.2f}" for m in summary["seats_mean"]]})
    broken = {name: count for name, count in anatomy.violations.items() if count}
    checks = ("every repeat hand keeps the columns' rules (cycle_start + cycle_length = phase2_actions, "
              "cycle_choices >= 1, cycle_log2_paths >= cycle_choices, null off repeats)" if not broken else
              "RULES BROKEN: " + ", ".join(f"{name}: {count:,} hands" for name, count in broken.items()))
    seats = anatomy.seats.assign(text=[f"{100 * s:.1f}%" for s in anatomy.seats["share"]])
    wide = seats.pivot(index=["label", "repeats"], columns="seat", values="text").fillna("")
    wide.columns = [f"seat {seat}" for seat in wide.columns]
    return [markdown_table(shown), "", f"Consistency: {checks}.", "",
            "Which seats loop (share of the table's repeats in which the seat acted inside the cycle):", "",
            markdown_table(wide.reset_index().rename(columns={"label": "table"}))]


def _top_length(part: pd.DataFrame) -> str:
    top = part.sort_values("hands", ascending=False).iloc[0]
    return (f"{part.name}: {int(part['hands'].sum()):,} repeats, most often {int(top['value'])} actions, "
            f"longest {int(part['value'].max())}")


def survival_lines(analysis: CutoffAnalysis) -> list[str]:
    """Medians with intervals and the tail's decay rates per table, and how the tail was fitted."""
    survival = analysis.survival
    rows = []
    for _, median in survival.medians.iterrows():
        tails = survival.tails[survival.tails["table"] == median["table"]].set_index("quantile")
        fit = tails.loc[FIT_QUANTILE]
        rows.append({"table": median["label"], "hands": int(median["hands"]), "censored": int(median["cut off"]),
                     "median length (95% CI)": f"{_number(median['median'])} ({_number(median['median_low'])}–"
                                               f"{_number(median['median_high'])})",
                     f"tail from ({FIT_QUANTILE:.0%} ended)": _number(fit["threshold"]),
                     "decay per 100 actions (95% CI)": _rate(fit),
                     "rate by start (0/50/75/90/97% ended)": " / ".join(
                         "n/a" if math.isnan(r) else f"{r:.2f}" for r in tails["rate"])})
    cap = f" Hands run to the {survival.cap:,}-action cap at most." if survival.cap else ""
    return [markdown_table(pd.DataFrame(rows)), "", "Kaplan-Meier (lifelines) of phase-2 actions per table, "
            "cut-off hands censored at their length; its 95% band is lifelines' (exponential Greenwood), not widened "
            "for duplicate deals." + cap, "", TAIL_METHOD]


def _number(value: float) -> str:
    return "never" if math.isinf(value) else "n/a" if math.isnan(value) else f"{value:,.0f}"


def _rate(fit: pd.Series) -> str:
    if math.isnan(fit["rate"]):
        return "n/a (too few hands end there)"
    return f"{fit['rate']:.3f} ({fit['low']:.3f}–{fit['high']:.3f})"


def counterfactual_lines(cf: Counterfactual) -> list[str]:
    """The cut-off hands followed on (by the run's continuation or a second run's pairs), the agents' mean scores
    and ratings both ways."""
    first, second = options_text(cf.first_options), options_text(cf.second_options)
    if cf.continued:
        lines = [f"A continuation (--continue-past-cutoff) played each hand the rules ({first}) cut off on from the "
                 f"cut under {second}, the same hand with the same agents and their memories: its row keeps the "
                 "cut-off result, its `continued_*` columns where it went.", ""]
    else:
        lines = [f"The first run ({first}) paired by table, seating, seed and first seat with the second ({second}): "
                 f"{cf.paired:,} of its {cf.hands:,} hands paired. Path check: {PATH_CHECKS[cf.check]}. A paired hand "
                 "that left the first run's path before its cut is another hand: it counts as diverged, not as ended, "
                 "never ended or changed.", ""]
    if cf.outcomes.empty:
        lines += ["The run cut no hand off." if cf.continued else "The first run cut no hand off.", ""]
    else:
        lines += [markdown_table(outcomes_table(cf)), ""]
    if not cf.agents.empty:
        agents = cf.agents
        names = cf.names
        shown = pd.DataFrame({"seats": agents["seats"], "agent": agents["agent"], "seat-hands": agents["seat_hands"],
                              names[0]: mean_intervals(agents, "first", "first_ci95"),
                              names[1]: mean_intervals(agents, "second", "second_ci95"),
                              "change": mean_intervals(agents, "diff", "diff_ci95")})
        over = ("every hand, the cut-off ones played on" if cf.continued else
                "every paired hand, diverged ones included: the second run is what its rules give")
        lines += [f"Mean score per seat-hand over {over} (points, 95% interval over deal groups; the change is "
                  "paired):", "", markdown_table(shown), ""]
    lines += ratings_lines(cf)
    return lines


def outcomes_table(cf: Counterfactual) -> pd.DataFrame:
    """Per table and reason: the cut-off hands, (paired and diverged,) ended, never ended, results changed and how
    many more actions the ones that ended took (negative ones shown as they are)."""
    out = cf.outcomes
    kept = out["paired"] - out["diverged"]
    ended = [f"{100 * e / k:.1f}%" if k else "n/a" for e, k in zip(out["ended"], kept, strict=True)]
    shown = pd.DataFrame({"table": out["label"], "cut off by": out["reason"], "hands": out["cut"]})
    if not cf.continued:
        shown["paired"] = out["paired"]
        shown["diverged" + (" (at least)" if cf.partial else "")] = [
            f"{d:,} ({100 * d / p:.1f}%)" if p else "n/a" for d, p in zip(out["diverged"], out["paired"], strict=True)]
    shown["ended" if cf.continued else "ended (% of those on the path)"] = [
        f"{e:,} ({s})" for e, s in zip(out["ended"], ended, strict=True)]
    shown["never ended" + (" (reached the continuation's cap)" if cf.continued else "")] = out["never_ended"]
    shown["loser changed"] = out["loser_changed"]
    shown["any score changed"] = out["scores_changed"]
    shown["more actions: fewest / median / 90th pct / most"] = [
        "n/a" if pd.isna(m) else f"{lo:,.0f} / {m:,.0f} / {p:,.0f} / {x:,.0f}"
        for lo, m, p, x in zip(out["extra_min"], out["extra_median"], out["extra_p90"], out["extra_max"], strict=True)]
    return shown


def ratings_lines(cf: Counterfactual) -> list[str]:
    """Both sides' openskill ratings side by side and whether the ranking changed."""
    if not cf.ratings:
        return ["No two different agents met at a table: no ratings to compare."]
    names = cf.names
    a, b = (cf.ratings[key].set_index("agent") for key in ("first", "second"))
    shown = pd.DataFrame({"agent": a.index,
                          names[0]: [_rating(a, name) for name in a.index],
                          names[1]: [_rating(b, name) for name in a.index]})
    order = [" > ".join(frame.dropna(subset=["rating"]).index) for frame in (a, b)]
    both = "both ways" if cf.continued else "in both runs"
    verdict = (f"the ranking is the same {both}: " + order[0] if cf.ranking_changed is False else
               f"the ranking CHANGES: {order[0]} {_side(names[0])}, {order[1]} {_side(names[1])}")
    return [f"openskill Plackett-Luce ratings over every hand (mu ± {INTERVAL_SIGMAS:g} sigma):", "",
            markdown_table(shown), "", f"Ratings: {verdict}."]


def _side(name: str) -> str:
    return f"in the {name}" if name.endswith("run") else name


def _rating(frame: pd.DataFrame, name: str) -> str:
    row = frame.loc[name]
    return "n/a" if math.isnan(row["rating"]) else f"{row['rating']:.2f} ± {INTERVAL_SIGMAS * row['sigma']:.2f}"


def printed_summary(analysis: CutoffAnalysis) -> str:
    """What the command prints: the page without its figure links."""
    text = page_markdown(analysis)
    return text.split("\n## Figures")[0].rstrip() + "\n"


register_cutoff_analysis("knorri", CutoffReport(analyse, write_page, printed_summary))
