"""A failing agent is named with its hand index and a replay command, and a module missing on a worker is
reported as the worker's problem."""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace

import pytest

from experiments.cli import main
from experiments.runner.chunk import ChunkTask, run_chunk
from experiments.runner.config import build_config
from experiments.runner.execute import plan_run
from sim.errors import AgentFailure


def _run(tmp_path, *words: str) -> str:
    out = str(tmp_path)
    assert main(["run", *words, "--out", out, "--workers", "1", "--no-progress"]) == 0
    return out


# ----- failures: a replay command, hand_index, worker problems ---------------------------------------------------

FAILING_BOT = '''
class Failing:
    """Raises at its fifth decision."""
    PARAMETERS = {}

    def __init__(self, seed=0):
        self.name, self.decisions = "failing", 0

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        self.decisions += 1
        if self.decisions == 5:
            raise RuntimeError("boom")
        return legal[0]
'''


@pytest.mark.parametrize(("words", "replay"), [
    (["--game", "kort", "--agents", "failing:Failing;random;random;random", "--option", "target_wins=2"],
     "knorri-sim play --game kort --seats 4 --seed {seed} --option target_wins=2 --agents "
     "'failing:Failing;random;random;random'"),
    (["--game", "knockout-whist", "--seats", "3", "--agents", "failing:Failing;random;random"],
     "knorri-sim play --game knockout-whist --seats 3 --seed {seed} --agents 'failing:Failing;random;random'"),
    (["--seats", "3", "--agents", "failing:Failing;random;random"],
     "knorri-sim play --seats 3 --seed {seed} --agents 'failing:Failing;random;random'"),
])
def test_a_failure_names_its_hand_index_and_a_replay_command(words, replay, tmp_path, monkeypatch, capsys):
    (tmp_path / "failing.py").write_text(textwrap.dedent(FAILING_BOT))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", *words, "--hands", "4", "--assign", "fixed", "--out", "out", "--workers", "1",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    seed = re.search(r"with seed (\d+)", err).group(1)
    assert "(hand_index 0)" in err and f"replay it with: {replay.format(seed=seed)};" in err
    assert err.count("\n") == 1


def test_an_agent_module_missing_on_a_worker_is_reported_as_a_worker_problem(tmp_path):
    config = build_config({"seats": [3], "agents": ["random"], "hands": 3, "out": str(tmp_path)})
    task = plan_run(config).tasks[0]
    seating = ("nowhere_module:Bot", "random", "random")
    broken = ChunkTask(task.run_id, task.chunk, replace(task.table, seatings=(seating,), route="reference"),
                       task.master_seed, task.log_actions, task.width,
                       {**task.categories, "agent": [*task.categories["agent"], seating[0]]}, task.game, task.options)
    with pytest.raises(AgentFailure) as failure:
        run_chunk(broken)
    text = str(failure.value)
    assert text.startswith("worker ") and "cannot make an agent the client could" in text
    assert "cannot import 'nowhere_module'" in text and "install the same agent modules on every worker" in text
