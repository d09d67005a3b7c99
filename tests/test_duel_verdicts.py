"""A duel in plain words: its verdicts from one function, saying what the test favoured and
what the interval says of the sign; the progress line's crossed bound; a duel's folder read as a duel by report and
by run --resume."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest

from experiments.analysis.figures import figure_facts
from experiments.cli import main
from experiments.duel.figures import llr_path_figure, running_mean_figure
from experiments.duel.reading import read_duel
from experiments.duel.sprt import H0, H1, UNDECIDED, Sprt, Verdict, llr_against_bounds, verdict_words

# ----- duel verdicts in plain words -----------------------------------------------------------------------------


def _verdict(mean: float, low: float, high: float, llr: float, deals: int = 56) -> Verdict:
    return Verdict("", deals, mean, (low, high), llr, 0.2)


def test_h1_says_the_test_favours_the_edge_over_none_not_that_the_edge_is_at_least_delta1():
    words = verdict_words(H1, _verdict(0.080, 0.024, 0.136, 3.392), Sprt(), "mcts", "greedy")
    assert words == ("H1: A (mcts) is better than B (greedy): the test favours an edge of 0.05 over none "
                     "(LLR +3.39 ≥ 2.94); estimate +0.080 a hand (95% CI +0.024 to +0.136)")
    assert "at least" not in words


def test_h0_with_an_interval_below_zero_says_a_is_worse():
    words = verdict_words(H0, _verdict(-0.199, -0.313, -0.084, -3.28), Sprt(), "lowbot", "greedy")
    assert words.startswith("H0: A (lowbot) is not better than B (greedy) by 0.05: ")
    assert "(LLR -3.28 ≤ -2.94)" in words
    assert words.endswith("estimate -0.199 a hand (95% CI -0.313 to -0.084): A is worse")
    assert "at most 0" not in words


def test_h0_with_an_interval_across_zero_says_no_difference_is_shown_and_above_zero_that_a_is_better():
    across = verdict_words(H0, _verdict(0.011, -0.018, 0.040, -2.95), Sprt())
    above = verdict_words(H0, _verdict(0.012, 0.002, 0.022, -3.1), Sprt())
    assert across.endswith("no difference either way is shown") and above.endswith(": A is better")


def test_undecided_says_the_test_favours_neither_and_gives_the_llr_between_its_bounds():
    words = verdict_words(UNDECIDED, _verdict(0.02, -0.01, 0.05, 1.2, 2000), Sprt(), row="match")
    assert words.startswith("undecided: the test favours neither an edge of 0.05 nor none")
    assert "(LLR +1.20 between -2.94 and +2.94)" in words and "a match" in words


def test_the_progress_line_shows_the_bound_the_llr_crossed():
    test = Sprt()
    assert llr_against_bounds(-3.28, test) == "LLR -3.28 ≤ -2.94: H0"
    assert llr_against_bounds(3.39, test) == "LLR +3.39 ≥ +2.94: H1"
    assert llr_against_bounds(1.0, test) == "LLR +1.00 in [-2.94, +2.94]"


def test_a_duel_prints_its_verdict_with_the_words_of_verdict_words(tmp_path, capsys):
    assert main(["duel", "random", "greedy", "--seats", "3", "--max-deals", "40", "--workers", "1",
                 "--out", str(tmp_path / "duel")]) == 0
    printed = capsys.readouterr()
    assert "H0: A (random) is not better than B (greedy) by 0.05" in printed.out and ": A is worse" in printed.out
    assert "≤ -2.94: H0" in printed.err and " in [" not in printed.err.splitlines()[-1]


# ----- a duel's folder is a duel --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def decided_duel(tmp_path_factory) -> Path:
    """A 3-seat duel of greedy against random, decided (H1) at its first look, 32 deals of the 40 it may play."""
    out = tmp_path_factory.mktemp("duel") / "decided"
    assert main(["duel", "greedy", "random", "--seats", "3", "--max-deals", "40", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    return out


def _copy_with_test(folder: Path, into: Path, **test) -> Path:
    """A copy of a duel's folder whose manifest records another test (or none, for a duel from before the record)."""
    shutil.copytree(folder, into)
    manifest = json.loads((into / "manifest.json").read_text())
    if test:
        manifest["duel"].update(test)
    else:
        del manifest["duel"]
    (into / "manifest.json").write_text(json.dumps(manifest))
    return into


def test_a_duels_manifest_records_the_test_it_was_played_with(decided_duel):
    manifest = json.loads((decided_duel / "manifest.json").read_text())
    assert manifest["duel"] == {"delta0": 0.0, "delta1": 0.05, "alpha": 0.05, "beta": 0.05}
    assert manifest["status"] == "stopped"


def test_report_on_a_decided_duel_says_its_test_stopped_it_and_draws_the_llr_path_and_running_mean(decided_duel,
                                                                                                  tmp_path, capsys):
    assert main(["report", str(decided_duel), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out
    assert "partial run" not in printed and "not finished" not in printed and "--resume" not in printed
    assert "a duel, stopped by its test after 32 deals (192 hands): H1: A (greedy) is better than B (random)" in printed
    assert (tmp_path / "report" / "duel_llr.png").stat().st_size > 0
    assert (tmp_path / "report" / "duel_mean.png").stat().st_size > 0
    summary = (tmp_path / "report" / "report.md").read_text()
    assert "## The duel" in summary and "PARTIAL" not in summary and "(complete)" in summary


def test_the_duels_figures_draw_the_bounds_and_the_interval_the_test_read(decided_duel):
    reading = read_duel(str(decided_duel), json.loads((decided_duel / "manifest.json").read_text()))
    llr, mean = llr_path_figure(reading), running_mean_figure(reading)
    lower, upper = reading.test.bounds
    drawn_levels = {round(line.get_ydata()[0], 6) for line in llr.axes[0].lines if len(set(line.get_ydata())) == 1}
    assert {round(lower, 6), round(upper, 6)} <= drawn_levels
    path = llr.axes[0].lines[0].get_ydata()
    assert path[-1] == pytest.approx(reading.verdict.llr) and path[-1] >= upper > max(path[:-1], default=-np.inf)
    assert figure_facts(mean).interval == "95% CI" and reading.verdict.mean == pytest.approx(
        mean.axes[0].lines[0].get_ydata()[-1])


def test_resume_on_a_decided_duel_says_it_is_decided_and_plays_nothing(decided_duel, capsys):
    before = json.loads((decided_duel / "manifest.json").read_text())
    assert main(["run", "--resume", str(decided_duel)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1 and "nothing to play: a duel, stopped by its test after 32 deals" in printed
    assert json.loads((decided_duel / "manifest.json").read_text())["chunks_complete"] == before["chunks_complete"]


def test_resume_on_an_undecided_duel_names_the_duel_command_that_plays_on_and_that_command_does(decided_duel,
                                                                                               tmp_path, capsys):
    folder = _copy_with_test(decided_duel, tmp_path / "open", delta1=1e-6)  # the LLR stays near 0: not decided
    assert main(["run", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a duel, not decided yet after 32 deals" in err
    command = "knorri-sim duel " + err.split("knorri-sim duel ", 1)[1].split(" plays on")[0]
    assert command.startswith("knorri-sim duel greedy random --seats 3 --others random --delta1 1e-06 --max-deals 40")
    assert main([*shlex.split(command)[1:], "--workers", "1", "--no-progress"]) == 0  # resumes the same run
    assert "after 40 deals (240 hands): undecided" in capsys.readouterr().out


def test_a_duel_from_before_its_test_was_recorded_is_read_with_the_defaults_and_says_so(decided_duel, tmp_path,
                                                                                       capsys):
    folder = _copy_with_test(decided_duel, tmp_path / "old")
    assert main(["report", str(folder), "--out", str(tmp_path / "report")]) == 0
    assert "a duel, stopped by its test after 32 deals" in capsys.readouterr().out
    assert "does not record its test" in (tmp_path / "report" / "report.md").read_text()


