"""The report figures read right, each drawn from a small table:
cutoff_rates' zero counts and n per bar, pairwise's counts, diagonal and rounding, seat_position's axis from 0,
and the lineup labels' width."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba
from matplotlib.text import Text

from experiments.analysis import figures
from experiments.analysis.knorri import figures as knorri_figures

matplotlib.use("Agg")
LONG = "6 seats: greedy×2 + loginf×2 + mcts:iters=400,c=1.4 + random×2"


def _texts(figure) -> list[str]:
    return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


def _rates() -> pd.DataFrame:
    rows = []
    for table, label in ((0, "3 seats: random×3"), (1, LONG)):
        for reason, count in (("repeat", 6), ("cap", 0)):
            share = count / 400
            rows.append({"table": table, "seats": 3 + 3 * table, "label": label, "reason": reason, "hands": 400,
                         "count": count, "share": share, "low": 0.0 if count == 0 else 0.007,
                         "high": 0.037 if count == 0 else 0.032})
    return pd.DataFrame(rows)


def test_a_zero_cutoff_count_draws_a_marker_at_zero_not_only_a_whisker():
    figure = knorri_figures.cutoff_rates_figure(_rates())
    markers = [line for line in figure.axes[0].get_lines() if line.get_marker() == "D"]
    assert sum(len(line.get_xdata()) for line in markers) == 2  # the two tables' cap bars
    assert all(np.all(np.asarray(line.get_xdata()) == 0) for line in markers)


def test_every_cutoff_bar_prints_its_count_out_of_the_tables_hands():
    shown = " ".join(_texts(knorri_figures.cutoff_rates_figure(_rates())))
    assert shown.count("0/400") == 2 and shown.count("6/400") == 2


def test_long_lineup_labels_are_wrapped_so_they_do_not_take_half_the_width():
    figure = knorri_figures.cutoff_rates_figure(_rates())
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert labels[1] != LONG and labels[1].replace("\n", " ") == LONG
    assert max(len(line) for label in labels for line in label.splitlines()) <= figures.LABEL_WIDTH


def _pairwise(share: float) -> pd.DataFrame:
    return pd.DataFrame({"agent": ["greedy", "random"], "opponent": ["random", "greedy"], "games": [400, 400],
                         "win_share": [share, 1 - share], "ci95": [0.01, 0.01], "low": [0.0, 0.0],
                         "high": [1.0, 1.0]})


def test_a_pairs_two_cells_add_up_to_100_percent():
    cells = [t for t in _texts(figures.pairwise_figure(_pairwise(0.9725), ["greedy", "random"])) if "%\n" in t]
    percents = sorted(float(t.split("%")[0]) for t in cells)
    assert len(percents) == 2 and round(sum(percents), 1) == 100.0


def test_pairwise_cells_count_seat_pairs_not_games():
    shown = _texts(figures.pairwise_figure(_pairwise(0.6), ["greedy", "random"], row="hand"))
    assert any("400 pairs" in t for t in shown) and not any("games" in t for t in shown)


def test_the_pairwise_diagonal_is_not_the_colour_of_an_even_share():
    figure = figures.pairwise_figure(_pairwise(0.6), ["greedy", "random"])
    image = figure.axes[0].images[0]
    data = image.get_array()
    assert data.mask[0, 0] and data.mask[1, 1] and not data.mask[0, 1]
    assert to_rgba(image.cmap.get_bad()) != to_rgba(image.cmap(0.5))
    assert sum(t == "itself" for t in _texts(figure)) == 2


def test_the_seat_position_loss_rate_axis_starts_at_zero():
    positions = pd.DataFrame({"seats": [4] * 4, "position": range(4), "seat_hands": [1000] * 4,
                              "mean": [0.1, -0.05, 0.0, -0.05], "ci95": [0.02] * 4,
                              "loss_rate": [0.24, 0.26, 0.265, 0.245], "loss_low": [0.23, 0.25, 0.255, 0.235],
                              "loss_high": [0.25, 0.27, 0.275, 0.255]})
    left, right = knorri_figures.seat_position_figure(positions).axes
    assert right.get_ylim()[0] == 0
    low, high = left.get_ylim()
    assert low < 0 < high
