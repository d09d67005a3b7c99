"""A second run says whether a cut-off hand would have ended only if its paired hand followed the same path up to
the cut: an agent that looks ahead under the table's rules (loginf) may leave it earlier, and then the pair is
counted as diverged, apart from ended, never ended and changed. Both runs' action logs tell every such hand, and so
does a first run continued under the second run's rules; decision counts alone tell only some, and then the page's
first line says so."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.knorri import cutoff_figures, cutoff_page, cutoffs
from experiments.analysis.knorri.counterfactual import (
    ACTION_LOGS,
    CONTINUATION,
    DECISION_COUNTS,
    PAIR_KEYS,
    compare_runs,
    replay_with_options,
)
from experiments.analysis.knorri.sample import make_small_run
from experiments.cli import main
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

PLAY_ON = {"cap": 20000, "repeat": 0}
# loginf at 4 seats, master seed 4: hands 93 and 162 are cut off by a repeat; the pair of 162 in a run without the
# repeat rule leaves its path before the cut, the pair of 93 does not (found by playing it)
LOGINF = {"name": "loginf-paths", "seed": 4, "hands": 163, "seats": 4, "agents": ["loginf"], "workers": 1,
          "log_actions": True}


def play(folder, **config) -> cutoffs.CutoffRun:
    """Play ``LOGINF`` changed by ``config`` into ``folder`` and open it for the cut-off analysis."""
    run_experiment(build_config({**LOGINF, **config, "out": str(folder)}, "the test run"), folder)
    return cutoffs.open_cutoff_run(folder)


@pytest.fixture(scope="module")
def loginf(tmp_path_factory):
    """The loginf run, continued past its cut-offs, and the same config and seed under the continuation's rules,
    both with their action logs."""
    folder = tmp_path_factory.mktemp("paths")
    return play(folder / "first", continue_past_cutoff=PLAY_ON), play(folder / "second", options=PLAY_ON)


def compared(first: cutoffs.CutoffRun, second: cutoffs.CutoffRun, check: str | None = None):
    with cutoffs.connect() as con:
        return compare_runs(con, first, second, check)


def on_the_path(first: cutoffs.CutoffRun, second: cutoffs.CutoffRun) -> pd.Series:
    """For each hand the first run cut off, straight from both action logs: whether the second run's hand made the
    same first ``decisions`` actions."""
    hands = [pd.read_parquet(run.folder / "hands") for run in (first, second)]
    pairs = hands[0].merge(hands[1], on=list(PAIR_KEYS), suffixes=("", "_b"))
    pairs = pairs[pairs["end_reason"].isin(["repeat", "cap"])]
    logs = [pd.read_parquet(run.folder / "actions").sort_values(["hand_index", "step"]) for run in (first, second)]
    same = {}
    for _, pair in pairs.iterrows():
        taken = logs[0][logs[0]["hand_index"] == pair["hand_index"]]["action"].to_numpy()[:pair["decisions"]]
        other = logs[1][logs[1]["hand_index"] == pair["hand_index_b"]]["action"].to_numpy()[:pair["decisions"]]
        same[pair["hand_index"]] = len(other) == len(taken) and bool((other == taken).all())
    return pd.Series(same)


def test_a_paired_loginf_run_with_action_logs_finds_the_hands_that_diverged_before_the_cut(loginf):
    cf = compared(*loginf)
    assert cf.check == ACTION_LOGS and not cf.partial
    out = cf.outcomes
    direct = on_the_path(*loginf)
    assert out["cut"].sum() == out["paired"].sum() == len(direct) == 2
    assert out["diverged"].sum() == int((~direct).sum()) == 1  # a diverged share above zero, and not all


def test_a_diverged_hand_counts_as_neither_ended_nor_never_ended_nor_changed(loginf):
    out = compared(*loginf).outcomes
    assert (out["ended"] + out["never_ended"] + out["diverged"] == out["paired"]).all()
    assert (out["scores_changed"] <= out["ended"] + out["never_ended"]).all()


def test_the_continuation_tells_the_same_hands_as_the_action_logs(loginf):
    by_logs, by_continuation = compared(*loginf, ACTION_LOGS), compared(*loginf, CONTINUATION)
    assert by_continuation.check == CONTINUATION and not by_continuation.partial
    pd.testing.assert_frame_equal(by_logs.outcomes, by_continuation.outcomes)
    pd.testing.assert_frame_equal(by_logs.extra, by_continuation.extra)


def test_a_continued_run_without_logs_is_checked_by_its_continuation(loginf, tmp_path):
    first = play(tmp_path / "first", continue_past_cutoff=PLAY_ON, log_actions=False)
    assert compared(first, loginf[1]).check == CONTINUATION


def test_decision_counts_tell_only_hands_that_did_diverge(loginf):
    partial, whole = compared(*loginf, DECISION_COUNTS), compared(*loginf)
    assert partial.partial and partial.outcomes["diverged"].sum() <= whole.outcomes["diverged"].sum()


def test_paired_random_runs_never_diverge(tmp_path):
    base = make_small_run(tmp_path / "base", hands=40, seed=4, log_actions=True)
    other = replay_with_options(base, PLAY_ON, tmp_path / "norepeat")
    cf = compared(cutoffs.open_cutoff_run(base), cutoffs.open_cutoff_run(other))
    assert cf.check == ACTION_LOGS and cf.outcomes["cut"].sum() > 0 and cf.outcomes["diverged"].sum() == 0


def test_the_first_line_says_the_check_is_partial_when_neither_run_logged_its_actions(tmp_path, capsys):
    base = make_small_run(tmp_path / "base", hands=40, seed=4)
    other = replay_with_options(base, PLAY_ON, tmp_path / "norepeat")
    assert main(["cutoffs", str(base), "--counterfactual", str(other), "--out", str(tmp_path / "page")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("> **The pairing's path check is partial.** Its check is decision counts only")
    assert "--log-actions" in first and "--continue-past-cutoff" in first
    assert (tmp_path / "page" / "cutoffs.md").read_text().splitlines()[0] == first


def test_a_whole_check_has_no_notice(loginf, capsys, tmp_path):
    assert main(["cutoffs", str(loginf[0].folder), "--counterfactual", str(loginf[1].folder), "--out",
                 str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# Cut-offs of Knorri run") and "Path check: both runs' action logs" in printed


def test_fewer_actions_are_shown_below_zero_not_clipped(loginf):
    cf = compared(*loginf)
    cf.extra = pd.DataFrame({"reason": ["repeat", "repeat"], "extra": [-40, 25], "hands": [1, 1]})
    cf.outcomes = cf.outcomes.assign(extra_min=-40, extra_median=-7.5, extra_p90=18.5, extra_max=25)
    shown = cutoff_page.outcomes_table(cf)["more actions: fewest / median / 90th pct / most"]
    assert shown.tolist() == ["-40 / -8 / 18 / 25"]
    ax = cutoff_figures.counterfactual_figure(cf).axes[0]
    assert ax.get_xlim()[0] < -40 and any(np.allclose(line.get_xdata(), 0) for line in ax.get_lines())
