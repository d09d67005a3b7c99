"""``knorri-sim cutoffs``: on real runs it writes its figures and page; the bounded statistics equal the in-memory
ones; a second run pairs by seed and seating; bad input is one line and exit 2; a game without cut-offs one line."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from lifelines import KaplanMeierFitter

from experiments.analysis import ladder
from experiments.analysis.knockout_whist import sample as knockout_whist_sample
from experiments.analysis.knorri import cutoff_page, cutoff_run, cutoffs, stats
from experiments.analysis.knorri.counterfactual import stream_ratings
from experiments.analysis.knorri.cutoff_run import ANATOMY_COLUMNS
from experiments.analysis.knorri.load import load_run
from experiments.analysis.knorri.sample import make_small_run
from experiments.cli import main
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """The small sample run: random and greedy at 3 to 6 seats, rotations on the same deals."""
    return make_small_run(tmp_path_factory.mktemp("cutoffs") / "run", hands=120, seed=3)


@pytest.fixture(scope="module")
def same_run_again(tmp_path_factory):
    """The same config and seed played a second time into another folder (the same options)."""
    return make_small_run(tmp_path_factory.mktemp("cutoffs") / "again", hands=120, seed=3)


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the command expecting a user error: exit code 2 and exactly one line on stderr, no traceback."""
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err.strip()


def test_cutoffs_writes_its_figures_and_page_and_prints_the_summary(run_dir, tmp_path, capsys):
    out = tmp_path / "page"
    assert main(["cutoffs", str(run_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "## Cut-off shares by table" in printed and "## Hand length as a survival curve" in printed
    assert f"4 figures and cutoffs.md written to {out} in " in printed.splitlines()[-1]
    for name in ("cutoff_shares", "cutoff_anatomy", "cutoff_survival", "cutoff_tail"):
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
    page = (out / "cutoffs.md").read_text()
    assert "[cutoff_tail.png](cutoff_tail.png)" in page and "| 6 | greedy×3 + random×3 | 120 |" in page


def test_cutoffs_writes_into_the_run_folder_by_default(run_dir, capsys):
    assert main(["cutoffs", str(run_dir)]) == 0
    assert (run_dir / "cutoffs" / "cutoffs.md").is_file()
    capsys.readouterr()


def test_shares_from_the_database_equal_the_in_memory_statistics(run_dir):
    run = cutoffs.open_cutoff_run(run_dir)
    with cutoffs.connect() as con:
        bounded = cutoffs.cutoff_shares(con, run)
    in_memory = stats.cutoff_rates(load_run(run_dir))
    joined = in_memory.merge(bounded, on=["table", "reason"], suffixes=("", "_db"))
    assert len(joined) == len(in_memory) == 8
    for column in ("hands", "share", "low", "high"):
        np.testing.assert_allclose(joined[column], joined[f"{column}_db"], rtol=1e-12, atol=1e-15)


def test_streamed_ratings_equal_the_ladders_ratings(run_dir):
    streamed = stream_ratings(cutoffs.open_cutoff_run(run_dir))
    whole = ladder.ratings(load_run(run_dir))
    pd.testing.assert_frame_equal(streamed.reset_index(drop=True), whole.reset_index(drop=True))


def test_kaplan_meier_from_weighted_lengths_equals_the_fit_over_every_hand(run_dir):
    run = cutoffs.open_cutoff_run(run_dir)
    with cutoffs.connect() as con:
        counts = cutoffs.length_counts(con, run)
    hands = pd.read_parquet(run_dir / "hands", columns=["table", "phase2_actions", "end_reason"])
    for table, part in counts.groupby("t"):
        weighted = KaplanMeierFitter().fit(part["length"], part["ended"], weights=part["hands"])
        rows = hands[hands["table"] == table]
        each = KaplanMeierFitter().fit(rows["phase2_actions"].astype(int), ~rows["end_reason"].isin(["repeat", "cap"]))
        np.testing.assert_allclose(weighted.survival_function_.to_numpy(), each.survival_function_.to_numpy())
        np.testing.assert_allclose(weighted.confidence_interval_.to_numpy(), each.confidence_interval_.to_numpy())


def test_the_exponential_tail_recovers_a_known_decay_rate():
    rng = np.random.default_rng(5)
    lengths = np.ceil(rng.exponential(scale=50.0, size=20_000)).astype(int)  # 2 per 100 actions
    cut = lengths > 400
    durations, ended = np.minimum(lengths, 400), ~cut
    fit = cutoffs.exponential_tail(durations.astype(float), ended, np.ones(len(lengths)), threshold=30.0)
    assert fit["low"] < 100 / 50.5 < fit["high"] and fit["low"] < fit["rate"] < fit["high"]


def test_a_run_without_the_anatomy_columns_gets_a_one_line_note(run_dir, tmp_path, capsys):
    copy = tmp_path / "old"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("cutoffs", "report"))
    for shard in (copy / "hands").glob("*.parquet"):
        table = pq.read_table(shard)
        kept = [name for name in table.column_names if name not in ANATOMY_COLUMNS or name == "cycle_length"]
        pq.write_table(table.select(kept), shard)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.pop("chunk_sha256")  # such a run was written before shards were checksummed
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert main(["cutoffs", str(copy)]) == 0
    printed = capsys.readouterr().out
    section = printed.split("## Loop anatomy")[1].split("##")[0].strip()
    assert section.startswith("This run has no loop-anatomy columns") and "\n" not in section


def test_a_counterfactual_of_the_same_options_pairs_every_hand_and_changes_nothing(run_dir, same_run_again):
    analysis = cutoffs.analyse(run_dir, same_run_again)
    cf = analysis.counterfactual
    assert cf.hands == cf.paired == 480
    cut = analysis.shares[analysis.shares["reason"] == cutoffs.ANY]["cutoffs"].sum()
    assert cf.outcomes["cut"].sum() == cf.outcomes["paired"].sum() == cf.outcomes["never_ended"].sum() == cut > 0
    assert cf.outcomes[["ended", "loser_changed", "scores_changed"]].to_numpy().sum() == 0
    assert (cf.agents["diff"] == 0).all() and cf.ranking_changed is False
    page = cutoff_page.page_markdown(analysis)
    assert "480 of its 480 hands paired" in page and "the ranking is the same in both runs" in page


def test_the_counterfactual_figures_are_written(run_dir, same_run_again, tmp_path, capsys):
    assert main(["cutoffs", str(run_dir), "--counterfactual", str(same_run_again), "--out", str(tmp_path)]) == 0
    assert "6 figures and cutoffs.md" in capsys.readouterr().out
    assert (tmp_path / "cutoff_counterfactual.png").is_file() and (tmp_path / "cutoff_agent_effect.png").is_file()


def test_a_folder_that_is_not_a_run_is_refused_in_one_line(tmp_path, capsys):
    err = one_line_error(capsys, ["cutoffs", str(tmp_path / "nowhere")])
    assert "does not exist" in err


def test_a_counterfactual_of_another_config_is_refused_in_one_line(run_dir, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(run_dir, other, ignore=shutil.ignore_patterns("cutoffs", "report"))
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["config"]["seed"] += 1
    (other / "manifest.json").write_text(json.dumps(manifest))
    err = one_line_error(capsys, ["cutoffs", str(run_dir), "--counterfactual", str(other)])
    assert "is not the same config" in err and "apart from options: seed differ" in err


def test_a_counterfactual_folder_that_is_not_a_run_is_refused_in_one_line(run_dir, tmp_path, capsys):
    err = one_line_error(capsys, ["cutoffs", str(run_dir), "--counterfactual", str(tmp_path)])
    assert "is empty" in err


def test_an_out_that_is_a_file_is_refused_in_one_line(run_dir, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    err = one_line_error(capsys, ["cutoffs", str(run_dir), "--out", str(tmp_path / "file")])
    assert "is a file" in err


def test_a_game_without_cut_offs_gets_one_line(tmp_path, capsys):
    folder = knockout_whist_sample.make_small_run(tmp_path / "kw", games=8, seed=1)
    assert main(["cutoffs", str(folder)]) == 0
    printed = capsys.readouterr().out
    assert printed == "Knockout Whist has no cut-offs: every game ends by the rules, so there is nothing to show\n"
    assert not (folder / "cutoffs").exists()


def test_the_knorri_report_has_the_cut_off_section_and_links_its_figures(run_dir, tmp_path, capsys):
    assert main(["report", str(run_dir), "--out", str(tmp_path)]) == 0
    summary = (tmp_path / "report.md").read_text()
    assert "### Cut-off shares by table" in summary and "### Hand length as a survival curve" in summary
    for name in ("cutoff_shares", "cutoff_anatomy", "cutoff_survival", "cutoff_tail"):
        assert f"[{name}.png]({name}.png)" in summary and (tmp_path / f"{name}.png").is_file()
    capsys.readouterr()


def _frames(analysis) -> dict:
    cf = analysis.counterfactual
    return {"shares": analysis.shares, "lengths": analysis.anatomy.lengths, "choices": analysis.anatomy.choices,
            "paths": analysis.anatomy.paths, "summary": analysis.anatomy.summary, "seats": analysis.anatomy.seats,
            "curves": analysis.survival.curves, "tails": analysis.survival.tails, "outcomes": cf.outcomes,
            "extra": cf.extra, "agents": cf.agents}


def test_every_statistic_adds_up_slice_by_slice_to_the_whole_run(run_dir, same_run_again, monkeypatch):
    whole = cutoffs.analyse(run_dir, same_run_again)
    assert len(cutoffs.run_slices(whole.run)) == 4  # one slice a table: the run is far under ROWS_PER_SLICE
    monkeypatch.setattr(cutoff_run, "ROWS_PER_SLICE", 7)  # a slice of one or two deal groups: dozens of slices
    sliced = cutoffs.analyse(run_dir, same_run_again)
    assert len(cutoffs.run_slices(sliced.run)) > 40
    for name, frame in _frames(whole).items():
        pd.testing.assert_frame_equal(frame.reset_index(drop=True), _frames(sliced)[name].reset_index(drop=True),
                                      check_dtype=False, obj=name)
    assert whole.anatomy.violations == sliced.anatomy.violations
    assert (whole.counterfactual.hands, whole.counterfactual.paired) == (sliced.counterfactual.hands,
                                                                         sliced.counterfactual.paired)


def test_the_loop_anatomy_is_per_table_when_two_lineups_share_a_seat_count(tmp_path):
    """Uniform random loops and greedy loops differ (greedy's return to a position it cannot leave), so a run that
    seats both at 4 seats gets each table's own distributions and summary, not one mixed seat count."""
    raw = {"name": "two-lineups", "seed": 11, "hands": 150, "assign": "rotate", "workers": 1,
           "out": str(tmp_path / "run"),
           "tables": [{"seats": 4, "agents": ["random"]}, {"seats": 4, "agents": ["greedy"]}]}
    run_experiment(build_config(raw, "the test run"), tmp_path / "run")
    analysis = cutoffs.analyse(tmp_path / "run")
    hands = pd.read_parquet(tmp_path / "run" / "hands", columns=["table", "end_reason", "cycle_log2_paths"])
    repeats = hands[hands["end_reason"] == "repeat"]
    summary = analysis.anatomy.summary.set_index("table")
    assert set(summary.index) == set(repeats["table"].unique()) and len(summary) == 2
    for table, part in repeats.groupby("table"):
        assert summary.loc[table, "repeats"] == len(part)
        assert summary.loc[table, "paths_median"] == pytest.approx(part["cycle_log2_paths"].astype(float).median())
    assert set(analysis.anatomy.paths["table"]) == set(summary.index)
