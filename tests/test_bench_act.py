"""The time an agent takes inside ``act`` (``experiments.bench.act``): passes in turn when two specs are compared,
any game, and its table written under runs/ unless told otherwise."""

from __future__ import annotations

from pathlib import Path

from experiments.bench import act


def test_compare_times_old_and_new_in_turn_and_gives_their_ratio(monkeypatch):
    """``--compare``: one untimed warm-up each, then timed passes alternating old-new, new-old, ...; the third row
    is new's time over old's."""
    order = []
    real = act.timed_pass

    def recording(game, spec, n_seats, indices, base_seed, opponent):
        order.append((spec, len(indices)))
        return real(game, spec, n_seats, indices, base_seed, opponent)

    monkeypatch.setattr(act, "timed_pass", recording)
    rows = act.compare_speed("knorri", "greedy", "random", 3, hands=1, base_seed=5, opponent=None, repeats=3)
    assert [spec for spec, _ in order] == ["greedy", "random", "greedy", "random", "random", "greedy",
                                           "greedy", "random"]
    assert [agent["agent"] for agent in rows] == ["greedy", "random", "random / greedy"]
    assert all(row["repeats"] == 3 and row["opponent"] == "itself" for row in rows)
    assert rows[2]["s_per_decision"] == rows[1]["s_per_decision"] / rows[0]["s_per_decision"]


def test_the_table_goes_under_runs_never_over_the_committed_results(tmp_path, monkeypatch, capsys):
    committed = {path: path.read_bytes()
                 for path in (Path(act.__file__).parents[1] / "results").glob("*.*")}
    monkeypatch.chdir(tmp_path)
    assert act.main(["--game", "knockout-whist", "--agents", "random", "--against", "itself,greedy", "--hands", "1",
                     "--repeats", "1"]) == 0
    table = (tmp_path / "runs" / "bench" / "act.md").read_text()
    assert "| random | 4 | itself |" in table and "| random | 4 | greedy |" in table
    assert {path: path.read_bytes() for path in committed} == committed


def test_a_bad_spec_is_one_line_before_anything_is_timed(capsys):
    assert act.main(["--agents", "nosuchagent", "--hands", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
