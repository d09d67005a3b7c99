"""The second hour of a new user (issue 28), one test per point fixed: a user's own folders never shadow the
harness, configs by name, errors in a user's agent that name its file and line, messages that do not surprise,
the data read elsewhere and a wheel holding only the current tree, and lighter installs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from experiments.cli import main
from experiments.runner.config import CONFIG_DIR, config_path, config_summary, shipped_configs
from experiments.runner.storage import read_manifest

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "knorri-sim"

LOW_BOT = '''
class LowBot:
    """Plays the lowest legal id."""

    def __init__(self, seed=0):
        self.name = "low"

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        return min(legal)
'''


def _in(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run ``argv`` as a subprocess in ``folder``, with this tree's code on PYTHONPATH as an install would be."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_1_a_users_own_folder_never_shadows_the_harness(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "agents" / "lowbot.py").write_text(textwrap.dedent(LOW_BOT))
    (tmp_path / "mybot.py").write_text(textwrap.dedent(LOW_BOT))
    theirs, ours = str(tmp_path.resolve() / "agents"), str(ROOT / "agents")
    # the console script: the working directory comes after the harness, so ./mybot.py is found ...
    played = _in(tmp_path, str(CLI), "play", "--agents", "mybot:LowBot;random;random;random")
    assert played.returncode == 0, played.stderr
    # ... and a spec inside the user's agents/ folder is refused in one line naming both folders
    refused = _in(tmp_path, str(CLI), "play", "--agents", "agents.lowbot:LowBot;random;random;random")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert theirs in refused.stderr and ours in refused.stderr and "rename it" in refused.stderr
    # python in that folder puts it first on sys.path: importing the harness refuses the folder, naming both
    imported = _in(tmp_path, sys.executable, "-c", "from experiments.analysis.knorri.load import load_run")
    last = imported.stderr.strip().splitlines()[-1]
    assert imported.returncode == 1 and "HarnessShadowedError" in last and theirs in last and ours in last


def test_2_a_shipped_config_is_run_by_its_name_and_listed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # outside the repository: the name finds the installed file
    assert main(["run", "--list-configs"]) == 0
    listed = capsys.readouterr().out.splitlines()
    shipped = shipped_configs()
    assert {"default", "seat_counts", "kort"} <= set(shipped)
    for name, path in shipped.items():
        assert any(line.split()[0] == name and config_summary(path) in line for line in listed)
    assert config_path("seat_counts") == CONFIG_DIR / "seat_counts.yaml"
    assert main(["run", "--config", "seat_counts", "--seats", "3", "--hands", "6", "--out", "out", "--workers", "1",
                 "--no-progress"]) == 0
    assert read_manifest(tmp_path / "out")["config"]["name"] == "seat_counts"
    assert main(["run", "--config", "seat_count"]) == 2
    err = capsys.readouterr().err
    assert "no shipped config has that name" in err and "seat_counts" in err and err.count("\n") == 1
