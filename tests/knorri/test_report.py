"""Knorri's run folder read for analysis (and refused in one line when it is not a finished run), its statistics
against direct counts, and ``knorri-sim report``'s figures and summary."""

from __future__ import annotations

import itertools
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from experiments.analysis import ladder
from experiments.analysis.knorri import stats as knorri_stats
from experiments.analysis.knorri.load import load_run
from experiments.analysis.knorri.report import FIGURES
from experiments.analysis.knorri.sample import make_small_run
from experiments.analysis.load import RunFolderError
from experiments.cli import main
from experiments.runner.config import build_config, load_file
from experiments.runner.plan import table_plans


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A small run of random and greedy lineups at 3 to 6 seats (every rotation on the same deals)."""
    return make_small_run(tmp_path_factory.mktemp("analysis") / "run", hands=120, seed=11)


@pytest.fixture(scope="module")
def run(run_dir):
    return load_run(run_dir)


# ----- a real run -------------------------------------------------------------------------------------


def test_loading_reads_every_hand_and_seat_of_the_run(run, run_dir):
    raw = pd.read_parquet(run_dir / "hands")
    assert len(run.hands) == len(raw) == run.manifest["hands_total"]
    assert len(run.seats) == int(raw["n_seats"].astype(int).sum())
    assert run.complete and run.agents == ["greedy", "random"]
    assert knorri_stats.zero_sum_violations(run) == 0


def test_cutoff_shares_equal_direct_counts(run):
    rates = knorri_stats.cutoff_rates(run)
    for row in rates.itertuples():
        hands = run.hands[run.hands["table"] == row.table]
        assert row.share == pytest.approx((hands["end_reason"] == row.reason).mean())
        assert row.low <= row.share <= row.high


def test_positions_count_from_the_first_seat_and_every_hand_has_one_loser(run):
    seats = run.seats
    first = run.hands["first_seat"].to_numpy()[seats["hand"].to_numpy()]
    assert ((seats["seat"] - first) % seats["n_seats"] == seats["position"]).all()
    assert seats.groupby("hand")["lost"].sum().eq(1).all()
    positions = knorri_stats.position_scores(run)
    assert positions.groupby("seats")["seat_hands"].sum().to_dict() == run.seats.groupby("n_seats").size().to_dict()


def test_pairwise_games_match_a_brute_force_count(run):
    expected: dict[tuple[str, str], list[float]] = {}
    for _, hand in run.seats.groupby("hand"):
        for (_, x), (_, y) in itertools.combinations(hand.iterrows(), 2):
            if x.agent == y.agent:
                continue
            result = 1.0 if x.score > y.score else 0.5 if x.score == y.score else 0.0
            key, won = ((x.agent, y.agent), result) if x.agent < y.agent else ((y.agent, x.agent), 1.0 - result)
            expected.setdefault(key, []).append(won)
    table = ladder.pairwise_results(run).set_index(["agent", "opponent"])
    for (first, second), results in expected.items():
        assert table.loc[(first, second), "games"] == len(results)
        assert table.loc[(first, second), "win_share"] == pytest.approx(np.mean(results))
        assert table.loc[(second, first), "win_share"] == pytest.approx(1 - np.mean(results))


def test_ratings_put_greedy_clearly_above_random(run):
    rated = ladder.ratings(run).set_index("agent")
    assert rated.loc["greedy", "low"] > rated.loc["random", "high"]
    mixed = run.seats.groupby("hand")["agent"].nunique().gt(1).sum()
    assert rated.loc["greedy", "rated"] == rated.loc["random", "rated"] == mixed


# ----- refusing folders, and the command --------------------------------------------------------------


def _copy(run_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    return copy


@pytest.mark.parametrize("make, words", [
    (lambda run_dir, tmp_path: tmp_path / "nowhere", "does not exist"),
    (lambda run_dir, tmp_path: (tmp_path / "empty").mkdir() or tmp_path / "empty", "is empty"),
    (lambda run_dir, tmp_path: (tmp_path / "x.txt").write_text("") or tmp_path / "x.txt", "is a file"),
])
def test_missing_empty_or_file_folders_are_refused(run_dir, tmp_path, make, words):
    with pytest.raises(RunFolderError, match=words):
        load_run(make(run_dir, tmp_path))


def test_another_schema_version_is_refused(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["schema_version"] = 99
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunFolderError, match="schema version 99"):
        load_run(copy)


def test_only_complete_chunks_are_read(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    dropped = manifest["chunks_complete"].pop()
    (copy / "manifest.json").write_text(json.dumps(manifest))
    partial = load_run(copy)
    chunks = pd.read_parquet(copy / "hands")["chunk"]
    assert not partial.complete
    assert len(partial.hands) == len(chunks) - int((chunks == dropped).sum()) < len(chunks)
    manifest["chunks_complete"] = []
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunFolderError, match="no complete chunk"):
        load_run(copy)


def test_report_command_writes_every_figure_and_the_summary(run_dir, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(out)]) == 0
    reasons = sorted(set(load_run(run_dir).hands["end_reason"].astype(str)))
    assert f"13 figures, {len(reasons)} replays and report.md" in capsys.readouterr().out
    for spec in FIGURES:
        png = (out / f"{spec.name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
    summary = (out / "report.md").read_text()
    assert "all 480 hands sum to zero" in summary
    assert "## Cut-offs" in summary and "## Bot ladder" in summary and "Plackett-Luce rating" in summary
    for reason in reasons:  # one example hand of each end reason, replayed beside the figures and linked
        assert f"- {reason}: [hand " in summary and f"](replay-{reason}.html)" in summary
        assert "step 0 / " in (out / f"replay-{reason}.html").read_text()


def test_report_command_refuses_a_bad_folder_in_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and "Traceback" not in err


def test_the_readme_figures_config_plays_every_seat_count_and_over_100k_hands():
    config = build_config(load_file(ROOT / "experiments" / "analysis" / "knorri" / "readme_figures.toml"))
    plans = table_plans(config)
    assert sum(plan.hands for plan in plans) >= 100_000
    assert {plan.seats for plan in plans} == {3, 4, 5, 6}
