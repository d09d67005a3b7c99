"""The cut-off page's figures of what became of the cut-off hands: no agent-effect figure where
one agent played, and a mark in its own colour for every bar of zero. That no legend covers a bar, here as in every
figure, is the figure checklist's (``tests/test_figure_checklist.py``)."""

from __future__ import annotations

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from experiments.analysis.knorri import cutoff_figures, cutoffs
from experiments.analysis.knorri.sample import make_small_run
from experiments.cli import main

matplotlib.use("Agg")
CONTINUED = ["--continue-past-cutoff", "repeat=0", "--continue-past-cutoff", "cap=20000"]


@pytest.fixture(scope="module")
def continued(tmp_path_factory):
    """The small sample run with its cut-off hands played on past the cut, analysed."""
    run = make_small_run(tmp_path_factory.mktemp("continued") / "run", hands=40, seed=4,
                         continuation={"repeat": 0, "cap": 20000})
    return cutoffs.analyse(run)


def test_the_cutoff_page_draws_no_agent_effect_figure_where_one_agent_played(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["run", "--seats", "3", "--agents", "random", "--hands", "30", *CONTINUED, "--workers", "1",
                 "--no-progress", "--out", str(run)]) == 0
    assert main(["cutoffs", str(run), "--out", str(tmp_path / "page")]) == 0
    written = {path.name for path in (tmp_path / "page").iterdir()}
    assert "cutoff_continuation.png" in written and "cutoff_continuation_agent_effect.png" not in written
    assert "agent_effect" not in (tmp_path / "page" / "cutoffs.md").read_text()


def _drawn(analysis):
    figure = cutoff_figures.counterfactual_figure(analysis.continuation)
    FigureCanvasAgg(figure).draw()
    return figure, figure.axes[1]


def test_every_bar_of_zero_in_the_counterfactual_figure_has_a_mark_of_its_own(continued):
    _, bars = _drawn(continued)
    zero = [patch for patch in bars.patches if isinstance(patch, Rectangle) and patch.get_width() == 0]
    assert zero, "the sample run has no bar of zero to check"
    marks = [(x, y, to_rgba(line.get_markeredgecolor())) for line in bars.lines if line.get_marker() == "o"
             for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)]
    for patch in zero:
        low, high = patch.get_y(), patch.get_y() + patch.get_height()
        assert any(x == patch.get_x() and low <= y <= high and colour == to_rgba(patch.get_facecolor())
                   for x, y, colour in marks), f"no mark for the zero bar at {patch.get_x()}, {low}"

