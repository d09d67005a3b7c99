"""A run's size is rounded up to whole deal groups, every seating playing every deal, and one line on stderr says
so before the run starts."""

from __future__ import annotations

from experiments.cli import main
from experiments.runner.config import build_config
from experiments.runner.plan import rounding_note, table_plans


def _note(**raw) -> str | None:
    config = build_config(raw)
    return rounding_note(config, table_plans(config))


def test_hands_rounded_up_to_a_whole_deal_of_permuted_seatings_are_named_in_one_line():
    note = _note(hands=8, tables=[{"seats": 6, "agents": ["random", "random", "greedy", "greedy", "loginf", "loginf"],
                                   "assign": "permute"}])
    assert note == "rounded up to 90 hands: 1 deal × 90 seatings (asked for 8; every seating plays every deal)"


def test_hands_rounded_up_to_whole_rotations_are_named():
    note = _note(hands=3, tables=[{"seats": 4, "agents": ["random", "greedy", "loginf", "mcts"], "assign": "rotate"}])
    assert note == "rounded up to 4 hands: 1 deal × 4 seatings (asked for 3; every seating plays every deal)"


def test_a_size_of_whole_deal_groups_says_nothing():
    assert _note(hands=8, tables=[{"seats": 4, "agents": ["random", "greedy", "loginf", "mcts"],
                                   "assign": "rotate"}]) is None


def test_matches_are_rounded_in_matches_with_their_hands_each():
    note = _note(matches=5, match_hands=3, tables=[{"seats": 3, "agents": ["random", "greedy", "loginf"],
                                                    "assign": "rotate"}])
    assert note.startswith("rounded up to 6 matches: 2 deals × 3 seatings, 3 hands each (asked for 5;")


def test_only_the_tables_whose_size_changed_are_named():
    note = _note(hands=4, assign="rotate", tables=[{"seats": 4, "agents": ["random", "greedy", "loginf", "mcts"]},
                                                   {"seats": 3, "agents": ["random", "greedy", "loginf"]}])
    assert note == ("table 1 (3 seats) rounded up to 6 hands: 2 deals × 3 seatings "
                    "(asked for 4; every seating plays every deal)")


def test_run_prints_the_rounding_on_stderr_before_the_run_starts(tmp_path, capsys):
    assert main(["run", "--agents", "random;greedy;random;greedy", "--assign", "rotate", "--hands", "3",
                 "--out", str(tmp_path / "run"), "--workers", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "rounded up to 4 hands: 2 deals × 2 seatings (asked for 3; every seating plays every deal)" in \
        captured.err.splitlines()
    assert "4 hands" in captured.out


def test_bad_input_stays_one_line_though_the_size_was_rounded(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["run", "--agents", "random;greedy;random;greedy", "--assign", "rotate", "--hands", "3",
                 "--out", str(tmp_path / "file" / "run"), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write the run folder" in err
