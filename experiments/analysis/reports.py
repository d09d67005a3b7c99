"""Which report a run gets, and what every report is made of: figures drawn as PNG and a Markdown summary.

A game's analysis registers its report once, at the end of its ``report`` module (``register_report``).
``knorri-sim report RUN_DIR`` asks ``experiments.analysis.generic.report_for`` for the report of the game the
run's manifest names: the game's own if one is registered, else the generic one. Each installed game's report
module is named by an entry point (``sim.plugins.REPORTS``, ``sim.plugins.CUTOFFS``) and imported the first time
a report is asked for. This module never imports the generic report, which is built from the pieces here:
``FigureSpec``, ``FigureBook`` (a game's figures, each declared on the function that draws it),
``write_report_files`` and the summary's shared lines and tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
from matplotlib.figure import Figure

from experiments.analysis import figures, ladder
from experiments.errors import UsageError
from sim import plugins
from sim.contract import plural

RATING_SENTENCE = ("openskill Plackett-Luce rating from whole finishing orders (prior 25 ± 8.3; "
                   "the interval is mu ± 2 sigma, not widened for duplicate deals)")
INTERVAL_SENTENCE = "- Every interval is a 95% one over deal groups (duplicate deals are not independent)."


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: its file stem, what it shows, and how to draw it from a run.

    ``figure`` draws it from ``statistic(run)`` (a table of ``stats``), or from the run itself when there is no
    statistic.
    """

    name: str
    caption: str
    figure: Callable[[Any], Figure]
    statistic: Callable[[Any], Any] | None = None
    compares_agents: bool = False  # drawn only when two different agents met at a table (else it would be empty)

    def draw(self, run: Any) -> Figure:
        """The figure of ``run``."""
        return self.figure(run if self.statistic is None else self.statistic(run))


DrawFunction = TypeVar("DrawFunction", bound=Callable[..., Figure])


class FigureBook:
    """A game's report figures in the order declared, each declared on the function that draws it.

    A game's figures module keeps one book and decorates each drawing function the report uses with
    ``@book.figure(name, caption, statistic)``: the caption sits beside the code that draws what it describes, and
    adding a figure is one edit. The report module reads ``book.specs`` and adds what no single drawing function of
    that module draws (the shared ladder figures, for one).
    """

    def __init__(self) -> None:
        self._specs: list[FigureSpec] = []

    def figure(self, name: str, caption: str, statistic: Callable[[Any], Any] | None = None, *,
               compares_agents: bool = False) -> Callable[[DrawFunction], DrawFunction]:
        """A decorator adding its function as the figure ``name`` (the PNG's stem) with ``caption``, drawn from
        ``statistic(run)`` (or from the run when there is none); it returns the function unchanged."""
        if any(spec.name == name for spec in self._specs):
            raise ValueError(f"two figures named {name!r}: each is written to {name}.png")

        def declare(draw: DrawFunction) -> DrawFunction:
            self._specs.append(FigureSpec(name, caption, draw, statistic, compares_agents))
            return draw
        return declare

    @property
    def specs(self) -> tuple[FigureSpec, ...]:
        """The figures declared so far, in the order declared (a module's: the order of its functions)."""
        return tuple(self._specs)


@dataclass(frozen=True)
class GameReport:
    """A game's report: how to load its run folder, the figures it draws and the Markdown summary it writes."""

    load_run: Callable[[str | Path], Any]
    figures: tuple[FigureSpec, ...]
    summary: Callable[[Any], str]
    extras: Callable[[Any, Path], tuple[list[Path], list[str]]] | None = None
    """Files written beside the figures (Knorri's example replays), with the Markdown lines that link them."""

    def write(self, run: Any, out: Path) -> list[Path]:
        """Draw every figure into ``out`` as PNG, write any extras, then ``report.md``; return the files written."""
        summary = self.summary(run)
        extra_files: list[Path] = []
        if self.extras is not None:
            out.mkdir(parents=True, exist_ok=True)
            extra_files, lines = self.extras(run, out)
            summary = summary.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
        return extra_files + write_report_files(run, out, self.figures, summary)


_REPORTS: dict[str, GameReport] = {}


def register_report(game: str, load_run: Callable[[str | Path], Any], figure_specs: Sequence[FigureSpec],
                    summary: Callable[[Any], str],
                    extras: Callable[[Any, Path], tuple[list[Path], list[str]]] | None = None) -> GameReport:
    """Make ``game``'s own report (replacing one registered before) and return it: ``knorri-sim report`` uses it
    for the game's runs instead of the generic report; ``extras`` writes files beside the figures and links them."""
    report = GameReport(load_run, tuple(figure_specs), summary, extras)
    _REPORTS[game] = report
    return report


def registered_reports() -> dict[str, GameReport]:
    """The registry itself (game -> its own report), every installed game's report module imported first."""
    _load_plugins(plugins.REPORTS)
    return _REPORTS


@dataclass(frozen=True)
class CutoffReport:
    """A game's cut-off analysis (``knorri-sim cutoffs``): ``analyse(run_dir, counterfactual_dir)`` computes it,
    ``write(result, out)`` draws its figures and page (the page last), ``summary(result)`` is what is printed."""

    analyse: Callable[[str | Path, str | Path | None], Any]
    write: Callable[[Any, Path], list[Path]]
    summary: Callable[[Any], str]


_CUTOFF_ANALYSES: dict[str, CutoffReport] = {}


def register_cutoff_analysis(game: str, analysis: CutoffReport) -> CutoffReport:
    """Make ``analysis`` the cut-off analysis of ``game``'s runs (a game whose adapter lists ``CUT_OFFS``)."""
    _CUTOFF_ANALYSES[game] = analysis
    return analysis


def cutoff_analysis_for(game: str) -> CutoffReport:
    """The cut-off analysis registered for ``game`` (every installed game's imported first); else one line."""
    _load_plugins(plugins.CUTOFFS)
    found = _CUTOFF_ANALYSES.get(game)
    if found is None:
        raise UsageError(f"game {game!r} has cut-offs but no cut-off analysis: register one with "
                         "experiments.analysis.reports.register_cutoff_analysis")
    return found


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


def ratings_figure_spec(caption: str) -> FigureSpec:
    """The ratings figure every report draws when two different agents met, with the game's caption."""
    return FigureSpec("ratings", caption, lambda run: figures.ratings_figure(ladder.ratings(run), run.row),
                      compares_agents=True)


def ladder_figure_specs(row: str, agent_scores: Callable[[Any], pd.DataFrame], ahead: str) -> tuple[FigureSpec, ...]:
    """The bot ladder's figures for a game where each seat finishes somewhere: mean score per agent at each table
    (``agent_scores``: label, agent, mean and ci95 per table), head to head (a seat ``ahead`` of another:
    "finished ahead of") and the ratings; each drawn only when two different agents met."""
    return (FigureSpec("ladder_means", f"Mean score per {row} of each agent with duplicate-deal 95% CIs",
                       lambda run: figures.ladder_means_figure(agent_scores(run), row=row), compares_agents=True),
            FigureSpec("pairwise", f"Head to head: how often each agent {ahead} each other",
                       lambda run: figures.pairwise_figure(ladder.pairwise_results(run), run.agents, row=row),
                       compares_agents=True),
            ratings_figure_spec("openskill Plackett-Luce ratings from whole finishing orders, mu ± 2 sigma"))


# ----- the summary's pieces ---------------------------------------------------------------------------


def run_names(manifests: Sequence[dict[str, Any]]) -> str:
    """The runs a report covers, as ``run_id (config name)``, comma separated."""
    return ", ".join(f"{m.get('run_id', '?')} ({m['config'].get('name', 'experiment')})" for m in manifests)


def read_state(run: Any) -> str:
    """``complete``, or how many of the run's chunks a partial report read."""
    return "complete" if run.complete else f"PARTIAL: {run.chunks_read} of {run.chunks_total} chunks read"


def zero_sum_line(violations: int, row: str) -> str:
    """The summary's zero-sum line: every row (``row``: "game", "match") sums to zero, or how many do not."""
    told = f"every {row} sums to zero" if violations == 0 else f"{violations:,} {plural(row)} do NOT sum to zero"
    return f"- Zero sum: {told}."


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


def ratings_lines(run: Any, what: str) -> list[str]:
    """The ratings paragraph: what a rated row is (``what``: "each hand's order of going out") and the table."""
    return [f"{RATING_SENTENCE} ({what}):", "", markdown_table(ratings_table(ladder.ratings(run), run.row)), ""]


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


def percent_interval(share: float, low: float, high: float) -> str:
    """A share and its interval as percentages: ``12.34 (11.00–13.70)``, or ``n/a``."""
    if math.isnan(share):
        return "n/a"
    return f"{100 * share:.2f} ({100 * low:.2f}–{100 * high:.2f})"


def percent_intervals(frame: pd.DataFrame, share: str, low: str | None = None, high: str | None = None) -> list[str]:
    """``percent_interval`` of every row of ``frame``: the ``share`` column and its interval's columns (by default
    ``share_low`` and ``share_high``)."""
    low, high = low or f"{share}_low", high or f"{share}_high"
    return [percent_interval(s, lo, hi) for s, lo, hi in zip(frame[share], frame[low], frame[high], strict=True)]


def mean_intervals(frame: pd.DataFrame, mean: str = "mean", half: str = "ci95", digits: int = 3) -> list[str]:
    """Signed means with their 95% half-widths, as the summaries show scores: ``+0.125 ± 0.040``; a mean without
    a half-width (the intervals' only reason for none: a single deal group) says so, never ``± nan``."""
    return [f"{figures.signed(m, digits)} ± {c:.{digits}f}" if not math.isnan(c) or math.isnan(m)
            else f"{figures.signed(m, digits)} (interval n/a: one deal group)"
            for m, c in zip(frame[mean], frame[half], strict=True)]



def count_intervals(frame: pd.DataFrame, mean: str, half: str, digits: int = 2) -> list[str]:
    """Means of counts (hands, rounds, places) with their 95% half-widths, unsigned: ``4.21 ± 0.05``."""
    return [f"{m:.{digits}f} ± {c:.{digits}f}" for m, c in zip(frame[mean], frame[half], strict=True)]

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


_LOADED_GROUPS: set[str] = set()


def _load_plugins(group: str) -> None:
    """Import, once a process, every module the installed packages name in ``group`` (their import registers)."""
    if group not in _LOADED_GROUPS:
        _LOADED_GROUPS.add(group)
        plugins.load_modules(group)
