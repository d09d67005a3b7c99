"""A run compiles only what its lineups run, says so when the cache lacks it, and compiles it once."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, compile_cache_as

from experiments.runner import routes
from experiments.runner.compiling import code_to_compile, cold_routes, compile_notice, lineup_code
from experiments.runner.config import build_config, default_config, load_file
from experiments.runner.execute import plan_run
from experiments.runner.plan import table_plans
from sim import compile_cache

TESTS = Path(__file__).resolve().parent


def test_the_default_run_compiles_only_its_lineup_kernel():
    config = build_config(load_file(default_config("knorri")))
    assert list(lineup_code(config)) == ["agents.knorri.lineup:_play_searching"]


def test_a_lineup_the_compiled_engine_plays_compiles_its_kernel_and_python_agents_their_own():
    compiled = build_config({"seats": 4, "agents": ["random", "greedy"] * 2, "hands": 8})
    assert list(lineup_code(compiled)) == ["sim.knorri.compiled.playout"]
    assert list(lineup_code(build_config({"seats": 3, "agents": ["random", "greedy", "loginf"], "hands": 3}))) == [
        "agents.knorri.lineup:_play_plain"]
    python = build_config({"seats": 3, "agents": ["agents.knorri.loginf:LogInfAgent", "random", "mcts"], "hands": 3})
    # the reference path: each agent's own kernels, the look-ahead and the stepped rows loginf and mcts share
    # counted once
    assert lineup_code(python) == {"agents.knorri.search:lookahead_choice": 13.0,
                                   "sim.knorri.compiled.kernels:take_action": 1.0,
                                   "agents.knorri.search:lookahead_from_root": 6.0, "agents.knorri.decision": 21.0}
    kort = build_config({"game": "kort", "seats": 4, "agents": ["random"], "matches": 4})
    assert lineup_code(kort) == {"sim.kort.compiled.playout": 7.5}
    assert list(lineup_code(build_config({"game": "kort", "seats": 4, "agents": ["tracker"], "matches": 4}))) == [
        "agents.kort.lineup:_play_plain"]
    assert list(lineup_code(build_config({"game": "knockout-whist", "seats": 4, "agents": ["greedy"],
                                          "hands": 4}))) == ["agents.knockout_whist.lineup:_play_plain"]


@pytest.mark.parametrize(("game", "size", "other"), [
    ("knorri", "hands", "loginf"), ("knockout-whist", "hands", "tracker"), ("kort", "matches", "tracker")])
def test_a_lineup_compiles_the_search_only_with_an_mcts_seat(game, size, other):
    module, plain, searching = f"agents.{game.replace('-', '_')}.lineup", "_play_plain", "_play_searching"
    without = lineup_code(build_config({"game": game, "seats": 4, "agents": [other, "greedy"] * 2, size: 4}))
    with_mcts = lineup_code(build_config({"game": game, "seats": 4, "agents": [other, "mcts:iters=10"] * 2, size: 4}))
    assert list(without) == [f"{module}:{plain}"] and list(with_mcts) == [f"{module}:{searching}"]
    assert without[f"{module}:{plain}"] < with_mcts[f"{module}:{searching}"]


def test_the_notice_gives_the_measured_seconds_and_nothing_cached_means_nothing_said(monkeypatch):
    assert compile_notice({"a": 30.2, "b": 12.5}) == (
        "compiling the engine (first use): it took 43 s of CPU when measured on a quiet machine, and takes longer on "
        "a loaded or slower one")
    assert compile_notice({}) is None
    config = build_config({"seats": 4, "agents": ["random"], "hands": 4})
    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: True)
    assert code_to_compile(config) == {}
    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: False)
    assert code_to_compile(config) == lineup_code(config)
    assert code_to_compile(dataclasses.replace(config, scheduler="tcp://127.0.0.1:8786")) == {}


def test_compiling_first_plays_the_first_chunk_here_and_the_rest_on_the_workers(monkeypatch):
    from concurrent.futures import Future

    from experiments.runner import workers

    handed_to_workers = []

    class Executor:
        def __init__(self, **options):
            pass

        def submit(self, function, *task):
            future = Future()
            if task:
                handed_to_workers.append(task[0])
                future.set_result(f"pooled {task[0]}")
            else:
                future.set_result(function())  # a worker started at once
            return future

        def shutdown(self, **options):
            pass

    compiled_by_workers = []
    monkeypatch.setattr("joblib.externals.loky.process_executor.ProcessPoolExecutor", Executor)
    monkeypatch.setattr(workers, "play_chunk", lambda task: f"played {task}")
    monkeypatch.setattr(workers, "compile_parts", lambda tasks: [lambda: compiled_by_workers.append(tasks)])
    local = workers.LocalWorkers(2)
    results = list(local.results([1, 2, 3], compile_first=True))
    assert results[0] == "played 1" and sorted(results[1:]) == ["pooled 2", "pooled 3"]
    assert handed_to_workers == [2, 3]
    assert compiled_by_workers == [[1, 2, 3]]  # the parts went to the workers as the pool started
    handed_to_workers.clear()
    assert sorted(local.results([1, 2, 3])) == ["pooled 1", "pooled 2", "pooled 3"]
    assert handed_to_workers == [1, 2, 3] and len(compiled_by_workers) == 1  # nothing to compile: no parts


def test_a_first_run_hands_its_workers_each_part_of_its_lineups_code_once():
    from types import SimpleNamespace

    from agents.knorri import search_parts
    from experiments.runner import workers

    def task(index, route, seatings):
        return SimpleNamespace(game="knorri", table=SimpleNamespace(index=index, route=route, seatings=seatings))

    searching = [("random", "mcts:iters=10"), ("mcts:iters=10", "random")]
    tasks = [task(0, routes.LINEUP, searching), task(0, routes.LINEUP, searching),
             task(1, routes.LINEUP, [("loginf", "greedy")]), task(2, routes.ENGINE, [("random", "random")])]
    assert workers.compile_parts(tasks) == list(search_parts.SEARCHING_PARTS)
    assert workers.compile_parts(tasks[2:]) == list(search_parts.PLAIN_PARTS)
    assert workers.compile_parts(tasks[3:]) == []


class _RecordedPool:
    """A stand-in for loky's pool: every worker starts at once and plays what it is handed at once."""

    made: list = []
    handed: list = []
    stopped: list = []

    def __init__(self, **options):
        _RecordedPool.made.append(options)

    def submit(self, function, *task):
        from concurrent.futures import Future

        future = Future()
        if task:
            _RecordedPool.handed.append(task[0])
        future.set_result(f"pooled {task[0]}" if task else function())
        return future

    def shutdown(self, **options):
        _RecordedPool.stopped.append(options)


def _recorded(monkeypatch):
    from experiments.runner import workers

    _RecordedPool.made, _RecordedPool.handed, _RecordedPool.stopped = [], [], []
    monkeypatch.setattr("joblib.externals.loky.process_executor.ProcessPoolExecutor", _RecordedPool)
    monkeypatch.setattr(workers, "play_chunk", lambda task: f"played {task}")
    return workers


def test_a_small_run_of_built_in_code_plays_here_and_starts_no_workers(monkeypatch):
    workers = _recorded(monkeypatch)
    assert list(workers.LocalWorkers(2).results([1, 2, 3], small=True)) == ["played 1", "played 2", "played 3"]
    assert _RecordedPool.made == [] and _RecordedPool.handed == []


def test_a_small_run_still_playing_after_the_delay_hands_the_rest_to_its_workers_once_they_start(monkeypatch):
    workers = _recorded(monkeypatch)
    monkeypatch.setattr(workers, "POOL_DELAY_SECONDS", -1.0)
    results = list(workers.LocalWorkers(2).results([1, 2, 3], small=True))
    assert results[0] == "played 1" and sorted(results[1:]) == ["pooled 2", "pooled 3"]
    assert len(_RecordedPool.made) == 1 and _RecordedPool.handed == [2, 3]


def test_a_long_run_hands_its_chunks_to_the_pool_it_started_before_its_estimate(monkeypatch):
    workers = _recorded(monkeypatch)
    with workers.LocalWorkers(2) as local:
        local.start_early([1, 2, 3], compile_first=False, small=False)
        assert len(_RecordedPool.made) == 1 and _RecordedPool.handed == []  # started, nothing handed yet
        assert sorted(local.results([1, 2, 3])) == ["pooled 1", "pooled 2", "pooled 3"]
    assert len(_RecordedPool.made) == 1 and _RecordedPool.stopped == [{"wait": True, "kill_workers": False}]


def test_a_pool_started_early_for_a_run_that_stops_before_playing_is_stopped_on_leaving(monkeypatch):
    workers = _recorded(monkeypatch)
    with workers.LocalWorkers(2) as local:
        local.start_early([1, 2, 3], compile_first=False, small=False)
    assert _RecordedPool.stopped == [{"wait": False, "kill_workers": True}] and _RecordedPool.handed == []


@pytest.mark.parametrize(("count", "tasks", "compile_first", "small"), [
    (1, [1, 2, 3], False, False), (2, [1], False, False), (2, [1, 2, 3], True, False), (2, [1, 2, 3], False, True)])
def test_no_pool_starts_early_for_a_run_that_plays_here_first(monkeypatch, count, tasks, compile_first, small):
    workers = _recorded(monkeypatch)
    with workers.LocalWorkers(count) as local:
        local.start_early(tasks, compile_first=compile_first, small=small)
    assert _RecordedPool.made == []


def test_only_the_projects_own_code_plays_in_the_runs_own_process():
    from sim import games

    knorri = games.adapter("knorri")
    assert routes.built_in_only(knorri, routes.LINEUP, [("mcts", "loginf", "random")])
    assert routes.built_in_only(knorri, routes.REFERENCE, [("random", "greedy", "random")])
    assert not routes.built_in_only(knorri, routes.REFERENCE, [("runner_fixtures.agents:Dies", "random", "random")])


def test_a_first_run_says_it_compiles_and_a_second_does_not(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]),
           compile_cache.BASE_ENV: str(tmp_path / "cache")}
    notices = []
    for out in ("first", "second"):
        done = subprocess.run(
            [sys.executable, "-m", "experiments.cli", "run", "--seats", "3", "--agents",
             "runner_fixtures.compiled:CompiledLowest;random;random", "--hands", "6", "--workers", "2",
             "--no-progress", "--out", str(tmp_path / out)],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        notices.append(done.stderr)
    assert notices == ["compiling the engine (first use): it took 1 s of CPU when measured on a quiet machine, and "
                       "takes longer on a loaded or slower one\n", ""]


# A command's process: the listener on, then two kernels compiled (not cached) and one more call of the first;
# the notice is due after DELAY seconds of compiling in all (no wait here).
LISTENED = """
from numba import njit
from experiments import compile_notice
compile_notice.DELAY = 0.0
compile_notice.listen()
first = njit(lambda x: x + 1)
second = njit(lambda x: x * 2)
print(first(1), second(2), first(3))
"""


def test_a_command_that_compiles_says_so_once_on_stderr_or_not_again_after_its_own_notice():
    done = subprocess.run([sys.executable, "-c", LISTENED], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "4", "4"]
    assert done.stderr.count("compiling the engine's kernels for first use") == 1
    said_first = LISTENED.replace("compile_notice.listen()",
                                  "compile_notice.say('the run said its own')\ncompile_notice.listen()")
    quiet = subprocess.run([sys.executable, "-c", said_first], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert quiet.stderr.strip() == "the run said its own"  # a command's own notice is not repeated


def test_a_command_whose_compiling_is_over_in_a_moment_says_nothing():
    moment = LISTENED.replace("compile_notice.DELAY = 0.0", "compile_notice.DELAY = 60.0")
    done = subprocess.run([sys.executable, "-c", moment], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["2", "4", "4"], done.stderr
    assert "compiling" not in done.stderr


def _cold_route(cached: bool, monkeypatch, **raw) -> str:
    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: cached)
    config = build_config({"seats": 4, "agents": ["random"], "hands": 400, "workers": 2, **raw})
    return cold_routes(config, table_plans(config))[0].route


def test_a_table_the_reference_engine_plays_before_the_engine_compiles_plays_there(monkeypatch):
    assert _cold_route(False, monkeypatch) == routes.REFERENCE
    assert _cold_route(False, monkeypatch, agents=["greedy", "random"] * 2) == routes.REFERENCE


def test_a_table_stays_on_the_engine_when_its_code_is_cached_or_the_run_outlasts_the_compile(monkeypatch):
    assert _cold_route(True, monkeypatch) == routes.ENGINE
    assert _cold_route(False, monkeypatch, hands=100_000) == routes.ENGINE


def test_a_table_stays_where_the_user_or_the_rules_put_it(monkeypatch):
    assert _cold_route(False, monkeypatch, engine="compiled") == routes.ENGINE
    assert _cold_route(False, monkeypatch, log_actions=True) == routes.ENGINE
    assert _cold_route(False, monkeypatch, options={"cap": 20_000}) == routes.ENGINE
    assert _cold_route(False, monkeypatch, scheduler="tcp://127.0.0.1:8786") == routes.ENGINE
    assert _cold_route(False, monkeypatch, agents=["random", "greedy", "loginf", "mcts"]) == routes.LINEUP


def test_a_cold_run_plays_moved_tables_on_the_chunks_the_engine_would_have(monkeypatch):
    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: True)
    config = build_config({"seats": 4, "agents": ["random"], "hands": 400, "workers": 2})
    warm = plan_run(config)
    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: False)
    cold = plan_run(config)
    assert [task.table.route for task in cold.tasks] == [routes.REFERENCE] * len(cold.tasks)
    assert cold.chunks == warm.chunks and cold.manifest["tables"] == warm.manifest["tables"]
    assert code_to_compile(config, cold.tables) == {}


@pytest.mark.parametrize("argv", [
    ["play", "--seats", "4", "--seed", "3", "--agents", "greedy;random;loginf;random"],
    ["play", "--seats", "4", "--seed", "3", "--hands", "2", "--agents", "loginf;random;random;random"],
    ["replay", "--seats", "4", "--seed", "3", "--agents", "greedy;random;loginf;random"],
])
def test_play_and_a_new_replay_say_what_their_agents_compile_and_how_long_it_took(tmp_path, capsys, monkeypatch,
                                                                                   argv):
    """The agents' declared kernels, as run says its own: the measured seconds when uncached, nothing when cached."""
    from agents.knorri.loginf import LogInfAgent
    from experiments.cli import main

    monkeypatch.chdir(tmp_path)  # replay writes its page here
    for cached, said in ((False, compile_notice(LogInfAgent.COMPILED_CODE)), (True, None)):
        compile_cache_as(monkeypatch, cached)
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert (said in err.splitlines()) if said else "compiling" not in err, err
    assert said is None and LogInfAgent.COMPILED_CODE  # loginf declares its look-ahead


def test_a_new_replay_into_a_folder_is_refused_before_anything_is_played_or_compiled(tmp_path, capsys, monkeypatch):
    from experiments.cli import main
    from experiments.commands import replay

    compile_cache_as(monkeypatch, False)
    monkeypatch.setattr(replay, "fresh_replay", lambda *args: pytest.fail("played before --out was checked"))
    assert main(["replay", "--seed", "3", "--agents", "loginf;random;random;random", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a folder: give a file name" in err, err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_bench_says_what_the_engine_compiles_the_same_on_one_thread_or_several(capsys, monkeypatch, workers):
    """The engine's declared kernels, whatever the threads (they share the serial kernel); nothing when cached."""
    from experiments.cli import main
    from sim import games

    adapter = games.adapter("knorri")
    if workers == "2" and (os.cpu_count() or 1) < 2:
        pytest.skip("a timing on two threads needs two cores")
    expected = dict(adapter.COMPILED_CODE)
    argv = ["bench", "--engine", "compiled", "--seats", "3", "--hands", "50", "--repeat", "1", "--workers", workers]
    for cached, said in ((False, compile_notice(expected)), (True, None)):
        compile_cache_as(monkeypatch, cached)
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert (said in err.splitlines()) if said else "compiling the engine (" not in err, err


@pytest.mark.parametrize(("game", "agents", "size"), [
    ("knorri", ["learned", "greedy", "random", "random"], "hands"),
    ("knockout-whist", ["learned", "greedy", "random", "random"], "hands"),
    ("kort", ["learned", "random", "learned", "random"], "matches")])
def test_a_lineup_on_the_batch_route_compiles_the_batch_engine_beside_its_agents_kernels(game, agents, size):
    """Vectorised agents step the game's batch engine, whose kernels compile too: the estimate counts them."""
    from agents.base import compiled_code
    from sim import games

    config = build_config({"game": game, "seats": 4, "agents": agents, size: 4})
    plans = table_plans(config)
    assert [plan.route for plan in plans] == [routes.BATCH]
    batch = games.adapter(game).BATCH_CODE
    assert batch and all(compile_cache.kernels_cached([module]) in (True, False) for module in batch)  # importable
    assert lineup_code(config, plans) == {**batch, **compiled_code("learned", game, batch=True)}
    assert "agents.knorri.tensor" not in lineup_code(config, plans)  # act_batch scores the batch's own tensors


def test_train_says_what_it_compiles_once_its_folder_is_taken(tmp_path, capsys, monkeypatch):
    """Self-play and its evaluations step the batch engine and the network; a teacher's deals play its agents on
    the reference engine. The line comes after the folder is taken, so a folder it cannot write is one line."""
    from experiments.cli import main
    from experiments.commands.train import training_code
    from sim import games

    adapter = games.adapter("knorri")
    assert training_code(adapter, "knorri", None, None) == {**adapter.BATCH_CODE, "agents.learned.network": 3.0}
    taught = training_code(adapter, "knorri", "mcts", None)  # loginf is among the teacher's default opponents
    assert {"agents.knorri.decision", "agents.knorri.search:lookahead_from_root"} <= set(taught)
    compile_cache_as(monkeypatch, False)
    (tmp_path / "plain").write_text("")
    assert main(["train", "--hands", "8", "--out", str(tmp_path / "plain" / "training")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling" not in err, err
