"""A run continued past its cut-offs (``--continue-past-cutoff``) says itself whether its cut-off hands would have
ended: ``knorri-sim cutoffs`` counts what its ``continued_*`` columns say with no second run, never shows a hand played
on for fewer actions, and scores and rates the agents with the continued results in place of the cut ones."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from experiments.analysis.knorri import cutoff_page, cutoff_run, cutoffs
from experiments.analysis.knorri.counterfactual import compare_continued, stream_ratings
from experiments.analysis.knorri.sample import make_small_run
from experiments.analysis.load import RunFolderError
from experiments.cli import main

PLAY_ON = {"cap": 20000, "repeat": 0}
CUT_OFFS = ["repeat", "cap"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """The small sample run (random and greedy at 3 to 6 seats) with its cut-off hands played on."""
    return make_small_run(tmp_path_factory.mktemp("continued") / "run", hands=120, seed=3, continuation=PLAY_ON)


@pytest.fixture(scope="module")
def analysis(run_dir):
    return cutoffs.analyse(run_dir)


@pytest.fixture(scope="module")
def cut(run_dir):
    """The run's cut-off hands, read whole (the run is small)."""
    hands = pd.read_parquet(run_dir / "hands")
    return hands[hands["end_reason"].isin(CUT_OFFS)]


def test_a_continued_run_is_followed_by_its_own_columns_with_no_second_run(analysis):
    played_on = analysis.continuation
    assert analysis.counterfactual is None and played_on is not None and played_on.continued
    assert played_on.first_options == {"cap": 1500, "repeat": 2} and played_on.second_options == PLAY_ON
    assert played_on.hands == played_on.paired == 480


def test_the_counts_are_what_the_continued_columns_say(analysis, cut):
    out = analysis.continuation.outcomes
    assert out["cut"].sum() == out["paired"].sum() == len(cut) > 0 and out["diverged"].sum() == 0
    assert out["ended"].sum() == (cut["continued_end_reason"] == "out").sum()
    assert out["never_ended"].sum() == (cut["continued_end_reason"] == "cap").sum()
    assert out["ended"].sum() + out["never_ended"].sum() == len(cut)
    assert out["loser_changed"].sum() == (cut["continued_loser"] != cut["loser"]).sum()
    scores = [f"score_{seat}" for seat in range(6)]
    changed = (cut[scores].fillna(99).to_numpy()
               != cut[[f"continued_{name}" for name in scores]].fillna(99).to_numpy()).any(axis=1)
    assert out["scores_changed"].sum() == int(changed.sum())


def test_no_cut_off_hand_plays_on_for_fewer_actions(analysis, cut):
    ended = cut[cut["continued_end_reason"] == "out"]
    extra = ended["continued_phase2_actions"].astype(int) - ended["phase2_actions"].astype(int)
    shown = analysis.continuation.extra
    assert sorted(np.repeat(shown["extra"], shown["hands"])) == sorted(extra)
    assert (extra > 0).all() and (analysis.continuation.outcomes["extra_min"] > 0).all()
    table = cutoff_page.outcomes_table(analysis.continuation)
    assert not table["more actions: fewest / median / 90th pct / most"].str.contains("-").any()


def test_each_agents_change_is_its_continued_score_minus_its_cut_one(run_dir, analysis):
    hands = pd.read_parquet(run_dir / "hands")
    rows = []
    for seat in range(6):
        part = hands[hands[f"agent_{seat}"].notna()]
        later = part[f"continued_score_{seat}"].fillna(part[f"score_{seat}"])
        rows.append(pd.DataFrame({"seats": part["n_seats"].astype(int), "agent": part[f"agent_{seat}"].astype(str),
                                  "diff": later.astype(int) - part[f"score_{seat}"].astype(int)}))
    direct = pd.concat(rows).groupby(["seats", "agent"])["diff"].agg(["mean", "size"]).reset_index()
    ours = analysis.continuation.agents.merge(direct, on=["seats", "agent"])
    assert len(ours) == len(direct) == len(analysis.continuation.agents)
    np.testing.assert_allclose(ours["diff"], ours["mean"], atol=1e-12)
    assert (ours["seat_hands"] == ours["size"]).all()


def test_the_continued_ratings_rate_the_continued_scores(run_dir, analysis, tmp_path):
    copy = tmp_path / "scores-replaced"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("cutoffs", "report"))
    for shard in (copy / "hands").glob("*.parquet"):
        table = pq.read_table(shard)
        for seat in range(6):
            name = f"score_{seat}"
            replaced = pc.coalesce(table.column(f"continued_{name}"), table.column(name))
            table = table.set_column(table.column_names.index(name), name, replaced)
        pq.write_table(table, shard)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.pop("chunk_sha256")  # the copy's shards are changed on purpose: checked by their row counts alone
    (copy / "manifest.json").write_text(json.dumps(manifest))
    expected = stream_ratings(cutoffs.open_cutoff_run(copy))
    pd.testing.assert_frame_equal(analysis.continuation.ratings["second"].reset_index(drop=True),
                                  expected.reset_index(drop=True))
    pd.testing.assert_frame_equal(analysis.continuation.ratings["first"].reset_index(drop=True),
                                  stream_ratings(cutoffs.open_cutoff_run(run_dir)).reset_index(drop=True))


def test_the_page_says_in_one_line_what_a_continuation_is_and_draws_its_figures(run_dir, tmp_path, capsys):
    assert main(["cutoffs", str(run_dir), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# Cut-offs of Knorri run")
    section = printed.split("## The cut-off hands played on\n\n")[1]
    assert section.startswith("A continuation (--continue-past-cutoff) played each hand the rules (cap=1500, "
                              "repeat=2) cut off on from the cut under cap=20000, repeat=0")
    assert "\n\n| table | cut off by | hands | ended | never ended" in section
    assert "6 figures and cutoffs.md" in printed.splitlines()[-1]
    for name in ("cutoff_continuation", "cutoff_continuation_agent_effect"):
        assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")


def test_the_continuation_adds_up_slice_by_slice(run_dir, analysis, monkeypatch):
    monkeypatch.setattr(cutoff_run, "ROWS_PER_SLICE", 7)  # a slice of one or two deal groups: dozens of slices
    run = cutoffs.open_cutoff_run(run_dir)
    assert len(cutoffs.run_slices(run)) > 40
    with cutoffs.connect() as con:
        sliced = compare_continued(con, run)
    for name in ("outcomes", "extra", "agents"):
        pd.testing.assert_frame_equal(getattr(analysis.continuation, name).reset_index(drop=True),
                                      getattr(sliced, name).reset_index(drop=True), check_dtype=False, obj=name)


def test_a_run_that_played_nothing_on_has_no_continuation_to_read(tmp_path):
    plain = make_small_run(tmp_path / "plain", hands=8, seed=3)
    assert cutoffs.analyse(plain).continuation is None
    with cutoffs.connect() as con, pytest.raises(RunFolderError, match="--continue-past-cutoff"):
        compare_continued(con, cutoffs.open_cutoff_run(plain))
