"""`knorri-sim play` takes what `run` takes: commas between agents, `--game`, a 64-bit seed, each game's options,
and a run's row by its seed."""

from __future__ import annotations

import re

import pyarrow.parquet as pq
import pytest

from experiments.cli import main

# ----- play ---------------------------------------------------------------------------------------------------


def test_play_accepts_commas_between_agents_as_run_does(capsys):
    assert main(["play", "--seed", "3", "--agents", "greedy,random,mcts:iters=5,c=0.5,random"]) == 0
    assert "agents: greedy; random; mcts:iters=5,c=0.5; random" in capsys.readouterr().out


@pytest.mark.parametrize(("words", "ending"), [
    (["--game", "knockout-whist", "--seats", "3", "--agents", "random;greedy;tracker", "--option", "rainbow=true"],
     r"end \((last_trick|last_standing|rainbow)\): scores \[.*\]"),
    (["--game", "kort", "--agents", "greedy,random,greedy,random", "--option", "target_wins=1"],
     r"end \(target_reached\): scores \[(1, -1, 1, -1|-1, 1, -1, 1)\]"),
])
def test_play_plays_knockout_whist_and_kort_with_game(words, ending, capsys):
    assert main(["play", "--seed", "5", *words]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(ending, lines[-1]) and len(lines) > 10


def test_play_replays_a_kort_row_of_a_run_from_its_seed(kort_run, capsys):
    row = pq.read_table(kort_run / "hands").to_pandas().iloc[3]
    lineup = ";".join(row[f"agent_{seat}"] for seat in range(4))
    assert main(["play", "--game", "kort", "--seed", str(row["seed"]), "--agents", lineup, "--option",
                 "target_wins=2"]) == 0
    scores = [int(row[f"score_{seat}"]) for seat in range(4)]
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"end (target_reached): scores {scores}"


@pytest.mark.parametrize("seed", ["-1", str(2**64 + 5)])
def test_play_refuses_a_seed_outside_64_bits_naming_the_seed(seed, capsys):
    assert main(["play", "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert "--seed must be from 0 to 2**64 - 1" in err and "agent" not in err and err.count("\n") == 1


def test_play_refuses_options_of_another_game_in_one_line(capsys):
    assert main(["play", "--option", "rainbow=true"]) == 2
    assert "unknown option 'rainbow': Knorri's options are cap, repeat" in capsys.readouterr().err
