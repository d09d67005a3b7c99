"""The parts a first run compiles on its idle workers are the very kernels, with the very types, that the lineup
kernel it compiles meanwhile calls (and the Python agents' searches, for ``play``): a part typed otherwise would be
compiled twice and help nobody."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, fresh_kernel

from agents.base import lineup_player
from agents.knockout_whist import decision as whist_decision
from agents.knockout_whist import search as whist_search
from agents.knorri import search, search_parts
from experiments.cli import main
from experiments.commands import play
from experiments.runner import routes
from experiments.runner.parts_beside import parts_compiled_beside
from sim import compile_cache
from sim.compile_cache import cached_signatures

SEARCHING = {"knorri": "random;greedy;loginf;mcts:iters=4", "knockout-whist": "mcts:iters=4;tracker;greedy;random",
             "kort": "mcts:iters=4;tracker;greedy;random"}
PART_KERNELS = {"knorri": [search.lookahead_choice, search.uct_iterations, search.sampled_stock_iterations],
                "knockout-whist": [whist_decision.start_search, whist_search.search]}


def test_knorris_lineup_without_a_search_has_only_the_look_ahead_as_its_part():
    player = lineup_player("knorri")
    assert player.compile_parts(["loginf", "greedy", "random"]) == search_parts.PLAIN_PARTS
    assert player.compile_parts(["loginf", "mcts:iters=4"]) == search_parts.SEARCHING_PARTS


def test_knockout_whist_splits_off_its_search_only_with_mcts_seated_and_kort_nothing():
    whist, kort = lineup_player("knockout-whist"), lineup_player("kort")
    assert whist.compile_parts(["tracker", "greedy", "random", "greedy"]) == ()
    assert len(whist.compile_parts(SEARCHING["knockout-whist"].split(";"))) == 1
    assert kort.compile_parts(SEARCHING["kort"].split(";")) == ()  # measured: it did not pay (docs/speed.md)


# the compiled engine runs the searching lineup kernel; the reference engine seats the Python agents, whose
# searches ``play`` compiles the same parts beside
@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("game", sorted(PART_KERNELS))
def test_each_part_compiles_the_signature_the_searching_lineup_and_the_python_agents_call(game, engine):
    specs = SEARCHING[game].split(";")
    for part in lineup_player(game).compile_parts(specs):
        part()
    routes.play_matches(game, 4, [5], [specs], 1, engine=engine)
    for kernel in PART_KERNELS[game]:
        assert len(cached_signatures(kernel)) == 1, kernel.__name__


# The engine's step is compiled for other types too (the batch engine's rows, the uniform playout), so its parts
# are checked where nothing else compiled: each part, then the step as every position's caller uses it.
ENGINE_CHECK = """
import numpy as np
from sim.compile_cache import cached_signatures, compile_ahead
from sim.knorri import compiled
from sim.knorri.compiled import kernels
for part in compiled.ENGINE_PARTS:
    part()
compile_ahead(kernels.take_action, (compiled.new_position(), np.int64(0)))
for kernel in (kernels._run_phase1, kernels._phase2_action, compiled._play_greedy_jumping_loops):
    print(kernel.__name__, len(cached_signatures(kernel)))
"""


def test_the_engines_parts_compile_the_signatures_its_step_calls(tmp_path):
    env = {**os.environ, compile_cache.BASE_ENV: str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", ENGINE_CHECK], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["_run_phase1 1", "_phase2_action 1", "_play_greedy_jumping_loops 1"]


def test_parts_start_beside_a_process_once_it_compiles_and_not_when_it_compiles_nothing(tmp_path):
    kernel = fresh_kernel()
    warm_marker, cold_marker = tmp_path / "warm", tmp_path / "cold"
    kernel(3)
    with parts_compiled_beside([functools.partial(Path.touch, warm_marker)]) as started:
        assert kernel(4) == 14  # compiled already: nothing compiles, no process starts
    assert not started.is_set()
    with parts_compiled_beside([functools.partial(Path.touch, cold_marker)]) as started:
        assert fresh_kernel()(4) == 14
        deadline = time.monotonic() + 120
        while not cold_marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert started.is_set() and cold_marker.exists() and not warm_marker.exists()


def test_play_compiles_beside_it_the_parts_of_the_lineup_it_seats(monkeypatch, capsys):
    handed = []
    real = play.parts_compiled_beside

    def recording(parts, workers=None):
        handed.append(tuple(parts))
        return real((), workers)

    monkeypatch.setattr(play, "parts_compiled_beside", recording)
    assert main(["play", "--seats", "4", "--seed", "3", "--agents", "greedy;random;loginf;mcts:iters=4"]) == 0
    assert handed == [search_parts.SEARCHING_PARTS]


def test_one_core_starts_no_parts_beside_it(monkeypatch):
    """With one core this process is using it: a part beside it would only take turns with it."""
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    with parts_compiled_beside([functools.partial(print, "never")]) as started:
        assert fresh_kernel()(4) == 14
    assert not started.is_set()
