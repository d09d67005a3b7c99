"""A user's own folders never shadow the harness: a bot beside a folder named like a harness package runs, and
a user's own `sim` package is refused before the harness imports it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


def test_a_users_own_folder_never_shadows_the_harness(tmp_path):
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


def test_a_users_own_sim_package_is_refused_before_the_harness_imports_it(tmp_path):
    # a sim/ of the user's would be imported by the harness's other packages in place of the engines
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim" / "__init__.py").write_text("")
    theirs, ours = str(tmp_path.resolve() / "sim"), str(ROOT / "sim")
    for statement in ("from experiments.analysis.knorri.load import load_run", "import agents", "import rl.gym_env"):
        imported = _in(tmp_path, sys.executable, "-c", statement)
        last = (imported.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        assert imported.returncode == 1 and last.startswith("sim.harness.HarnessShadowedError: "), (statement, last)
        assert theirs in last and ours in last and "rename it" in last
