"""The ladder script: its journal lets a stopped pairing continue to the same result."""

from __future__ import annotations

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
