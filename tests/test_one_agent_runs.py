"""What a run of one agent shows: no signed zero in its summary, and no agent chart in its report, saying why."""

from __future__ import annotations

import pandas as pd

from experiments.analysis import reports
from experiments.analysis.knorri import report
from experiments.analysis.knorri.load import load_run
from experiments.analysis.kort.load import load_run as load_kort_run
from experiments.cli import main
from experiments.runner.summary import format_summary, summarise, summarise_run
from sim import games


def _run(tmp_path, *words: str) -> str:
    out = str(tmp_path)
    assert main(["run", *words, "--out", out, "--workers", "1", "--no-progress"]) == 0
    return out


# ----- what one-agent runs show ---------------------------------------------------------------------------------


def test_a_one_agent_summary_prints_no_signed_zero(one_agent_run):
    text = format_summary(summarise_run(one_agent_run), games.adapter("knorri"))
    assert "+0.000" not in text and "±0.000" not in text and "-0.000" not in text
    rows = [line for line in text.splitlines() if line.lstrip().startswith("random")]
    assert len(rows) == 2 and all("n/a (every seat)" in line for line in rows)  # one row per seat count
    assert "the agent held every seat" in text.splitlines()[-1]


def test_one_agent_tables_sharing_a_seat_count_each_print_no_signed_zero(tmp_path):
    config = tmp_path / "two.toml"
    config.write_text('hands = 40\nseed = 5\n[[tables]]\nseats = 4\nagents = ["random"]\n'
                      '[[tables]]\nseats = 4\nagents = ["greedy"]\n')
    out = tmp_path / "run"
    assert main(["run", "--config", str(config), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    rows = summarise(out)
    assert [(r.agent, r.every_seat) for r in rows] == [("greedy", True), ("random", True)]
    text = format_summary(summarise_run(out), games.adapter("knorri"))
    assert "+0.000" not in text and "4 seats (2 tables): 80 hands" in text


def test_a_one_agent_report_draws_no_agent_charts_and_says_why(one_agent_run, tmp_path):
    written = report.write_report(load_run(one_agent_run), tmp_path)
    names = {path.stem for path in written}
    assert not names & {"agent_scores", "ladder_means", "pairwise", "ratings"} and "cutoff_rates" in names
    summary = (tmp_path / "report.md").read_text()
    assert "Not drawn: agent_scores, ladder_means, pairwise, ratings: no two different agents met" in summary


def test_head_to_head_shares_are_wilson_intervals_never_a_bare_zero_width():
    pairwise = pd.DataFrame({"win_share": [1.0, 0.5], "low": [0.83, 0.4], "high": [1.0, 0.6], "ci95": [0.0, 0.1]})
    assert reports.head_to_head_shares(pairwise) == ["100.0% (83.0–100.0)", "50.0% (40.0–60.0)"]


def test_head_to_head_intervals_come_from_proportion_ci(kort_run):
    from experiments.analysis import ladder

    pairwise = ladder.pairwise_results(load_kort_run(kort_run))
    assert ((pairwise["low"] <= pairwise["win_share"]) & (pairwise["win_share"] <= pairwise["high"])).all()
    assert ((pairwise["high"] - pairwise["low"]) > 0).all() and (pairwise["high"] <= 1).all()
