"""Every figure of every report and notebook against the figure checklist of CONTRIBUTING.md: a title,
units, n, intervals named, zero visible (a bar of zero marked), labels legible at column width, no legend over a
bar.

Each figure function declares those facts (``experiments.analysis.figures.declare``); these tests draw every
figure of the three games' reports, the generic report, the cut-off page and the league from small runs, and check
each declared fact against what was drawn. A figure function that declares nothing, or is never drawn here, fails.
"""

from __future__ import annotations

import inspect

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import BarContainer
from matplotlib.text import Text

from experiments.analysis import figures, generic, ladder
from experiments.analysis.knockout_whist import figures as kw_figures
from experiments.analysis.knockout_whist import report as kw_report
from experiments.analysis.knockout_whist.load import load_run as load_kw_run
from experiments.analysis.knockout_whist.sample import make_small_run as make_kw_run
from experiments.analysis.knorri import cutoff_figures, cutoff_page, cutoffs
from experiments.analysis.knorri import figures as knorri_figures
from experiments.analysis.knorri import report as knorri_report
from experiments.analysis.knorri.counterfactual import replay_with_options
from experiments.analysis.knorri.sample import make_small_run
from experiments.analysis.knorri.stream import stream_run
from experiments.analysis.kort import figures as kort_figures
from experiments.analysis.kort import report as kort_report
from experiments.analysis.kort.load import load_run as load_kort_run
from experiments.analysis.kort.sample import make_small_run as make_kort_run
from experiments.analysis.reports import drawn_figures
from experiments.cli import main
from experiments.duel import figures as duel_figures
from experiments.duel.reading import read_duel
from experiments.runner.storage import read_manifest
from experiments.train import report as train_report

matplotlib.use("Agg")

FIGURE_MODULES = (figures, generic, knorri_figures, cutoff_figures, kort_figures, kw_figures, duel_figures,
                  train_report)
EVALUATIONS = [{"opponent": "greedy", "others": "random", "deals": 200, "rows": 1600, "cpu_seconds": 60.0 * minutes,
                "mean": mean, "low": mean - 0.2, "high": mean + 0.2, "hands": 1000 * minutes}
               for minutes, mean in ((4, -0.9), (8, -0.3), (12, 0.1))]  # a training's evaluations (evaluate.py)
EVALUATIONS_BY_SEATS = [{**row, "by_seats": {str(n): {"deals": 200, "rows": 400 * n, "low": row["low"],
                                                    "high": row["high"], "mean": row["mean"] + 0.1 * n - 0.45}
                                              for n in (3, 4, 5, 6)}}
                        for row in EVALUATIONS]  # a training at four seat counts
SMALLEST_FONT = 8.0  # points, at the figure's own size (9 to 14 inches wide, shown at a page's column width)
WIDEST_LABEL = 1 / 3  # of the figure's width, for any one tick label


def _figure_functions() -> set[str]:
    return {f"{module.__name__}.{name}" for module in FIGURE_MODULES for name, value in vars(module).items()
            if name.endswith("_figure") and name != "new_figure" and inspect.isfunction(value)
            and value.__module__ == module.__name__}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> list[tuple[str, matplotlib.figure.Figure]]:
    """Every figure the reports, the cut-off page (with its run's continuation and a counterfactual), the league
    and a duel draw, each drawn once."""
    folder = tmp_path_factory.mktemp("figures")
    base = make_small_run(folder / "knorri", hands=40, seed=4,
                          continuation={"repeat": 0, "cap": 20000})  # the cut-off page's continuation figures too
    other = replay_with_options(base, {"repeat": 0, "cap": 20000}, folder / "norepeat")
    kw = make_kw_run(folder / "kw", games=40)
    kort = make_kort_run(folder / "kort", matches=8, options={"target_wins": 2})
    out = []
    for name, report, run in (("knorri", knorri_report.REPORT, stream_run(base)),
                              ("knockout-whist", kw_report.REPORT, load_kw_run(kw)),
                              ("kort", kort_report.REPORT, load_kort_run(kort)),
                              ("generic", generic.GENERIC_REPORT, generic.load_run(base))):
        out += [(f"{name} report: {spec.name}", spec.draw(run)) for spec in drawn_figures(report.figures, run)]
    analysis = cutoffs.analyse(base, other)
    out += [(f"cutoffs: {spec.name}", spec.draw(analysis)) for spec in cutoff_page.FIGURES if spec.applies(analysis)]
    out.append(("league ratings", figures.league_ratings_figure({4: ladder.ratings(stream_run(base))}, "A league")))
    duel = folder / "duel"
    assert main(["duel", "greedy", "random", "--seats", "3", "--max-deals", "40", "--workers", "1", "--no-progress",
                 "--out", str(duel)]) == 0
    reading = read_duel(duel, read_manifest(duel))
    out += [("duel: LLR path", duel_figures.llr_path_figure(reading)),
            ("duel: running mean", duel_figures.running_mean_figure(reading))]
    out.append(("training: learning curve", train_report.learning_curve_figure(EVALUATIONS, "Learning curve")))
    out.append(("training: learning curve by seat count",
                train_report.learning_curve_figure(EVALUATIONS_BY_SEATS, "Learning curve at 3,4,5,6 seats")))
    for _, figure in out:
        FigureCanvasAgg(figure).draw()
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


def _texts(figure) -> str:
    return " | ".join(_norm(t.get_text()) for t in figure.findobj(Text) if t.get_visible() and t.get_text())


def _data_axes(figure) -> list:
    return [ax for ax in figure.axes if ax.get_visible() and not hasattr(ax, "_colorbar")]


def _failures(drawn, check) -> list[str]:
    return [f"{name}: {problem}" for name, figure in drawn if (problem := check(figure, figures.figure_facts(figure)))]


def test_every_figure_function_is_drawn_here_and_declares_its_facts(drawn):
    assert all(figures.figure_facts(figure) is not None for _, figure in drawn), \
        [name for name, figure in drawn if figures.figure_facts(figure) is None]
    assert _figure_functions() <= {figures.figure_facts(figure).drawn_by for _, figure in drawn}


def test_each_figure_has_the_title_it_declares(drawn):
    def check(figure, facts):
        titles = [_norm(ax.get_title()) for ax in figure.axes] + [_norm(figure.get_suptitle())]
        return None if facts.title and _norm(facts.title) in titles else f"no title {facts.title!r}"
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_each_figure_names_its_units_on_an_axis(drawn):
    def check(figure, facts):
        labels = " | ".join(_norm(ax.get_xlabel()) + " | " + _norm(ax.get_ylabel()) for ax in figure.axes)
        return None if facts.units and _norm(facts.units) in labels else f"no axis label with {facts.units!r}"
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_each_figure_prints_the_n_behind_it(drawn):
    def check(figure, facts):
        shown = _texts(figure)
        missing = [n for n in facts.n if _norm(n) not in shown]
        counted = any(any(c.isdigit() for c in n) for n in facts.n) or all(n.startswith("no ") for n in facts.n)
        return f"n not printed: {missing}" if missing or not facts.n or not counted else None
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_each_figures_intervals_are_named_on_it(drawn):
    def check(figure, facts):
        if facts.interval is None:
            return None
        return None if _norm(facts.interval) in _texts(figure) else f"interval {facts.interval!r} not named"
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_zero_is_visible_on_every_value_axis_or_the_axis_says_why_not(drawn):
    def check(figure, facts):
        axes = _data_axes(figure)
        ways = facts.zero * len(axes) if len(facts.zero) == 1 else facts.zero
        if len(ways) != len(axes):
            return f"{len(facts.zero)} zero entries for {len(axes)} axes"
        for i, (ax, entry) in enumerate(zip(axes, ways, strict=True)):
            axis, way = entry.split(" ", 1)
            assert way in figures.ZERO_WAYS, entry
            if axis == "colour":
                if not ax.images or ax.images[0].norm.vmin != 0:
                    return f"axes {i}: colour scale does not start at 0"
                continue
            low, high = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
            scale = ax.get_xscale() if axis == "x" else ax.get_yscale()
            label = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
            if way == "from 0" and not (scale == "linear" and low <= 0 <= high):
                return f"axes {i}: {axis} runs {low:.3g} to {high:.3g} ({scale}), not through 0"
            if way == "log" and not (scale == "log" and "log" in label):
                return f"axes {i}: a log {axis} axis must be one and say so in its label"
            if way == "broken" and "broken" not in label:
                return f"axes {i}: a broken {axis} axis must say so in its label"
        return None
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_tick_labels_are_legible_at_column_width(drawn):
    def check(figure, facts):
        renderer = figure.canvas.get_renderer()
        width = figure.bbox.width
        for ax in _data_axes(figure):
            for axis, ticks in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
                shown = [t for t in ticks if t.get_visible() and t.get_text()]
                boxes = [t.get_window_extent(renderer) for t in shown]
                for t, box in zip(shown, boxes, strict=True):
                    if t.get_fontsize() < SMALLEST_FONT:
                        return f"{axis} tick {t.get_text()!r} at {t.get_fontsize()} pt"
                    if box.width > WIDEST_LABEL * width:
                        return f"{axis} tick {t.get_text()!r} takes {box.width / width:.0%} of the width"
                if any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False)):
                    return f"{axis} tick labels overlap"
        return None
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def _bars(ax) -> list:
    """The bars of ``ax``'s bar charts (its bar containers' rectangles), zero-sized ones included."""
    return [patch for container in ax.containers if isinstance(container, BarContainer) for patch in container]


def test_a_bar_of_zero_draws_a_mark_of_its_own(drawn):
    def check(figure, facts):
        for ax in _data_axes(figure):
            marks = [(x, y) for line in ax.lines if line.get_marker() not in (None, "None", "", " ")
                     for x, y in zip(line.get_xdata(), line.get_ydata(), strict=False)]
            for bar in _bars(ax):
                if not (bar.get_width() == 0 or bar.get_height() == 0) or not bar.get_visible():
                    continue
                (x0, y0), (x1, y1) = bar.get_bbox().get_points()
                if not any(min(x0, x1) <= x <= max(x0, x1) and min(y0, y1) <= y <= max(y0, y1) for x, y in marks):
                    return f"a bar of zero at ({x0:.3g}, {y0:.3g}) has no mark"
        return None
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)


def test_no_legend_covers_a_bar(drawn):
    def check(figure, facts):
        renderer = figure.canvas.get_renderer()
        legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + list(figure.legends)
        boxes = [legend.get_window_extent(renderer) for legend in legends if legend.get_visible()]
        for ax in _data_axes(figure):
            for bar in _bars(ax):
                box = bar.get_window_extent(renderer)
                if box.width > 0 and box.height > 0 and any(legend.overlaps(box) for legend in boxes):
                    return f"a legend covers the bar at {box.x0:.0f}, {box.y0:.0f} (pixels)"
        return None
    failures = _failures(drawn, check)
    assert failures == [], "\n".join(failures)
