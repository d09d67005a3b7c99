"""The ladder script: its journal lets a stopped pairing continue to the same result."""

from __future__ import annotations

from pathlib import Path

from experiments import ladder


def test_a_pairing_resumed_from_its_journal_equals_one_played_at_once(tmp_path, monkeypatch):
    played = []
    real = ladder.duplicate_deal

    def counting(hero, opponent, n_seats, seed):
        played.append(seed)
        return real(hero, opponent, n_seats, seed)

    monkeypatch.setattr(ladder, "duplicate_deal", counting)
    journal = tmp_path / "pairing.csv"
    first = ladder.run_pairing("greedy", "random", 3, 3, 5, workers=1, journal=journal)
    assert first["deals"] == 3 and len(played) == 3
    resumed = ladder.run_pairing("greedy", "random", 3, 5, 5, workers=1, journal=journal)
    assert len(played) == 5  # only the two deals the journal lacked
    whole = ladder.run_pairing("greedy", "random", 3, 5, 5, workers=1)
    for column in ("deals", "hands", "hero_mean", "ci95"):
        assert resumed[column] == whole[column]
    assert sorted(ladder.read_journal(journal)) == [0, 1, 2, 3, 4]


def test_the_ladder_by_default_writes_under_runs_never_over_the_committed_results(tmp_path, monkeypatch):
    committed = {path: path.read_bytes() for path in (Path(ladder.__file__).parent / "results").glob("*.*")}
    monkeypatch.chdir(tmp_path)
    assert ladder.main(["strength", "--pair", "greedy/random", "--deals", "2", "--seats", "3", "--workers", "1"]) == 0
    assert (tmp_path / "runs" / "ladder" / "ladder.csv").is_file()
    assert (tmp_path / "runs" / "ladder" / "ladder.md").is_file()
    assert any((tmp_path / "runs" / "ladder" / "ladder_deals").iterdir())
    assert {path: path.read_bytes() for path in committed} == committed
