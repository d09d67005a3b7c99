"""Analysis of Knockout Whist runs: loading, the statistics against direct counts, variants, the ladder, the report."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.analysis.knockout_whist import load_run, load_runs, sample, stats
from experiments.analysis.knockout_whist.load import variant_label
from experiments.analysis.knockout_whist.report import FIGURES
from experiments.analysis.knorri.load import load_run as load_knorri_run
from experiments.analysis.knorri.sample import make_small_run as make_knorri_run
from experiments.analysis.load import RunFolderError
from experiments.cli import main


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Random tables at 2, 3, 5 and 7 seats and the three agents at 4 seats, every rotation on the same deals."""
    return sample.make_small_run(tmp_path_factory.mktemp("kw-analysis") / "run", games=120, seed=11)


@pytest.fixture(scope="module")
def run(run_dir):
    return load_run(run_dir)


@pytest.fixture(scope="module")
def parquet(run_dir):
    return pd.read_parquet(run_dir / "hands").sort_values("hand_index").reset_index(drop=True)


# ----- loading ----------------------------------------------------------------------------------------


def test_loading_reads_every_game_and_every_seat_of_its_table(run, parquet):
    assert len(run.games) == len(parquet) == 600 and run.complete
    assert len(run.seats) == parquet["n_seats"].sum()
    assert sorted(run.agents) == ["greedy", "random", "tracker"]
    per_game = run.seats.groupby("game")
    assert (per_game.size().to_numpy() == run.games["n_seats"].to_numpy()).all()
    assert (per_game["won"].sum() == 1).all() and stats.zero_sum_violations(run) == 0
    winners = run.seats[run.seats["won"]]
    assert (winners["seat"].to_numpy() == run.games["winner"].to_numpy()).all()
    assert (winners["place"] == 1).all() and (winners["beaten"] == winners["n_seats"] - 1).all()


def test_the_seats_a_seat_outlasted_follow_the_places(run):
    for _, group in itertools.islice(run.seats.groupby("game"), 200):
        places = group["place"].to_numpy()
        assert list(group["beaten"]) == [int((places > mine).sum()) for mine in places]


def test_dogs_on_the_seats_add_up_to_the_games_counts(run):
    assert (run.seats.groupby("game")["dog"].sum().to_numpy() == run.games["dogs_given"].to_numpy()).all()


def test_a_variant_is_named_by_the_options_off_their_defaults():
    assert variant_label({"dogs_life": True, "rainbow": False}) == "default"
    assert variant_label({"dogs_life": False, "rainbow": True}) == "dogs_life=false rainbow=true"


def test_runs_of_several_variants_load_as_one_with_their_tables_and_deals_kept_apart(tmp_path):
    folders = sample.make_variant_runs(tmp_path, {"default": {}, "rainbow=true": {"rainbow": True}}, games=200,
                                       seats=3)
    both = load_runs(folders)  # a folder named like a hive partition ("rainbow=true") is read as a run folder
    assert both.variants == ["default", "rainbow=true"] and list(both.tables["table"]) == [0, 1]
    assert both.tables["label"].tolist() == ["3 seats: random×3", "3 seats: random×3 (rainbow=true)"]
    assert both.games.groupby("variant", observed=True).size().tolist() == [200, 200]
    assert both.games["cluster"].nunique() == 400  # each run's deal groups are its own
    ended = stats.game_length_summary(both, by=("variant",))
    assert ended["rainbow"].tolist()[0] == 0 and ended["rainbow"].tolist()[1] > 0


# ----- statistics against direct counts ---------------------------------------------------------------


def test_seat_win_rates_are_the_share_of_games_each_seat_won(run, parquet):
    rates = stats.seat_win_rates(run)
    for row in rates.itertuples():
        games = parquet[parquet["n_seats"] == row.seats]
        assert row.games == len(games) and row.win_rate == pytest.approx((games["winner"] == row.seat).mean())
        assert row.low <= row.win_rate <= row.high and row.fair == pytest.approx(1 / row.seats)


def test_game_lengths_count_the_hands_played(run, parquet):
    lengths = stats.game_lengths(run)
    assert lengths.groupby("seats")["share"].sum().to_numpy() == pytest.approx(1.0)
    direct = parquet.groupby(["n_seats", "hands_played"]).size()
    assert lengths.set_index(["seats", "hands_played"])["games"].to_dict() == direct.to_dict()
    summary = stats.game_length_summary(run).set_index("seats")
    means = parquet.groupby("n_seats")["hands_played"].mean()
    assert summary["mean_hands"].to_dict() == pytest.approx(means.to_dict())
    ended = summary[["last_trick", "last_standing", "rainbow"]].sum(axis=1)
    assert ended.to_numpy() == pytest.approx(1.0)


def test_dog_summary_counts_dogs_given_saved_and_winning(run, parquet):
    dogs = stats.dog_summary(run).set_index("seats")
    for seats, games in parquet.groupby("n_seats"):
        given = games["dogs_given"].sum()
        assert dogs.loc[seats, "dogs"] == given
        assert dogs.loc[seats, "given"] == pytest.approx((games["dogs_given"] > 0).mean())
        assert dogs.loc[seats, "saved"] == pytest.approx(games["dogs_saved"].sum() / given)
        won = sum(not pd.isna(row[f"dog_hand_{int(row.winner)}"]) for _, row in games.iterrows())
        assert dogs.loc[seats, "won"] == pytest.approx(won / given)


def test_agent_results_are_the_mean_scores_and_win_rates_of_their_seats(run, parquet):
    results = stats.agent_results(run)
    mixed = parquet[parquet["n_seats"] == 4]
    long = pd.concat([pd.DataFrame({"agent": mixed[f"agent_{s}"].astype(str), "score": mixed[f"score_{s}"],
                                    "won": mixed["winner"] == s}) for s in range(4)])
    for agent, group in long.groupby("agent"):
        row = results[(results["seats"] == 4) & (results["agent"] == agent)].iloc[0]
        assert row["seat_games"] == len(group) and row["mean"] == pytest.approx(group["score"].mean())
        assert row["win_rate"] == pytest.approx(group["won"].mean())
    assert set(results.columns) >= {"table", "seats", "label", "agent", "mean", "ci95"}  # what the figure draws


def test_the_ladder_ranks_seats_by_who_went_out_later(run):
    agents, a, b, result, _ = ladder.pair_games(run)
    seats = run.seats[run.seats["n_seats"] == 4]
    expected = []
    for _, group in seats.groupby("game"):
        rows = group.to_dict("records")
        for first, second in itertools.combinations(rows, 2):
            if first["agent"] == second["agent"]:
                continue
            if agents.index(first["agent"]) > agents.index(second["agent"]):
                first, second = second, first
            expected.append(0.5 if first["place"] == second["place"] else float(first["place"] < second["place"]))
    assert len(result) == len(expected) and result.sum() == pytest.approx(sum(expected))
    rated = ladder.ratings(run).set_index("agent")
    assert rated.loc["greedy", "rating"] > rated.loc["random", "high"]


# ----- the report -------------------------------------------------------------------------------------


def test_report_command_reads_the_manifests_game_and_writes_every_figure_and_the_summary(run_dir, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("600 games:") and f"{len(FIGURES)} figures" in printed
    assert sorted(p.name for p in out.glob("*.png")) == sorted(f"{spec.name}.png" for spec in FIGURES)
    summary = (out / "report.md").read_text()
    for heading in ("Who wins from which seat", "How long games last", "Dog's lives", "Bot ladder",
                    "Plackett-Luce rating"):
        assert f"{heading}" in summary
    assert "every game sums to zero" in summary and "| greedy |" in summary


def test_knorri_report_still_draws_knorri_figures(tmp_path, capsys):
    folder = make_knorri_run(tmp_path / "knorri", hands=30, seed=2)
    assert main(["report", str(folder)]) == 0
    assert " hands: 9 figures" in capsys.readouterr().out and (folder / "report" / "cutoff_rates.png").is_file()


def test_each_games_loader_refuses_the_other_games_run_in_one_line(run_dir, tmp_path):
    with pytest.raises(RunFolderError, match="holds a knockout-whist run, not a Knorri one"):
        load_knorri_run(run_dir)
    folder = tmp_path / "knorri"
    folder.mkdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "game": "knorri"}))
    with pytest.raises(RunFolderError, match="holds a knorri run, not a Knockout Whist one"):
        load_run(folder)


@pytest.mark.parametrize("make, words", [
    (lambda path: path, "does not exist"),
    (lambda path: path.mkdir() or path, "is empty"),
])
def test_report_refuses_a_bad_folder_in_one_line(tmp_path, capsys, make, words):
    folder = make(tmp_path / "nothing")
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_a_run_without_two_different_agents_reports_no_ladder(tmp_path):
    folder = sample.make_variant_runs(tmp_path, {"default": {}}, games=50, seats=2)[0]
    assert main(["report", str(folder)]) == 0
    summary = (folder / "report" / "report.md").read_text()
    assert "No two different agents met" in summary and np.isclose(len(load_run(folder).games), 50)
