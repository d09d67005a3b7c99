"""Every built-in game's run replays a row the same from its actions table as from its seed and lineup, drawn for
an analyst or for one seat, and ends on the row's result."""

from __future__ import annotations

import shutil

import pytest
from replay_runs import RUN_SETTINGS, small_run

from experiments.replay.build import run_replay
from experiments.replay.page import page_html


@pytest.mark.parametrize("game", sorted(RUN_SETTINGS))
def test_a_runs_row_replays_alike_from_its_actions_and_from_its_seed(game, tmp_path):
    logged = small_run(tmp_path / "logged", game, hands=4, log_actions=True)
    unlogged = tmp_path / "unlogged"
    shutil.copytree(logged, unlogged)
    shutil.rmtree(unlogged / "actions")
    from_actions, from_seed = run_replay(logged, 2), run_replay(unlogged, 2)
    assert from_actions.frames == from_seed.frames and from_actions.lines == from_seed.lines
    assert "end (" in from_actions.frames[-1] and "end (" not in from_actions.frames[0]
    for_seat = run_replay(unlogged, 2, seat=1)
    assert for_seat.steps == from_seed.steps and for_seat.frames != from_seed.frames
    assert f"step 0 / {from_seed.steps}" in page_html(for_seat)
