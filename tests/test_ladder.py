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


def test_compare_times_old_and_new_in_turn_and_gives_their_ratio(monkeypatch):
    """``speed --compare``: one untimed warm-up each, then timed passes alternating old-new, new-old, ...; the third
    row is new's time over old's."""
    order = []
    real = ladder._timed_pass

    def recording(spec, n_seats, indices, base_seed, opponent):
        order.append((spec, len(indices)))
        return real(spec, n_seats, indices, base_seed, opponent)

    monkeypatch.setattr(ladder, "_timed_pass", recording)
    rows = ladder.compare_speed("greedy", "random", 3, hands=1, base_seed=5, opponent=None, repeats=3)
    assert [spec for spec, _ in order] == ["greedy", "random", "greedy", "random", "random", "greedy",
                                           "greedy", "random"]
    assert [agent["agent"] for agent in rows] == ["greedy", "random", "random / greedy"]
    assert all(row["repeats"] == 3 and row["opponent"] == "itself" for row in rows)
    assert rows[2]["s_per_decision"] == rows[1]["s_per_decision"] / rows[0]["s_per_decision"]
