"""``knorri-sim bench --agents``: a lineup's deals per CPU second on each path the runner can take, for every game."""

from __future__ import annotations

import json

import pytest

from experiments.cli import main

BATCH_RANDOM = "agents.examples.batch_random:BatchRandom"
PYTHON_RANDOM = "runner_fixtures.agents:PythonRandom"


def _cases(capsys, argv):
    assert main(["bench", *argv, "--repeat", "1", "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize(("game", "agents", "unit"), [
    ("knorri", "greedy", "hands"),
    ("knockout-whist", f"{BATCH_RANDOM};random;greedy", "games"),
    ("kort", "random", "matches"),
])
def test_a_lineup_is_timed_on_both_paths_in_its_games_unit(capsys, game, agents, unit):
    cases = _cases(capsys, ["--game", game, "--agents", agents, "--hands", "60"])
    assert [case["path"] for case in cases] == ["compiled", "reference"]
    assert [case[unit] for case in cases] == [60, 1]  # the reference path plays a fiftieth
    assert all(case[f"{unit}_per_s"] > 0 and case["game"] == game for case in cases)
    assert cases[0]["seats"] == (3 if game == "knockout-whist" else 4)


def test_a_path_the_lineup_cannot_take_is_said_so_and_the_other_timed(capsys):
    cases = _cases(capsys, ["--agents", f"{PYTHON_RANDOM};random;random;random", "--hands", "2"])
    assert "compiled engine plays only" in cases[0]["unavailable"]
    assert cases[1]["path"] == "reference" and cases[1]["hands_per_s"] > 0


@pytest.mark.parametrize(("argv", "says"), [
    (["--agents", "random;random", "--seats", "4"], "--agents: 2 agent specs for 4 seats"),
    (["--agents", "random", "--workers", "1"], "--workers is not for --agents"),
    (["--agents", "random", "--hands", "5", "--games", "5"], "give one count with --agents"),
    (["--game", "kort", "--agents", "random;random"], "Kort is always played by 4 seats"),
    (["--agents", "nobody"], "unknown agent 'nobody'"),
])
def test_a_bad_lineup_bench_is_one_line_and_exit_2(capsys, argv, says):
    assert main(["bench", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_the_header_says_how_many_deals_each_path_timed_in_the_right_number(capsys):
    # 40 hands on the compiled path make the reference path's fiftieth a single hand: "1 hand", not "1 hands"
    assert main(["bench", "--agents", "greedy", "--hands", "40", "--repeat", "1"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("each timing plays 40 hands on the compiled path and 1 hand on the reference path.")
