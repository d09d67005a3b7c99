"""A baseline run and its counterfactual under ``repeat=0 cap=20000`` pair by seed and seating, and what
``knorri-sim cutoffs --counterfactual`` says of them is what a direct join of the two runs' hands says."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.knorri import cutoffs
from experiments.analysis.knorri.counterfactual import PAIR_KEYS, replay_with_options
from experiments.analysis.knorri.sample import make_small_run
from experiments.cli import main

NO_REPEAT = {"repeat": 0, "cap": 20000}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The small sample run, and the same config and seed without the repeat rule (on the compiled engine, whose
    rows are the reference engine's under any options: tests/knorri/test_compiled_lineups.py)."""
    folder = tmp_path_factory.mktemp("counterfactual")
    base = make_small_run(folder / "base", hands=40, seed=4)
    other = replay_with_options(base, NO_REPEAT, folder / "norepeat")
    return base, other


@pytest.fixture(scope="module")
def analysis(runs):
    return cutoffs.analyse(*runs)


@pytest.fixture(scope="module")
def joined(runs):
    first, second = (pd.read_parquet(folder / "hands") for folder in runs)
    return first.merge(second, on=list(PAIR_KEYS), suffixes=("", "_cf"))


def test_the_counterfactual_run_is_the_same_config_under_other_options_and_pairs_every_hand(analysis, joined):
    cf = analysis.counterfactual
    assert cf.first_options == {"cap": 1500, "repeat": 2} and cf.second_options == NO_REPEAT
    assert cf.hands == cf.paired == len(joined) == 160
    assert (joined["deal_group"] == joined["deal_group_cf"]).all()


def test_every_cut_off_hand_is_followed_into_the_second_run(analysis, joined):
    cut = joined[joined["end_reason"].isin(["repeat", "cap"])]
    ended = ~cut["end_reason_cf"].isin(["repeat", "cap"])
    out = analysis.counterfactual.outcomes
    assert out["cut"].sum() == out["paired"].sum() == len(cut) > 0
    assert out["ended"].sum() == int(ended.sum()) and out["never_ended"].sum() == int((~ended).sum())
    assert out["loser_changed"].sum() == int((cut["loser"] != cut["loser_cf"]).sum())
    scores = [f"score_{seat}" for seat in range(6)]
    changed = (cut[scores].fillna(99).to_numpy() != cut[[f"{s}_cf" for s in scores]].fillna(99).to_numpy()).any(axis=1)
    assert out["scores_changed"].sum() == int(changed.sum())
    extra = (cut["phase2_actions_cf"].astype(int) - cut["phase2_actions"].astype(int))[ended]
    shown = analysis.counterfactual.extra
    assert shown["hands"].sum() == len(extra)
    assert sorted(np.repeat(shown["extra"], shown["hands"])) == sorted(extra)
    assert (extra > 0).all()  # a hand the repeat rule stopped runs on past the repeat


def test_a_hand_that_ended_by_the_rules_plays_the_same_without_the_repeat_rule(joined):
    kept = joined[joined["end_reason"] == "out"]
    assert (kept["phase2_actions"] == kept["phase2_actions_cf"]).all() and (kept["loser"] == kept["loser_cf"]).all()


def test_each_agents_change_in_mean_score_is_the_paired_mean_difference(analysis, joined):
    rows = []
    for seat in range(6):
        present = joined[f"agent_{seat}"].notna()
        part = joined[present]
        rows.append(pd.DataFrame({"seats": part["n_seats"].astype(int), "agent": part[f"agent_{seat}"].astype(str),
                                  "diff": part[f"score_{seat}_cf"].astype(int) - part[f"score_{seat}"].astype(int)}))
    direct = pd.concat(rows).groupby(["seats", "agent"])["diff"].agg(["mean", "size"]).reset_index()
    ours = analysis.counterfactual.agents.merge(direct, on=["seats", "agent"])
    assert len(ours) == len(direct) == len(analysis.counterfactual.agents)
    np.testing.assert_allclose(ours["diff"], ours["mean"], atol=1e-12)
    assert (ours["seat_hands"] == ours["size"]).all()


def test_the_loop_anatomy_columns_keep_their_rules_on_a_real_run(analysis):
    anatomy = analysis.anatomy
    assert anatomy.present and anatomy.summary["repeats"].sum() > 0
    assert anatomy.violations == dict.fromkeys(anatomy.violations, 0) and len(anatomy.violations) == 5
    assert (anatomy.summary["choices_min"] >= 1).all()


def test_the_command_prints_the_counterfactual_and_writes_its_figures(runs, tmp_path, capsys):
    assert main(["cutoffs", str(runs[0]), "--counterfactual", str(runs[1]), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "## Counterfactual" in printed and "160 of its 160 hands paired" in printed
    assert "(cap=20000, repeat=0)" in printed and "Ratings: the ranking" in printed
    for name in ("cutoff_counterfactual", "cutoff_agent_effect"):
        assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")
