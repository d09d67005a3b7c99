"""``knorri-sim duel``: its design on duplicate deals, the paired differences, the command end to end (Knorri and
Kort), resuming, the JSON line, and its refusals."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.cli import main
from experiments.duel import play
from experiments.duel.play import BATCH_DEALS, MIN_DEALS, duel_setup, looks
from experiments.runner.config import ConfigError
from experiments.runner.plan import duel_design
from experiments.runner.summary import summarise
from sim import games

JSON_KEYS = ["decision", "deals", "mean_diff", "ci95", "llr", "bounds"]


def _duel(out: Path, *options: str, workers: int = 1) -> list[str]:
    return ["duel", *options, "--out", str(out), "--workers", str(workers), "--no-progress"]


def _json_line(stdout: str) -> dict:
    last = stdout.strip().splitlines()[-1]
    return json.loads(last)


def _differences(folder: Path, design) -> pd.Series:
    """Each deal's paired difference straight from the hands table, with pandas: A's mean score per row at the
    tested seats over the rotations, less B's."""
    hands = pd.read_parquet(folder / "hands")
    values = []
    for row in hands.itertuples():
        seating = design[row.arrangement]
        score = np.mean([getattr(row, f"score_{s}") for s in seating.tested])
        values.append(score if seating.side == 0 else -score)
    hands["signed"] = values
    return hands.groupby("deal_group")["signed"].sum() / (len(design) // 2)


# ----- the design --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_a_and_b_each_hold_the_tested_seat_at_every_position_with_the_others_unchanged(seats):
    design = duel_design(("A", "B", *[f"o{i}" for i in range(1, seats)]), tuple(range(seats)))
    assert len(design) == 2 * seats
    for with_a, with_b in zip(design[::2], design[1::2], strict=True):
        assert (with_a.side, with_b.side) == (0, 1) and with_a.tested == with_b.tested
        (seat,) = with_a.tested
        assert with_a.seating[seat] == "A" and with_b.seating[seat] == "B"
        assert [s for i, s in enumerate(with_a.seating) if i != seat] == \
            [s for i, s in enumerate(with_b.seating) if i != seat]
    assert sorted(s.tested[0] for s in design[::2]) == list(range(seats))


def test_in_kort_a_and_b_take_a_team_of_two_partners_and_the_team_turns():
    teams = games.adapter("kort").seat_teams(4)
    design = duel_design(("A", "B", "random", "random"), teams)
    assert [(s.seating, s.tested) for s in design] == [
        (("A", "random", "A", "random"), (0, 2)), (("B", "random", "B", "random"), (0, 2)),
        (("random", "A", "random", "A"), (1, 3)), (("random", "B", "random", "B"), (1, 3))]


def test_different_specs_at_the_other_seats_turn_with_the_table():
    design = duel_design(("A", "B", "g", "r"), games.adapter("kort").seat_teams(4))
    assert len(design) == 8
    assert Counter(s.tested for s in design) == {(0, 2): 4, (1, 3): 4}
    assert {s.seating for s in design[::2] if s.tested == (0, 2)} == {("A", "g", "A", "r"), ("A", "r", "A", "g")}


def test_the_same_agent_twice_is_still_played_on_both_sides():
    design = duel_design(("greedy", "greedy", "random", "random", "random"), tuple(range(4)))
    assert len(design) == 8 and [s.side for s in design] == [0, 1] * 4


def test_the_test_looks_after_each_batch_from_the_first_deals_and_at_the_end():
    assert looks(100) == [d for d in range(BATCH_DEALS, 100, BATCH_DEALS) if d >= MIN_DEALS] + [100]
    assert looks(10) == [10]


# ----- the command end to end: Knorri ------------------------------------------------------------------------
KNORRI_DUEL = ("greedy", "random", "--seats", "3", "--max-deals", "200", "--json")


@pytest.fixture(scope="module")
def knorri_played(tmp_path_factory):
    """A 3-seat duel of greedy against random: its folder and what it printed."""
    out = tmp_path_factory.mktemp("duel") / "knorri"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(_duel(out, *KNORRI_DUEL)) == 0
    return out, printed.getvalue()


@pytest.fixture
def knorri_duel(knorri_played):
    """The 3-seat duel's folder."""
    return knorri_played[0]


def test_greedy_beats_random_and_the_json_line_ends_the_output(knorri_played):
    stdout = knorri_played[1]
    line = _json_line(stdout)
    assert list(line) == JSON_KEYS
    assert line["decision"] == "H1" and line["deals"] == MIN_DEALS
    assert isinstance(line["mean_diff"], float) and line["mean_diff"] > 0.05
    assert line["ci95"][0] < line["mean_diff"] < line["ci95"][1]
    assert line["llr"] >= line["bounds"][1] and line["bounds"] == pytest.approx([-np.log(19), np.log(19)])
    assert f"after {MIN_DEALS} deals" in stdout and "H1: A (greedy) is better than B (random)" in stdout


def test_the_duel_folder_is_a_run_that_plays_every_deal_on_the_same_seeds(knorri_duel):
    manifest = json.loads((knorri_duel / "manifest.json").read_text())
    design = duel_design(("greedy", "random", "random", "random"), (0, 1, 2))
    assert [tuple(s) for s in manifest["tables"][0]["seatings"]] == [s.seating for s in design]
    assert manifest["status"] == "stopped"
    hands = pd.read_parquet(knorri_duel / "hands")
    assert (hands.groupby("deal_group")["seed"].nunique() == 1).all()
    assert (hands.groupby("deal_group").size() == len(design)).all()
    rows = {row.agent: row for row in summarise(knorri_duel, games.adapter("knorri"))}
    assert rows["greedy"].mean_score > rows["random"].mean_score


def test_the_mean_difference_is_the_mean_of_each_deals_paired_difference(knorri_duel, capsys):
    assert main(_duel(knorri_duel, *KNORRI_DUEL)) == 0
    line = _json_line(capsys.readouterr().out)
    design = duel_design(("greedy", "random", "random", "random"), (0, 1, 2))
    per_deal = _differences(knorri_duel, design)
    assert line["mean_diff"] == pytest.approx(per_deal.iloc[:line["deals"]].mean())


def test_report_reads_the_duel_folder(knorri_duel, capsys):
    assert main(["report", str(knorri_duel)]) == 0
    printed = capsys.readouterr().out
    assert "a duel, stopped by its test" in printed and "partial run" not in printed
    assert (knorri_duel / "report" / "report.md").is_file() and (knorri_duel / "report" / "duel_llr.png").is_file()


def test_the_same_agent_twice_accepts_h0_and_never_h1(tmp_path, capsys):
    assert main(_duel(tmp_path / "same", "greedy", "greedy", "--seats", "4", "--json")) == 0
    line = _json_line(capsys.readouterr().out)
    assert line["decision"] == "H0" and line["mean_diff"] == 0.0 and line["llr"] is None  # infinite: no spread


def test_no_bound_crossed_by_max_deals_is_undecided(tmp_path, capsys):
    options = ("greedy", "greedy", "--delta0", "-0.5", "--delta1", "0.5", "--max-deals", "8", "--json")
    assert main(_duel(tmp_path / "undecided", *options)) == 0
    stdout = capsys.readouterr().out
    line = _json_line(stdout)
    assert line["decision"] == "undecided" and line["deals"] == 8 and line["llr"] == 0.0
    assert "after 8 deals (64 hands): undecided: the test favours neither an edge of 0.5 nor a deficit of 0.5" \
        in stdout


def test_two_workers_reach_the_same_verdict_as_one(tmp_path, capsys):
    options = ("greedy", "random", "--seats", "5", "--max-deals", "100", "--json")
    assert main(_duel(tmp_path / "one", *options)) == 0
    one = _json_line(capsys.readouterr().out)
    assert main(_duel(tmp_path / "two", *options, workers=2)) == 0
    assert _json_line(capsys.readouterr().out) == one


# ----- resuming ------------------------------------------------------------------------------------------------
def test_a_duel_stopped_part_way_resumes_to_the_verdict_of_one_never_stopped(tmp_path, capsys, monkeypatch):
    options = ("greedy", "random", "--seats", "4", "--max-deals", "60", "--json")
    assert main(_duel(tmp_path / "whole", *options)) == 0
    whole = _json_line(capsys.readouterr().out)
    real_stop = play.DuelState.stop

    def interrupted(self, finished):
        if len(finished) >= 3:
            raise KeyboardInterrupt
        return real_stop(self, finished)

    monkeypatch.setattr(play.DuelState, "stop", interrupted)
    assert main(_duel(tmp_path / "resumed", *options)) == 130
    capsys.readouterr()
    assert json.loads((tmp_path / "resumed" / "manifest.json").read_text())["status"] == "interrupted"
    monkeypatch.setattr(play.DuelState, "stop", real_stop)
    assert main(_duel(tmp_path / "resumed", *options)) == 0
    assert _json_line(capsys.readouterr().out) == whole
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "whole" / "hands"),
                                  pd.read_parquet(tmp_path / "resumed" / "hands"))


def test_a_decided_duel_run_again_plays_nothing_and_says_the_same(knorri_duel, capsys):
    before = sorted(p.name for p in (knorri_duel / "hands").iterdir())
    assert main(_duel(knorri_duel, *KNORRI_DUEL)) == 0
    line = _json_line(capsys.readouterr().out)
    assert line["decision"] == "H1" and sorted(p.name for p in (knorri_duel / "hands").iterdir()) == before


def test_the_duel_is_the_run_that_run_plays_with_assign_duel(tmp_path, capsys):
    duel = ("greedy", "random", "--seats", "3", "--max-deals", "40", "--seed", "5")
    assert main(_duel(tmp_path / "duel", *duel)) == 0
    run = ["run", "--assign", "duel", "--seats", "3", "--agents", "greedy;random;random", "--hands", str(40 * 6),
           "--chunk-hands", str(BATCH_DEALS * 6), "--seed", "5", "--workers", "1", "--no-progress"]
    assert main([*run, "--out", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    manifests = [json.loads((tmp_path / name / "manifest.json").read_text()) for name in ("duel", "run")]
    assert manifests[0]["run_id"] == manifests[1]["run_id"]
    duel_hands, run_hands = (pd.read_parquet(tmp_path / name / "hands") for name in ("duel", "run"))
    played = run_hands[run_hands["chunk"].isin(duel_hands["chunk"].unique())].reset_index(drop=True)
    assert 0 < len(duel_hands) < len(run_hands)  # the duel stopped when its test decided; the run played them all
    pd.testing.assert_frame_equal(duel_hands, played)
    design = duel_design(("greedy", "random", "random", "random"), (0, 1, 2))
    assert np.allclose(play.folder_differences(tmp_path / "run"), _differences(tmp_path / "run", design).to_numpy())


def test_a_folder_holding_another_duel_is_refused(knorri_duel, capsys):
    assert main(_duel(knorri_duel, "greedy", "random", "--seats", "4", "--max-deals", "200")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds another run" in err


# ----- the command end to end: Kort ----------------------------------------------------------------------------
def test_a_kort_duel_seats_a_and_b_as_partners_and_decides(tmp_path, capsys):
    out = tmp_path / "kort"
    options = ("greedy", "random", "--game", "kort", "--option", "target_wins=1", "--max-deals", "100", "--json")
    assert main(_duel(out, *options)) == 0
    stdout = capsys.readouterr().out
    line = _json_line(stdout)
    assert line["decision"] == "H1" and "points per match" in stdout and "tested team" in stdout
    hands = pd.read_parquet(out / "hands")
    design = duel_design(("greedy", "random", "random", "random"), games.adapter("kort").seat_teams(4))
    seatings = hands[[f"agent_{s}" for s in range(4)]].astype(str).apply(tuple, axis=1)
    assert set(seatings) == {s.seating for s in design}
    assert line["mean_diff"] == pytest.approx(_differences(out, design).iloc[:line["deals"]].mean())
    assert main(["report", str(out)]) == 0
    assert "duel: greedy vs random, others random" in (out / "report" / "report.md").read_text()


# ----- refusals ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("options", "says"), [
    (("nosuchbot", "greedy"), "nosuchbot"),
    (("greedy", "random", "--others", "nosuchbot"), "nosuchbot"),
    (("greedy", "random", "--alpha", "1.5"), "--alpha must be above 0 and below 0.5"),
    (("greedy", "random", "--beta", "0"), "--beta must be above 0 and below 0.5"),
    (("greedy", "random", "--delta1", "-0.1"), "--delta1 must be above delta0"),
    (("greedy", "random", "--seats", "9"), "--seats: Knorri is for 3 to 6 seats, not 9"),
    (("greedy", "random", "--game", "kort", "--seats", "3"), "--seats: Kort is always played by 4 seats"),
    (("greedy", "random", "--seats", "4", "--others", "random;greedy"), "--others takes one spec"),
    (("greedy", "random", "--max-deals", "0"), "--max-deals must be at least 1"),
    (("greedy", "random", "--game", "kort", "--option", "target_wins=0"), "target_wins"),
])
def test_bad_input_is_one_line_and_exit_2_with_nothing_written(tmp_path, capsys, options, says):
    out = tmp_path / "refused"
    assert main(_duel(out, *options)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "Traceback" not in err
    assert not out.exists()


def test_a_duel_lineup_of_the_wrong_length_is_refused_by_the_runner():
    with pytest.raises(ConfigError, match="2 other seats"):
        duel_setup("knorri", 3, "greedy", "random", ["random"] * 3, 10)
