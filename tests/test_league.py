"""The league: its balanced design, duplicate deals, the dataset report reads, resuming, places and ratings."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import ladder
from experiments.cli import main
from experiments.league.results import results as league_results
from experiments.runner.config import TableConfig
from experiments.runner.plan import arrangements, balanced_seatings
from sim import games

POOL = ("a", "b", "c", "d")


def _league(tmp_path: Path, *options: str) -> list[str]:
    return ["league", "--out", str(tmp_path), "--workers", "1", "--no-progress", *options]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7])
def test_the_balanced_design_seats_every_agent_at_every_seat_equally_often(seats):
    seatings = balanced_seatings(POOL, tuple(range(seats)))
    at_seat = Counter((spec, seat) for seating in seatings for seat, spec in enumerate(seating))
    assert len(set(at_seat.values())) == 1 and len(at_seat) == len(POOL) * seats
    at_table = Counter(spec for seating in seatings for spec in seating)
    assert len(set(at_table.values())) == 1 and len(seatings) == len(set(seatings))
    assert len(seatings) == {2: 12, 3: 24}.get(seats, 24)


def test_at_as_many_seats_as_agents_the_design_is_every_permutation():
    assert balanced_seatings(POOL, range(4)) == arrangements(TableConfig(4, POOL, "permute"))


def test_partners_hold_one_agent_and_every_pairing_of_teams_plays_both_ways_round():
    seatings = balanced_seatings(POOL, games.adapter("kort").seat_teams(4))
    assert len(seatings) == 12 and all(s[0] == s[2] and s[1] == s[3] for s in seatings)
    assert {(s[0], s[1]) for s in seatings} == {(x, y) for x in POOL for y in POOL if x != y}


def test_knorri_places_come_from_the_scores_and_seats_out_together_tie():
    scores = np.array([[2, 2, 1, -5], [3, 2, 1, -6], [-3, 1, 2, 0]])
    places = games.adapter("knorri").finishing_places({"score": scores})
    assert places.tolist() == [[1, 1, 3, 4], [1, 2, 3, 4], [4, 2, 1, 3]]


def test_kort_places_are_the_team_result():
    won = np.array([[True, False, True, False]])
    assert games.adapter("kort").finishing_places({"won": won}).tolist() == [[1, 2, 1, 2]]


@pytest.fixture(scope="module")
def knorri_league(tmp_path_factory):
    out = tmp_path_factory.mktemp("league") / "knorri"
    assert main(_league(out, "--seats", "3,4,5", "--agents", "random,greedy", "--deals", "40", "--seed", "3")) == 0
    return out


def test_every_seating_plays_the_same_deals(knorri_league):
    for seats in (3, 4, 5):
        folder = knorri_league / f"seats-{seats}"
        hands = pd.read_parquet(folder / "hands")
        seatings = [tuple(s) for s in json.loads((folder / "manifest.json").read_text())["tables"][0]["seatings"]]
        assert seatings == list(balanced_seatings(("random", "greedy"), tuple(range(seats))))
        assert hands["deal_group"].nunique() == 40 and len(hands) == 40 * len(seatings)
        per_deal = hands.groupby("deal_group")
        assert (per_deal["seed"].nunique() == 1).all()  # one deal, every seating
        played = hands[[f"agent_{s}" for s in range(seats)]].astype(str).apply(tuple, axis=1)
        assert (played.groupby(hands["deal_group"]).apply(sorted).map(tuple) == tuple(sorted(seatings))).all()


def test_the_league_prints_scores_places_and_ratings_and_greedy_rates_above_random(knorri_league, capsys):
    result = league_results(knorri_league / "seats-4", "knorri")
    rated = result.ratings.set_index("agent")
    assert rated.loc["greedy", "low"] > rated.loc["random", "high"]
    places = result.places.set_index("agent")
    assert places[["1st", "2nd", "3rd", "4th"]].sum(axis=1).to_numpy() == pytest.approx([1.0, 1.0])
    assert [row.agent for row in result.scores] == ["greedy", "random"]
    assert (knorri_league / "league_ratings.png").stat().st_size > 0
    text = (knorri_league / "league.md").read_text()
    for words in ("Knorri, 3 seats: 2 seatings x 40 deals = 80 hands", "Knorri, 5 seats", "finishing places",
                  "Plackett-Luce", "95% CI"):
        assert words in text


def test_each_seat_count_is_a_run_folder_report_reads(knorri_league, tmp_path, capsys):
    assert main(["report", str(knorri_league / "seats-5"), "--out", str(tmp_path)]) == 0
    assert "Plackett-Luce rating" in (tmp_path / "report.md").read_text()


def test_a_league_run_again_resumes_its_missing_chunks_to_the_same_rows(tmp_path, capsys):
    options = ["--seats", "4", "--agents", "random,greedy", "--deals", "64", "--seed", "9"]
    assert main(_league(tmp_path, *options)) == 0
    folder = tmp_path / "seats-4"
    whole = pd.read_parquet(folder / "hands").sort_values("hand_index", ignore_index=True)
    shards = sorted((folder / "hands").glob("part-*.parquet"))
    assert len(shards) > 2
    for shard in shards[1:3]:
        shard.unlink()
    assert main(_league(tmp_path, *options)) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    assert len(manifest["resumes"]) == 1 and manifest["status"] == "complete"
    resumed = pd.read_parquet(folder / "hands").sort_values("hand_index", ignore_index=True)
    pd.testing.assert_frame_equal(resumed, whole)
    assert "4 seats: 2 seatings x 64 deals = 128 hands" in capsys.readouterr().out


def test_a_folder_of_another_league_is_refused_in_one_line(knorri_league, capsys):
    argv = _league(knorri_league, "--seats", "3", "--agents", "random,greedy", "--deals", "41", "--seed", "3")
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert "holds another run" in error and "\n" not in error


@pytest.mark.parametrize("options, says", [
    (["--seats", "2", "--agents", "random,greedy"], "Knorri is for 3 to 6 seats, not 2"),
    (["--seats", "4", "--agents", "random,random"], "'random' is given twice"),
    (["--seats", "4", "--agents", "random,nosuch"], "nosuch"),
    (["--seats", "4,x", "--agents", "random"], "--seats takes seat counts"),
])
def test_bad_league_options_are_one_line_and_exit_code_2(tmp_path, capsys, options, says):
    assert main(_league(tmp_path / "new", *options)) == 2
    error = capsys.readouterr().err.strip()
    assert says in error and "\n" not in error
    assert not (tmp_path / "new").exists()


def test_knockout_whist_league_places_are_the_game_placing(tmp_path, capsys):
    options = ["--game", "knockout-whist", "--seats", "2,5", "--agents", "random,greedy,tracker", "--deals", "12"]
    assert main(_league(tmp_path, *options)) == 0
    hands = pd.read_parquet(tmp_path / "seats-5" / "hands")
    result = league_results(tmp_path / "seats-5", "knockout-whist")
    greedy = np.concatenate([hands.loc[hands[f"agent_{s}"] == "greedy", f"place_{s}"] for s in range(5)])
    assert result.places.set_index("agent").loc["greedy", "1st"] == pytest.approx((greedy == 1).mean())
    assert result.seatings == 6 and result.rows == 72
    assert "Knockout Whist, 2 seats: 6 seatings x 12 deals = 72 games" in capsys.readouterr().out


def test_kort_league_rates_teams_from_the_match_result_and_report_reads_it(tmp_path, capsys):
    assert main(_league(tmp_path, "--game", "kort", "--agents", "random,greedy", "--deals", "10")) == 0
    result = league_results(tmp_path / "seats-4", "kort")
    assert result.seatings == 2 and list(result.places.columns) == ["agent", "1st", "2nd", "mean place"]
    rated = result.ratings.set_index("agent")
    assert rated.loc["greedy", "rating"] > rated.loc["random", "rating"]
    assert (rated["rated"] == 20).all()
    assert "Kort, 4 seats: 2 seatings x 10 deals = 20 matches" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "seats-4"), "--out", str(tmp_path / "report")]) == 0
    assert "balanced: greedy, random" in (tmp_path / "report" / "report.md").read_text()


def test_a_tiny_league_with_loginf_plays_on_the_reference_path(tmp_path, capsys):
    assert main(_league(tmp_path, "--seats", "3", "--agents", "random,loginf", "--deals", "2")) == 0
    result = league_results(tmp_path / "seats-3", "knorri")
    assert result.rows == 4 and {row.agent for row in result.scores} == {"random", "loginf"}


@pytest.mark.parametrize("name", list(games.names()))
def test_every_game_adapter_says_its_teams_and_how_a_row_gives_finishing_places(name):
    adapter = games.adapter(name)
    per_seat = {spec.name for spec in adapter.HAND_COLUMNS if spec.per_seat}
    assert set(adapter.PLACE_COLUMNS) <= per_seat
    teams = adapter.seat_teams(adapter.MAX_SEATS)
    assert len(teams) == adapter.MAX_SEATS and set(teams) == set(range(max(teams) + 1))


def test_ratings_recover_known_strengths_when_some_agents_hold_two_seats():
    rng = np.random.default_rng(1)
    strength = np.array([4.0, 2.0, 1.0, 0.5])
    seatings = [[int(code) for code in s] for s in balanced_seatings(("0", "1", "2", "3"), tuple(range(5)))]
    agents, places = [], []
    for _ in range(25):
        for seating in seatings:
            left, order = list(range(5)), []
            while left:  # Plackett-Luce: the next seat to finish is drawn in proportion to its agent's strength
                weights = strength[[seating[seat] for seat in left]]
                order.append(left.pop(rng.choice(len(left), p=weights / weights.sum())))
            agents.append(seating)
            places.append([1 + order.index(seat) for seat in range(5)])
    rated = ladder.rate_finishing_orders(list("wxyz"), np.array(agents), np.tile(np.arange(5), (600, 1)),
                                         np.array(places))
    assert rated["agent"].tolist() == ["w", "x", "y", "z"]
    assert rated["low"].iloc[0] > rated["high"].iloc[-1] and (rated["rated"] == 600).all()
