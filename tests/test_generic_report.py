"""The generic report any game gets from its adapter's metadata: chosen when a game registers no report of its own,
its numbers equal to counts made directly from the run's parquet, its ratings the game's own report's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import generic, ladder
from experiments.analysis.figures import signed
from experiments.analysis.generic import report_for
from experiments.analysis.knorri import sample as knorri_sample
from experiments.analysis.kort import sample as kort_sample
from experiments.analysis.reports import GameReport, registered_reports
from experiments.cli import main


def _knorri_places(hands: pd.DataFrame, n_seats: int) -> np.ndarray:
    score = hands[[f"score_{s}" for s in range(n_seats)]].to_numpy()
    return 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)  # a seat that scored more finished ahead


def _kort_places(hands: pd.DataFrame, n_seats: int) -> np.ndarray:
    return np.where(hands[[f"won_{s}" for s in range(n_seats)]].to_numpy(dtype=bool), 1, 2)


GAMES = {  # game -> (row, its plural, the outcome's rate, whether seat s is the outcome, places from the rows)
    "knorri": ("hand", "hands", "loss rate", lambda hands, s: hands["loser"] == s, _knorri_places),
    "kort": ("match", "matches", "win rate", lambda hands, s: hands[f"won_{s}"].astype(bool), _kort_places),
}


@pytest.fixture(scope="module", params=list(GAMES))
def game_run(request, tmp_path_factory):
    """A small run of a built-in game: Knorri at 3 to 6 seats, or Kort with greedy as a team against random."""
    folder = tmp_path_factory.mktemp(f"generic-{request.param}") / "run"
    if request.param == "knorri":
        knorri_sample.make_small_run(folder, hands=40, seed=5)
    else:
        kort_sample.make_small_run(folder, matches=20, seed=5)
    return request.param, folder


def _seat_rows(game: str, hands: pd.DataFrame) -> pd.DataFrame:
    """One row per seat of a row, straight from the parquet: table, seat count, seat, agent, score, outcome, place."""
    is_outcome, places = GAMES[game][3], GAMES[game][4]
    parts = []
    for n_seats, group in hands.groupby("n_seats"):
        place = places(group, int(n_seats))
        for seat in range(int(n_seats)):
            parts.append(pd.DataFrame({"table": group["table"], "n_seats": int(n_seats), "seat": seat,
                                       "agent": group[f"agent_{seat}"].astype(str), "score": group[f"score_{seat}"],
                                       "outcome": is_outcome(group, seat).to_numpy(), "place": place[:, seat]}))
    return pd.concat(parts, ignore_index=True)


def _table_after(summary: str, heading_start: str, skip: int = 0) -> pd.DataFrame:
    """The Markdown table (the ``skip``-th after the heading beginning with ``heading_start``) as strings."""
    lines = summary.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("## " + heading_start))
    tables: list[list[str]] = []
    previous = ""
    for line in lines[at + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    header, _, *body = tables[skip]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in body]
    return pd.DataFrame(cells, columns=[cell.strip() for cell in header.strip("|").split("|")])


def test_a_game_without_its_own_report_gets_the_generic_one(monkeypatch):
    assert isinstance(report_for("kort"), GameReport) and report_for("kort") is not generic.GENERIC_REPORT
    monkeypatch.delitem(registered_reports(), "kort")
    assert report_for("kort") is generic.GENERIC_REPORT


def test_the_generic_report_counts_what_the_parquet_holds(game_run, tmp_path, monkeypatch, capsys):
    game, folder = game_run
    row, rows, rate_name = GAMES[game][:3]
    monkeypatch.delitem(registered_reports(), game)  # as if the game had no analysis of its own
    out = tmp_path / "report"
    assert main(["report", str(folder), "--out", str(out)]) == 0
    hands = pd.read_parquet(folder / "hands")
    assert capsys.readouterr().out.startswith(f"{len(hands):,} {rows}: 3 figures and report.md")
    assert sorted(path.name for path in out.iterdir()) == ["outcome_by_agent.png", "outcome_by_seat.png",
                                                          "ratings.png", "report.md"]
    summary = (out / "report.md").read_text()
    assert f"- {rows.capitalize()}: {len(hands):,} (complete)" in summary
    seats = _seat_rows(game, hands)
    labels = generic.load_run(folder).tables.set_index("table")["label"]

    by_seat = _table_after(summary, f"{rate_name.capitalize()} by seat")
    expected = seats.groupby(["n_seats", "seat"])["outcome"].agg(["size", "mean"])
    assert len(by_seat) == len(expected)
    for shown, ((n_seats, seat), counted) in zip(by_seat.itertuples(index=False), expected.iterrows(), strict=True):
        assert (int(shown[0]), int(shown[1])) == (n_seats, seat)
        assert int(shown[2].replace(",", "")) == counted["size"]
        assert shown[3].startswith(f"{100 * counted['mean']:.2f} (")

    by_agent = _table_after(summary, "Agents").set_index(["table", "agent"])
    expected = seats.groupby(["table", "agent"]).agg(count=("score", "size"), score=("score", "mean"),
                                                     outcome=("outcome", "mean"), place=("place", "mean"))
    assert len(by_agent) == len(expected)
    for (table, agent), counted in expected.iterrows():
        shown = by_agent.loc[(labels[table], agent)]
        assert int(shown[f"seat-{rows}"].replace(",", "")) == counted["count"]
        assert shown["mean score"].startswith(signed(counted["score"], 3) + " ± ")
        assert shown[f"{rate_name} %"].startswith(f"{100 * counted['outcome']:.2f} (")
        assert shown["mean place"].startswith(f"{counted['place']:.2f} ± ")

    places = _table_after(summary, "Agents", skip=1).set_index(["seats", "agent"])
    for (n_seats, agent), group in seats.groupby(["n_seats", "agent"]):
        for place in range(1, n_seats + 1):
            shown = places.loc[(str(n_seats), agent)].get(f"place {place}", "0.0%")
            assert shown == f"{100 * (group['place'] == place).mean():.1f}%"

    if game == "knorri":  # the only one of the two declaring end reasons
        ends = _table_after(summary, f"How {rows} end").set_index("table")
        for table, group in hands.groupby("table"):
            shown = ends.loc[labels[table]]
            assert int(shown[rows]) == len(group)
            for reason in ("out", "repeat", "cap"):
                assert shown[f"{reason} %"].startswith(f"{100 * (group['end_reason'] == reason).mean():.2f} (")


def test_the_generic_ratings_are_the_games_own_reports(game_run):
    game, folder = game_run
    own = registered_reports()[game].load_run(folder)
    pd.testing.assert_frame_equal(ladder.ratings(generic.load_run(folder)), ladder.ratings(own))
