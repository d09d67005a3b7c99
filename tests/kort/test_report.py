"""Analysis of Kort runs: loading, the statistics against direct counts, several runs as one, the report."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from conftest import ROOT

from experiments.analysis import ladder
from experiments.analysis.knorri.load import load_run as load_knorri_run
from experiments.analysis.kort import load_run, load_runs, sample, stats
from experiments.analysis.kort.load import options_label, team_label
from experiments.analysis.kort.report import FIGURES
from experiments.analysis.load import RunFolderError
from experiments.cli import main
from experiments.runner.config import build_config, load_file
from sim.kort.adapter import RESULTS


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Four random seats, and greedy as a team against random in both rotations, on the same decks."""
    return sample.make_small_run(tmp_path_factory.mktemp("kort-analysis") / "run", matches=100, seed=11)


@pytest.fixture(scope="module")
def run(run_dir):
    return load_run(run_dir)


@pytest.fixture(scope="module")
def matches(run_dir):
    return pd.read_parquet(run_dir / "hands").sort_values("hand_index").reset_index(drop=True)


@pytest.fixture(scope="module")
def rounds(run_dir):
    return pd.read_parquet(run_dir / "rounds").sort_values(["hand_index", "round"]).reset_index(drop=True)


# ----- loading ----------------------------------------------------------------------------------------


def test_loading_reads_every_match_round_and_seat(run, matches, rounds):
    assert len(run.matches) == len(matches) == 200 and len(run.rounds) == len(rounds) and run.complete
    assert len(run.seats) == 4 * len(matches) and run.agents == ["greedy", "random"]
    assert (run.rounds.groupby("match").size().to_numpy() == run.matches["rounds"].to_numpy()).all()
    assert (run.seats.groupby("match")["won"].sum() == 2).all() and stats.zero_sum_violations(run) == 0
    winners = run.seats[run.seats["won"]]
    assert (winners["team"].to_numpy() == run.matches["winner_team"].repeat(2).to_numpy()).all()
    assert list(run.tables["label"]) == ["random×2 vs random×2", "greedy×2 vs random×2"]


def test_a_round_knows_its_match_its_teams_and_whether_the_holders_team_won(run):
    joined = run.rounds.merge(run.matches[["cluster", "team0", "team1"]], left_on="match", right_index=True,
                              suffixes=("", "_of_match"))
    for name in ("cluster", "team0", "team1"):
        assert (joined[name] == joined[f"{name}_of_match"]).all(), name
    assert (run.rounds["holder_won"] == (run.rounds["result_team"] == run.rounds["holder"] % 2)).all()
    holding = run.rounds["holder_agents"]
    assert (holding == run.rounds["team0"]).where(run.rounds["holder_team"] == 0, holding == run.rounds["team1"]).all()
    first = run.rounds[run.rounds["round"] == 0]
    assert (first["holder"] == 0).all()


def test_teams_and_options_are_named_the_way_the_tables_show_them():
    assert team_label("greedy", "greedy") == "greedy×2" and team_label("random", "greedy") == "greedy + random"
    assert options_label({"target_wins": 7, "first_holder": 0}) == ""
    assert options_label({"target_wins": 3, "first_holder": 0}) == "target_wins=3"


def test_runs_of_other_options_load_as_one_with_their_tables_and_deals_kept_apart(tmp_path, run_dir):
    short = sample.make_small_run(tmp_path / "to3", matches=40, seed=11, options={"target_wins": 3})
    both = load_runs([run_dir, short])
    assert list(both.tables["table"]) == [0, 1, 2, 3] and both.tables["label"].iloc[3].endswith("(target_wins=3)")
    assert both.matches.groupby("run").size().tolist() == [200, 80]
    assert both.matches["cluster"].nunique() == (100 + 50) + (40 + 20)  # deal groups: fixed, and two rotations
    assert (both.rounds.groupby("match").size().to_numpy() == both.matches["rounds"].to_numpy()).all()
    assert both.matches.loc[both.matches["run"] == 1, ["wins_team0", "wins_team1"]].max(axis=1).ge(3).all()


# ----- statistics against direct counts ---------------------------------------------------------------


def test_result_shares_are_the_share_of_rounds_ending_each_way(run, rounds):
    shares = stats.result_shares(run)
    assert shares.groupby("label", observed=True)["share"].sum().to_numpy() == pytest.approx(1.0)
    for label, table in (("random×2 vs random×2", 0), ("greedy×2 vs random×2", 1)):
        mine = rounds[rounds["table"] == table]
        part = shares[shares["label"] == label].set_index("result")
        for result in RESULTS:
            assert part.loc[result, "count"] == (mine["result"] == result).sum()
            assert part.loc[result, "low"] <= part.loc[result, "share"] <= part.loc[result, "high"]


def test_the_holders_value_is_the_share_of_rounds_its_team_won(run, rounds):
    value = stats.holder_value(run)
    random_table = rounds[rounds["table"] == 0]
    row = value[(value["label"] == "random×2 vs random×2") & (value["split"] == "all rounds")].iloc[0]
    won = random_table["result_team"] == random_table["holder"] % 2
    assert row["rounds"] == len(random_table) and row["holder_won"] == pytest.approx(won.mean())
    assert row["holder_wins_per_round"] == pytest.approx((random_table["wins"] * won).mean())
    thirteen = value[(value["label"] == "random×2 vs random×2") & (value["split"] == "trump 13")].iloc[0]
    assert thirteen["rounds"] == random_table["trump_13"].sum()
    greedy_holding = value[(value["holder_agents"] == "greedy×2") & (value["split"] == "all rounds")].iloc[0]
    mixed = rounds[rounds["table"] == 1]
    holds = mixed[mixed["holder"] % 2 == mixed.apply(lambda r: 0 if r["agent_0"] == "greedy" else 1, axis=1)]
    assert greedy_holding["rounds"] == len(holds)
    first = stats.first_holder_value(run).set_index("label")
    assert first.loc["random×2 vs random×2", "first_holder_won"] == pytest.approx(
        (run.matches.loc[run.matches["table"] == 0, "winner_team"] == 0).mean())


def test_redeals_are_counted_per_round_and_per_match(run, rounds, matches):
    effect = stats.redeal_effect(run, by=("label",)).set_index("label")
    summary = stats.match_length_summary(run).set_index("label")
    for label, table in (("random×2 vs random×2", 0), ("greedy×2 vs random×2", 1)):
        mine = rounds[rounds["table"] == table]
        assert effect.loc[label, "redealt_rounds"] == (mine["redeals"] > 0).sum()
        assert summary.loc[label, "mean_redeals"] == pytest.approx(matches.loc[matches["table"] == table,
                                                                               "redeals"].mean())
        first_deal = mine[mine["redeals"] == 0]
        assert effect.loc[label, "holder_won_first_deal"] == pytest.approx(
            (first_deal["result_team"] == first_deal["holder"] % 2).mean())
    by_holder = stats.redeal_effect(run)
    per_table = by_holder.groupby("label", observed=True)["redealt_rounds"].sum()
    assert per_table.to_dict() == effect["redealt_rounds"].to_dict()


def test_match_length_counts_the_rounds_of_each_match(run, matches):
    counts = stats.rounds_per_match(run)
    assert counts.groupby("label", observed=True)["share"].sum().to_numpy() == pytest.approx(1.0)
    direct = matches.groupby(["table", "rounds"]).size()
    labels = dict(enumerate(run.tables["label"]))
    assert {(labels[t], r): n for (t, r), n in direct.items()} == {
        (row.label, row.rounds): row.matches for row in counts.itertuples()}
    summary = stats.match_length_summary(run).set_index("label")
    assert summary.loc["greedy×2 vs random×2", "mean_rounds"] == pytest.approx(
        matches.loc[matches["table"] == 1, "rounds"].mean())


def test_the_ladder_of_teams_is_each_teams_share_of_the_matches_and_rounds_they_met_in(run, matches, rounds):
    results = stats.team_results(run).set_index("team")
    mixed = matches[matches["table"] == 1]
    greedy_team = (mixed["agent_0"] == "greedy").map({True: 0, False: 1})
    assert results.loc["greedy×2", "matches"] == len(mixed)
    assert results.loc["greedy×2", "win_rate"] == pytest.approx((mixed["winner_team"] == greedy_team).mean())
    assert results.loc["greedy×2", "win_rate"] + results.loc["random×2", "win_rate"] == pytest.approx(1.0)
    assert results.loc["greedy×2", "mean"] == pytest.approx(2 * results.loc["greedy×2", "win_rate"] - 1)
    mixed_rounds = rounds[rounds["table"] == 1].merge(greedy_team.rename("greedy_team"), left_on="hand_index",
                                                      right_index=True)
    assert results.loc["greedy×2", "round_wins"] == pytest.approx(
        (mixed_rounds["result_team"] == mixed_rounds["greedy_team"]).mean())
    assert results.loc["greedy×2", "win_low"] > 0.5  # greedy beats random as a team clearly
    rated = ladder.ratings(run).set_index("agent")
    assert rated.loc["greedy", "rating"] > rated.loc["random", "high"]


# ----- the report -------------------------------------------------------------------------------------


def test_report_command_reads_the_manifests_game_and_writes_every_figure_and_the_summary(run_dir, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("200 matches:") and f"{len(FIGURES)} figures" in printed
    assert sorted(p.name for p in out.glob("*.png")) == sorted(f"{spec.name}.png" for spec in FIGURES)
    summary = (out / "report.md").read_text()
    for heading in ("How rounds end", "The value of holding the trump", "Redeals", "Rounds per match",
                    "The ladder of teams", "Plackett-Luce rating"):
        assert f"## {heading}" in summary or heading in summary
    assert "every match sums to zero" in summary and "| greedy×2 vs random×2 | greedy×2 | random×2 |" in summary


def test_each_games_loader_refuses_the_other_games_run_in_one_line(run_dir, tmp_path):
    with pytest.raises(RunFolderError, match="holds a kort run, not a Knorri one"):
        load_knorri_run(run_dir)
    folder = tmp_path / "knorri"
    folder.mkdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "game": "knorri"}))
    with pytest.raises(RunFolderError, match="holds a knorri run, not a Kort one"):
        load_run(folder)


def test_a_run_missing_a_complete_chunks_rounds_is_refused_in_one_line(run_dir, tmp_path, capsys):
    folder = tmp_path / "damaged"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("report"))
    next((folder / "rounds").glob("part-*.parquet")).unlink()
    assert main(["report", str(folder)]) == 1  # a damaged run, not bad input
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is damaged: rounds/part-" in err and ".parquet is missing" in err


def test_a_run_without_two_different_teams_reports_no_ladder(tmp_path, capsys):
    folder = tmp_path / "run"
    assert main(["run", "--game", "kort", "--agents", "random", "--assign", "fixed", "--matches", "30",
                 "--workers", "1", "--no-progress", "--out", str(folder)]) == 0
    assert main(["report", str(folder)]) == 0
    summary = (folder / "report" / "report.md").read_text()
    assert "No two different teams met at a table" in summary and len(load_run(folder).matches) == 30


def test_the_readme_run_config_plays_random_greedy_against_random_and_greedy_teams():
    config = build_config(load_file(ROOT / "experiments" / "analysis" / "kort" / "readme_run.toml"))
    assert config.game == "kort" and config.matches == 5000
    assert [(t.agents, t.assign) for t in config.tables] == [
        (("random",) * 4, "fixed"), (("greedy", "random") * 2, "rotate"), (("greedy",) * 4, "fixed")]
