"""Figure details that misled: head-to-head shares as Wilson intervals, no minus zero in a figure's numbers, the
cut-off legend below its bars, markers at 100% not clipped, and counts never white on white."""

from __future__ import annotations

import pytest

from experiments.analysis import figures
from experiments.analysis.knorri import figures as knorri_figures
from experiments.analysis.knorri.load import load_run
from experiments.analysis.kort import figures as kort_figures
from experiments.analysis.kort import stats as kort_stats
from experiments.analysis.kort.load import load_run as load_kort_run
from experiments.cli import main


def _run(tmp_path, *words: str) -> str:
    out = str(tmp_path)
    assert main(["run", *words, "--out", out, "--workers", "1", "--no-progress"]) == 0
    return out


# ----- figures ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "text"), [(-0.0001, "0.000"), (0.0, "0.000"), (0.5, "+0.500"), (-1.25, "-1.250"),
                                             (float("nan"), "n/a")])
def test_figure_numbers_never_show_minus_zero(value, text):
    assert figures.signed(value, 3) == text


def test_the_cutoff_legend_sits_below_the_bars_not_over_them(one_agent_run):
    from experiments.analysis.knorri import stats

    figure = knorri_figures.cutoff_rates_figure(stats.cutoff_rates(load_run(one_agent_run)))
    assert figure.axes[0].get_legend() is None and len(figure.legends) == 1


def test_kort_ladder_markers_at_100_percent_are_not_clipped(kort_run):
    figure = kort_figures.team_ladder_figure(kort_stats.team_results(load_kort_run(kort_run)))
    low, high = figure.axes[0].get_xlim()
    assert low < 0 and high > 100


def test_kort_holder_counts_are_not_white_on_white(kort_run):
    figure = kort_figures.holder_value_figure(kort_stats.holder_value(load_kort_run(kort_run)))
    labels = [text for text in figure.axes[0].texts if text.get_text().replace(",", "").isdigit()]
    assert labels and all(text.get_color() == "black" for text in labels)
