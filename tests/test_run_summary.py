"""The run's closing summary, as a newcomer reads it: each seat count's facts once (rows, deal groups,
how they ended, a seat's best and worst score, all from the game's adapter), then the agents' rows, then one
legend line; an interval that cannot be computed says why instead of printing ``nan``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.cli import main
from experiments.runner.summary import RunSummary, SeatCountFacts, SummaryRow, format_summary, legend
from sim import games
from sim.contract import end_reason_meanings, plural

BUILT_IN = ("knorri", "knockout-whist", "kort")
KNORRI = games.adapter("knorri")


def _agent(seats: int, agent: str, ci95: float = 0.1, deal_groups: int = 5, every_seat: bool = False) -> SummaryRow:
    return SummaryRow(seats, agent, 40, 0.25, ci95, 0.2, {}, every_seat, deal_groups)


def _knorri_summary(**agent) -> RunSummary:
    facts = SeatCountFacts(4, 20, 5, 1, {"out": 17, "repeat": 2, "cap": 1})
    return RunSummary([facts], [_agent(4, "greedy", **agent), _agent(4, "random", **agent)])


def test_end_reason_shares_are_the_tables_once_not_repeated_on_every_agent_row():
    lines = format_summary(_knorri_summary(), KNORRI).splitlines()
    assert [line for line in lines if "ended by" in line] == ["  ended by: out 85.00%, repeat 10.00%, cap 5.00%"]
    agent_rows = [line for line in lines if line.lstrip().startswith(("greedy", "random"))]
    assert len(agent_rows) == 2 and all(line.count("%") == 1 for line in agent_rows)  # the loss rate alone


def test_the_seat_counts_facts_come_before_its_agents():
    lines = format_summary(_knorri_summary(), KNORRI).splitlines()
    assert lines[0].startswith("4 seats: 20 hands from 5 deal groups")
    assert lines.index("  ended by: out 85.00%, repeat 10.00%, cap 5.00%") < next(
        i for i, line in enumerate(lines) if line.lstrip().startswith("greedy"))


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_best_and_worst_score_are_the_adapters_for_the_seat_count(game):
    adapter = games.adapter(game)
    seats = adapter.DEFAULT_SEATS
    facts = SeatCountFacts(seats, 10, 10, 1, {})
    first = format_summary(RunSummary([facts], [_agent(seats, "random")]), adapter).splitlines()[0]
    low, high = adapter.score_range(seats)
    assert f"from {low:+g} (worst) to {high:+g} (best) per {adapter.ROW}" in first


def test_knorris_range_at_four_seats_is_minus_six_to_plus_three():
    assert games.adapter("knorri").score_range(4) == (-6, 3)
    assert "from -6 (worst) to +3 (best) per hand" in format_summary(_knorri_summary(), KNORRI)


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_score_dealt_lies_in_the_adapters_range_and_the_best_is_reached(game):
    adapter = games.adapter(game)
    options = adapter.check_options()
    rng = np.random.default_rng(3)
    for seats in sorted({adapter.MIN_SEATS, adapter.MAX_SEATS}):
        low, high = adapter.score_range(seats)
        scores = []
        for seed in range(12 if game == "kort" else 40):
            deal = adapter.deal(seats, seed, options)
            while not deal.done:
                legal = deal.legal_actions()
                deal.apply(legal[int(rng.integers(len(legal)))])
            scores += list(deal.scores)
        assert low <= min(scores) and max(scores) == high


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_legend_is_one_line_naming_seat_rows_and_every_end_reason(game):
    adapter = games.adapter(game)
    line = legend(adapter)
    assert "\n" not in line and line.startswith("Legend: ") and f"seat-{plural(adapter.ROW)} = one per seat" in line
    assert all(f"{name} = {meaning}" in line for name, meaning in end_reason_meanings(adapter).items())
    assert "95% CI = over deal groups" in line


def test_knorris_legend_says_what_repeat_and_cap_are():
    line = legend(KNORRI)
    assert "repeat = cut off: a phase-2 position recurred" in line and "cap = cut off at the phase-2 action cap" in line


def test_an_interval_over_one_deal_group_says_so_and_never_prints_nan():
    text = format_summary(_knorri_summary(ci95=math.nan, deal_groups=1), KNORRI)
    assert "nan" not in text and text.count("n/a (one deal group)") == 2


def test_an_agent_at_every_seat_shows_no_interval_and_the_legend_says_why():
    text = format_summary(_knorri_summary(every_seat=True), KNORRI)
    assert text.count("n/a (every seat)") == 3 and "the agent held every seat" in text.splitlines()[-1]


def test_a_runs_summary_prints_the_layout_for_one_deal_group(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--agents", "random;greedy;random;greedy", "--assign", "rotate", "--hands", "2",
                 "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "4 seats: 2 hands from 1 deal group; a seat scores from -6 (worst) to +3 (best) per hand" in printed
    assert "±nan" not in printed and printed.count("n/a (one deal group)") == 2
    assert printed.count("ended by: out") == 1 and "Legend: seat-hands = one per seat" in printed


def test_a_reports_mean_without_an_interval_says_why_instead_of_nan():
    import pandas as pd

    from experiments.analysis.reports import mean_intervals

    shown = mean_intervals(pd.DataFrame({"mean": [0.5, 0.25], "ci95": [math.nan, 0.125]}))
    assert shown == ["+0.500 (interval n/a: one deal group)", "+0.250 ± 0.125"]
