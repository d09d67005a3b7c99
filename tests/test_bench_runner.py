"""The runner's benchmarks warm up on the compiled engine, so no timed run compiles (``experiments.bench.runner``)."""

from __future__ import annotations

import argparse
import subprocess

import pytest

from experiments.bench import runner

ARGS = argparse.Namespace(seats=4, agents="random", assign="fixed", hands=10_000_000, seed=0, workers=2,
                          chunk_hands=None)


def _recorded(monkeypatch, compiled_exit: int) -> list[list[str]]:
    calls: list[list[str]] = []

    def run(command, **kwargs):
        calls.append(command)
        code = compiled_exit if "--engine" in command else 0
        if kwargs.get("check") and code:
            raise subprocess.CalledProcessError(code, command)
        return subprocess.CompletedProcess(command, code)

    monkeypatch.setattr(runner.subprocess, "run", run)
    return calls


def test_the_warm_up_asks_for_the_compiled_engine_which_a_small_random_run_would_not_take(monkeypatch, tmp_path):
    calls = _recorded(monkeypatch, compiled_exit=0)
    runner.warm_up(ARGS, str(tmp_path))
    (command,) = calls
    assert command[command.index("--engine") + 1] == "compiled"
    assert command[command.index("--hands") + 1] == "1000"


def test_a_lineup_the_compiled_code_cannot_play_warms_up_as_the_timed_runs_play(monkeypatch, tmp_path):
    calls = _recorded(monkeypatch, compiled_exit=2)
    runner.warm_up(ARGS, str(tmp_path))
    assert len(calls) == 2 and "--engine" in calls[0] and "--engine" not in calls[1]


def test_a_warm_up_that_fails_on_every_route_is_raised(monkeypatch, tmp_path):
    def run(command, **kwargs):
        if kwargs.get("check"):
            raise subprocess.CalledProcessError(1, command)
        return subprocess.CompletedProcess(command, 1)

    monkeypatch.setattr(runner.subprocess, "run", run)
    with pytest.raises(subprocess.CalledProcessError):
        runner.warm_up(ARGS, str(tmp_path))
