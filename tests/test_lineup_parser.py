"""The one lineup parser: every command and config reads ``--agents`` the same way (``agents.lineup``)."""

from __future__ import annotations

import json

import pytest

from agents.base import AgentSpecError
from agents.lineup import LineupError, fill_seats, parse_lineup, split_agent_specs
from experiments.cli import main


def test_a_semicolon_separates_specs_and_commas_then_stay_inside_them():
    assert split_agent_specs("mcts:iters=400,c=1.4;random") == ["mcts:iters=400,c=1.4", "random"]


def test_without_a_semicolon_a_comma_starts_a_spec_unless_a_key_value_follows():
    assert split_agent_specs("random,mcts:iters=400,c=1.4,greedy") == ["random", "mcts:iters=400,c=1.4", "greedy"]


def test_an_empty_piece_is_refused_and_named():
    with pytest.raises(LineupError, match=r"piece 2 of 3 \(split at ';'\) is empty"):
        split_agent_specs("random;;greedy")


def test_a_trailing_colon_is_refused_as_the_spec_it_is():
    with pytest.raises(AgentSpecError, match="nothing follows a ':'"):
        split_agent_specs("greedy;random:")


def test_one_spec_fills_every_seat():
    assert parse_lineup("greedy", 4) == ["greedy"] * 4


def test_a_lineup_of_another_length_than_the_seats_is_refused():
    with pytest.raises(LineupError, match="--agents: 2 agent specs for 3 seats"):
        fill_seats(["random", "greedy"], 3)


@pytest.mark.parametrize("command", [
    ["play"], ["bench", "--hands", "4", "--repeat", "1", "--engine", "reference", "--json"],
    ["league", "--seats", "3", "--deals", "1", "--workers", "1", "--no-progress"],
    ["duel", "greedy", "random", "--seats", "3", "--max-deals", "1", "--workers", "1", "--no-progress", "--others"],
])
def test_every_command_refuses_an_empty_piece_in_the_same_words(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = [*command, "random;;greedy"] if command[-1] == "--others" else [*command, "--agents", "random;;greedy"]
    assert main(words) == 2
    err = capsys.readouterr().err
    assert "piece 2 of 3 (split at ';') is empty" in err and err.count("\n") == 1


def test_bench_reads_a_comma_separated_lineup_as_run_does(capsys):
    assert main(["bench", "--agents", "random,greedy,random", "--hands", "4", "--repeat", "1", "--engine",
                 "reference", "--json"]) == 0
    case = json.loads(capsys.readouterr().out.splitlines()[0])
    assert case["agents"] == "random;greedy;random" and case["seats"] == 3


def test_an_rl_environments_opponents_are_read_by_the_same_parser():
    from rl.common import lineup

    assert lineup("random,mcts:iters=40,c=1.4,greedy", 4, 0) == ["random", "mcts:iters=40,c=1.4", "greedy"]
    assert lineup("greedy", 4, 2) == ["greedy"] * 3
    with pytest.raises(LineupError, match=r"opponents 'random;;greedy': piece 2 of 3 \(split at ';'\) is empty"):
        lineup("random;;greedy", 4, 0)
