"""Plug-ins are found through entry points, and a broken one is named in one line and skipped, never a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from sim import plugins


def broken_plugin(folder: Path, group: str, name: str, target: str) -> Path:
    """A distribution's metadata alone, declaring one entry point of ``group`` that names ``target``."""
    info = folder / f"broken_{name}_{group.split('.')[-1]}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: broken-{name}-{group.split('.')[-1]}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {target}\n")
    return folder


def test_a_broken_plug_in_is_named_in_one_line_and_skipped(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(broken_plugin(tmp_path, plugins.GAMES, "nine", "no_such_package.adapter")))
    loaded = dict(plugins.load_modules(plugins.GAMES))
    assert "nine" not in loaded and {"knorri", "knockout-whist", "kort"} <= set(loaded)
    err = capsys.readouterr().err
    assert err == ("knorri-sim: skipping plug-in nine = no_such_package.adapter (knorri_sim.games): "
                   "ModuleNotFoundError: No module named 'no_such_package'\n")
    plugins.load_modules(plugins.GAMES)
    assert capsys.readouterr().err == ""  # said once a process


def test_a_command_still_plays_beside_a_broken_game_and_a_broken_agent_package(tmp_path):
    folder = broken_plugin(tmp_path / "games", plugins.GAMES, "nine", "no_such_package.adapter")
    agents = broken_plugin(tmp_path / "agents", plugins.AGENTS, "nine", "no_such_package.bots")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(agents), str(ROOT)])}
    result = subprocess.run([sys.executable, "-m", "experiments.cli", "play", "--seed", "3"], cwd=ROOT,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0 and result.stdout.startswith("Knorri, seed 3")
    skipped = sorted(line for line in result.stderr.splitlines() if "skipping plug-in" in line)
    assert skipped == [
        "knorri-sim: skipping plug-in nine = no_such_package.adapter (knorri_sim.games): "
        "ModuleNotFoundError: No module named 'no_such_package'",
        "knorri-sim: skipping plug-in nine = no_such_package.bots (knorri_sim.agents): "
        "ModuleNotFoundError: No module named 'no_such_package'",
    ]
