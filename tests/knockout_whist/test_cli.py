"""``knorri-sim traj --game knockout-whist``: the conformance lines for any seats and options; bad input in one line."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import DATA, ROOT

from experiments.cli import main

VECTORS = DATA / "conformance" / "knockout_whist"


def vector_lines(name: str, start: int, stop: int) -> list[str]:
    by_seed = {int(line.split()[0]): line for line in (VECTORS / f"traj_{name}.txt").read_text().splitlines()}
    return [by_seed[seed] for seed in range(start, stop)]


@pytest.mark.parametrize(("seats", "options", "name", "start", "stop"), [
    (2, [], "seats2_default", 0, 5),
    (7, [], "seats7_default", 995, 1000),
    (4, ["dogs_life=false"], "seats4_no_dogs_life", 10, 14),
    (4, ["safe_first_hand=true"], "seats4_safe_first_hand", 0, 4),
    (4, ["winner_deals=true"], "seats4_winner_deals", 0, 4),
    (4, ["card_exchange=true"], "seats4_card_exchange", 0, 4),
    (4, ["no_trumps_choice=yes"], "seats4_no_trumps_choice", 0, 4),
    (4, ["rainbow=on"], "seats4_rainbow", 0, 4),
])
def test_traj_prints_the_conformance_vector_lines(capsys, seats, options, name, start, stop):
    argv = ["traj", "--game", "knockout-whist", "--seats", str(seats), "--seeds", str(start), str(stop)]
    for option in options:
        argv += ["--option", option]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines() == vector_lines(name, start, stop)


def test_the_installed_command_prints_the_same_lines():
    script = shutil.which("knorri-sim")
    command = [script] if script else [sys.executable, "-m", "experiments.cli"]
    done = subprocess.run([*command, "traj", "--game", "knockout-whist", "--seats", "5", "--seeds", "7", "10"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == vector_lines("seats5_default", 7, 10)


@pytest.mark.parametrize(("argv", "says"), [
    (["--seats", "8"], "Knockout Whist is for 2 to 7 seats, not 8"),
    (["--seats", "1"], "Knockout Whist is for 2 to 7 seats, not 1"),
    (["--seats", "4", "--first", "1"], "Knockout Whist has no choice of first seat"),
    (["--seats", "4", "--option", "colour=red"], "unknown Knockout Whist option 'colour': the options are dogs_life"),
    (["--seats", "4", "--option", "rainbow=maybe"], "option rainbow is true or false, not 'maybe'"),
    (["--seats", "4", "--option", "rainbow"], "an option is written name=value, not 'rainbow'"),
    (["--seats", "4", "--option", "players=3"], "the number of players is set by the seat count"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, says):
    code = main(["traj", "--game", "knockout-whist", *argv, "--seeds", "0", "2"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and says in captured.err, captured.err


def test_options_are_for_knockout_whist_and_the_default_game_is_knorri(capsys):
    assert main(["traj", "--seats", "4", "--option", "rainbow=true", "--seeds", "0", "1"]) == 2
    assert "Knorri has no options" in capsys.readouterr().err
    with pytest.raises(SystemExit) as leaving:
        main(["traj", "--game", "whist", "--seats", "4", "--seeds", "0", "1"])
    assert leaving.value.code == 2 and "invalid choice: 'whist'" in capsys.readouterr().err
