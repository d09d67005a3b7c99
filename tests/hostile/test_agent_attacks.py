"""Hostile input by agents: one that never answers in play, one that ends the process, one that answers
something that is not a legal id, one whose constructor fails, one that prints, and Ctrl-C. Each is one line that
names where in the agent's file to look, and an agent's output never lands in a command's own output."""

from __future__ import annotations

import pytest

from experiments.cli import build_parser, main
from experiments.runner.config import DECISION_TIMEOUT
from hostile.runs import finish, knorri_sim, one_line

BOTS = "tests/hostile/bots.py:"  # where the message points: a file and line of the agent's own module


def play(agent, capsys, *options):
    code = main(["play", "--seats", "3", "--seed", "5", "--agents", f"hostile.bots:{agent};random;greedy", *options])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_play_has_the_decision_time_limit_run_has(capsys):
    assert build_parser().parse_args(["play"]).decision_timeout == DECISION_TIMEOUT
    code, _, err = play("Sleeper", capsys, "--decision-timeout", "0.5")
    assert code == 1 and "no answer from act() within 0.5 s" in one_line(err) and BOTS in err


@pytest.mark.parametrize("agent, says", [
    ("Illegal", "chose illegal action 99"),
    ("ReturnsNone", "act() returned NoneType None"),
    ("ReturnsFloat", "act() returned float"),
    ("ReturnsText", "act() returned str"),
])
def test_an_answer_that_is_not_a_legal_id_names_the_agents_act_by_file_and_line(capsys, agent, says):
    code, _, err = play(agent, capsys)
    assert code == 1 and says in one_line(err) and "(act() at " in err and BOTS in err


def test_a_constructor_that_fails_is_named_with_its_exception_and_line(capsys):
    code, _, err = play("BadConstructor", capsys)
    assert code == 2 and "failed to start: RuntimeError: ctor fails (raised at " in one_line(err) and BOTS in err


def test_ctrl_c_in_play_says_it_was_interrupted(capsys):
    code, _, err = play("Interrupted", capsys)
    assert code == 130 and err == "knorri-sim: interrupted (Ctrl-C)\n"


def test_what_an_agent_prints_goes_to_stderr_not_into_the_log_or_the_summary(tmp_path, capsys):
    code, out, err = play("Chatty", capsys)
    assert code == 0 and "chatty thinks" in err and "chatty thinks" not in out
    assert main(["run", "--seats", "3", "--agents", "hostile.bots:Chatty;random;random", "--hands", "3",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "run")]) == 0
    captured = capsys.readouterr()
    assert "chatty thinks" in captured.err and "chatty thinks" not in captured.out and "seat-hands" in captured.out


def test_an_agent_that_ends_a_one_worker_run_is_named_in_one_line(tmp_path):
    out = tmp_path / "run"
    code, _, err = finish(knorri_sim("run", "--seats", "3", "--agents", "hostile.bots:Exits;random;random",
                                     "--assign", "fixed", "--hands", "3", "--workers", "1", "--no-progress",
                                     "--out", str(out)))
    assert code == 1 and "an agent ended the process itself" in one_line(err) and "os._exit(7)" in err
    assert f"knorri-sim run --resume {out}" in err


def test_a_run_whose_agent_never_answers_names_the_line_it_waits_on(tmp_path, capsys):
    assert main(["run", "--seats", "3", "--agents", "hostile.bots:Sleeper;random;random", "--hands", "3",
                 "--workers", "1", "--no-progress", "--decision-timeout", "0.5", "--out", str(tmp_path / "run")]) == 1
    err = one_line(capsys.readouterr().err)
    assert "no answer from act() within 0.5 s" in err and "waiting at " in err and BOTS in err
