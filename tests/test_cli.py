"""The knorri-sim command line: traj prints the conformance lines; bad input is one line and exit 2."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, ROOT

from experiments.cli import main

VECTORS = DATA / "conformance" / "knorri"


def vector_lines(n_seats: int, first: int, start: int, stop: int) -> list[str]:
    lines = (VECTORS / f"traj_seats{n_seats}_first{first}.txt").read_text().splitlines()
    by_seed = {int(line.split()[0]): line for line in lines}
    return [by_seed[seed] for seed in range(start, stop)]


def console_script() -> list[str]:
    """The installed ``knorri-sim`` script, or the same entry point through the interpreter."""
    script = shutil.which("knorri-sim")
    return [script] if script else [sys.executable, "-m", "experiments.cli"]


@pytest.mark.parametrize("n_seats, first, start, stop",
                         [(3, 2, 0, 4), (4, 0, 0, 5), (5, 4, 500, 503), (6, 0, 997, 1000)])
def test_traj_prints_the_conformance_vector_lines(capsys, n_seats, first, start, stop):
    code = main(["traj", "--seats", str(n_seats), "--first", str(first), "--seeds", str(start), str(stop)])
    assert code == 0
    assert capsys.readouterr().out.splitlines() == vector_lines(n_seats, first, start, stop)


def test_version_prints_the_installed_packages_version_and_exits_0(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"knorri-sim {importlib.metadata.version('knorri-sim')}"


def test_the_installed_command_prints_the_same_lines():
    done = subprocess.run([*console_script(), "traj", "--seats", "4", "--first", "3", "--seeds", "10", "13"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == vector_lines(4, 3, 10, 13)


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the command expecting a user error: exit code 2 and exactly one line on stderr."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own checks exit from inside the parser
        code = stop.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("knorri-sim: error: ")
    return captured.err.strip()


@pytest.mark.parametrize("argv, says", [
    (["traj", "--seats", "7", "--seeds", "0", "2"], "Knorri is for 3 to 6 seats, not 7"),
    (["traj", "--seats", "2", "--seeds", "0", "2"], "Knorri is for 3 to 6 seats, not 2"),
    (["traj", "--seats", "4", "--first", "9", "--seeds", "0", "2"], "first seat must be a seat from 0 to 3, not 9"),
    (["traj", "--seats", "4", "--seeds", "5", "3"], "--seeds A B needs 0 <= A <= B"),
    (["traj", "--seats", "four", "--seeds", "0", "2"], "invalid int value: 'four'"),
    (["traj", "--seats", "4"], "required: --seeds"),
    (["play", "--seats", "7"], "Knorri is for 3 to 6 seats, not 7"),
    (["play", "--seats", "4", "--first", "9"], "first seat must be a seat from 0 to 3, not 9"),
    (["play", "--agents", "nosuchagent"], "unknown agent 'nosuchagent'"),
    (["play", "--agents", "random:depth"], "parameter 'depth' is not key=value"),
    (["play", "--agents", "random:=3"], "is not key=value"),
    (["play", "--agents", "random:depth=3"], "agent 'random' has no parameter 'depth'"),
    (["play", "--agents", "no_such_module.sub:Agent"], "cannot import 'no_such_module.sub'"),
    (["play", "--seats", "4", "--agents", "random;random"], "--agents: 2 agent specs for 4 seats"),
    (["play", "--hands", "0"], "at least one deal, not 0"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, says):
    assert says in one_line_error(capsys, argv)


@pytest.mark.parametrize("command", [
    ["run", "--hands", "4"],
    ["league", "--agents", "random,greedy", "--deals", "1"],
    ["train", "--hands", "4"],
])
@pytest.mark.parametrize("seats, says", [
    ("4,x", "--seats takes seat counts separated by commas (4, or 3,4,5,6), not '4,x'"),
    ("4,5,4", "--seats names each seat count once, not '4,5,4'"),
    (",", "--seats: seats must name at least one seat count, not ','"),
])
def test_every_command_reads_a_list_of_seat_counts_the_same_way(tmp_path, capsys, command, seats, says):
    """One reading of ``--seats 3,4,5,6`` for every command that plays at several counts: the same words, exit code
    2 and nothing written for a list that is not one."""
    out = tmp_path / "out"
    assert one_line_error(capsys, [*command, "--seats", seats, "--out", str(out)]) == f"knorri-sim: error: {says}"
    assert not out.exists()


@pytest.mark.parametrize("command", [console_script(), [sys.executable, "-m", "experiments.cli"]],
                         ids=["installed", "python -m"])
def test_the_command_reports_bad_input_without_a_traceback(command):
    done = subprocess.run([*command, "traj", "--seats", "4", "--seeds", "5", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "knorri-sim: error: --seeds A B needs 0 <= A <= B, not 5 1\n"


def test_play_prints_a_hand_to_its_result(capsys):
    assert main(["play", "--seats", "3", "--seed", "4", "--first", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Knorri, seed 4") and any(line.startswith("result: ") for line in out)
