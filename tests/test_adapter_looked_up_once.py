"""A run looks its game's adapter up once, when its config is built: the plan, each chunk's task and everything a
chunk calls are handed that adapter, and a worker process that receives a task looks it up once for it."""

from __future__ import annotations

import pickle

import pytest
from conftest import count_arguments

import sim.games
from experiments.cli import main
from experiments.runner import routes
from experiments.runner.config import build_config
from experiments.runner.execute import plan_run, run_experiment

ROUTES = {  # a lineup on every route of every built-in game, and of Ten (a plug-in game on the reference route)
    "knorri engine": ("knorri", ["random", "greedy", "random"], routes.ENGINE),
    "knorri lineup": ("knorri", ["random", "greedy", "loginf", "mcts:iters=20"], routes.LINEUP),
    "knorri batch": ("knorri", ["agents.examples.batch_random:BatchRandom", "random", "greedy", "random"],
                     routes.BATCH),
    "knorri reference": ("knorri", ["agents.examples.highest_card:HighestCardAgent", "random", "greedy", "loginf"],
                         routes.REFERENCE),
    "knockout-whist lineup": ("knockout-whist", ["random", "tracker", "mcts:iters=20,seed=3", "greedy"],
                              routes.LINEUP),
    "kort lineup": ("kort", ["greedy", "tracker", "mcts:iters=10", "random"], routes.LINEUP),
    "ten reference": ("ten", ["random", "lowest"], routes.REFERENCE),
}


@pytest.fixture
def lookups(monkeypatch) -> list[str]:
    """Every game name ``sim.games.adapter`` is asked for from now on."""
    return count_arguments(monkeypatch, sim.games.adapter, (sim.games, "adapter"))


@pytest.mark.parametrize("case", ROUTES)
def test_no_adapter_is_looked_up_after_the_config_is_built(case, tmp_path, lookups):
    game, lineup, route = ROUTES[case]
    config = build_config({"game": game, "seats": len(lineup), "agents": lineup, "hands": 8, "assign": "rotate",
                           "chunk_hands": len(lineup), "workers": 1, "log_actions": route == routes.REFERENCE})
    assert lookups == [game], "the config looks its adapter up"
    lookups.clear()
    assert [table.route for table in plan_run(config).tables] == [route]
    manifest = run_experiment(config, tmp_path / "run")
    assert len(manifest["chunks_complete"]) > 1 and lookups == []


def test_the_run_command_looks_the_adapter_up_once(tmp_path, lookups, capsys):
    assert main(["run", "--seats", "4", "--agents", "random;greedy;loginf;mcts", "--hands", "8", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path / "run")]) == 0
    assert "8 hands in 2 chunks" in capsys.readouterr().out
    assert lookups == ["knorri"]


def test_a_task_sent_to_a_worker_leaves_the_adapter_behind_and_looks_it_up_once(lookups):
    config = build_config({"game": "kort", "seats": 4, "agents": ["random"], "hands": 8})
    task = plan_run(config.replaced(workers=2)).tasks[0]
    assert task.adapter is config.adapter and lookups == ["kort"]  # the config's, in the process that planned it
    copy = pickle.loads(pickle.dumps(task))
    assert "_adapter" not in copy.__dict__ and copy == task
    assert copy.adapter is copy.adapter is config.adapter and lookups == ["kort", "kort"]
