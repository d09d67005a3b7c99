"""``knorri-sim traj --game kort``: the conformance lines for matches to 7 and to 3 wins; bad input in one line."""

from __future__ import annotations

import pytest
from conftest import DATA

from experiments.cli import main

VECTORS = DATA / "conformance" / "kort"


def vector_lines(name: str, start: int, stop: int) -> list[str]:
    by_seed = {int(line.split()[0]): line for line in (VECTORS / f"{name}.txt").read_text().splitlines()}
    return [by_seed[seed] for seed in range(start, stop)]


@pytest.mark.parametrize(("extra", "name", "start", "stop"), [
    ([], "traj_target7", 0, 4),
    (["--seats", "4", "--option", "target_wins=7"], "traj_target7", 995, 1000),
    (["--option", "target_wins=3"], "traj_target3", 150, 154),
])
def test_traj_prints_the_conformance_vector_lines(capsys, extra, name, start, stop):
    assert main(["traj", "--game", "kort", *extra, "--seeds", str(start), str(stop)]) == 0
    assert capsys.readouterr().out.splitlines() == vector_lines(name, start, stop)


def test_first_holder_option_changes_who_holds_first(capsys):
    assert main(["traj", "--game", "kort", "--option", "first_holder=1", "--seeds", "0", "3"]) == 0
    assert capsys.readouterr().out.splitlines() != vector_lines("traj_target7", 0, 3)
    # Seat 2 holding first is the same table turned half round, with the same teams: the same lines.
    assert main(["traj", "--game", "kort", "--option", "first_holder=2", "--seeds", "0", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == vector_lines("traj_target7", 0, 3)


@pytest.mark.parametrize(("argv", "says"), [
    (["--seats", "5"], "Kort is always played by 4 seats, not 5"),
    (["--seats", "2"], "Kort is always played by 4 seats, not 2"),
    (["--first", "1"], "Kort has no choice of first seat: the first trump holder is option first_holder"),
    (["--option", "colour=red"], "unknown option 'colour': Kort's options are target_wins, first_holder"),
    (["--option", "target_wins=0"], "option target_wins is a number of wins 1 to 100"),
    (["--option", "target_wins=many"], "option target_wins is a number of wins 1 to 100"),
    (["--option", "first_holder=4"], "option first_holder is a seat 0 to 3, not 4"),
    (["--option", "target_wins"], "an option is written name=value, not 'target_wins'"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, says):
    code = main(["traj", "--game", "kort", *argv, "--seeds", "0", "2"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert says in captured.err and captured.err.count("\n") == 1


def test_other_games_still_need_seats(capsys):
    assert main(["traj", "--game", "knockout-whist", "--seeds", "0", "2"]) == 2
    assert "--seats is required for Knockout Whist: 2 to 7" in capsys.readouterr().err
