"""An error raised in a user's agent names its file and line, and --debug prints the whole traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "knorri-sim"


def _in(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run ``argv`` as a subprocess in ``folder``, with this tree's code on PYTHONPATH as an install would be."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


BOOM_BOT = '''
def explode():
    raise RuntimeError("boom inside act")


class Boom:
    """Raises from a helper of its own module at its third decision."""

    def __init__(self, seed=0):
        self.name, self.decisions = "boom", 0

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        self.decisions += 1
        if self.decisions == 3:
            explode()
        return legal[0]
'''


def test_an_agents_error_names_its_file_and_line_and_debug_prints_the_traceback(tmp_path):
    bot = tmp_path / "boombot.py"
    bot.write_text(textwrap.dedent(BOOM_BOT))
    line = 1 + textwrap.dedent(BOOM_BOT).splitlines().index('    raise RuntimeError("boom inside act")')
    play = [str(CLI), "play", "--agents", "boombot:Boom;random;random;random"]
    failed = _in(tmp_path, *play)
    assert failed.returncode == 1, failed.stderr  # an agent failing is not bad input (2)
    assert failed.stderr.count("\n") == 1 and f"boom inside act in act() at {bot}:{line}" in failed.stderr
    debug = _in(tmp_path, *play, "--debug")
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr
    assert "in explode" in debug.stderr and debug.stderr.strip().splitlines()[-1] == failed.stderr.strip()
    run = [str(CLI), "run", "--seats", "4", "--agents", "boombot:Boom;random;random;random", "--hands", "4",
           "--workers", "1", "--no-progress"]
    stopped = _in(tmp_path, *run, "--out", "one")
    assert stopped.returncode == 1 and f"at {bot}:{line}" in stopped.stderr and "Traceback" not in stopped.stderr
    traced = subprocess.run([*run, "--out", "two"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "KNORRI_SIM_DEBUG": "1"})
    assert traced.returncode == 1 and "Traceback (most recent call last)" in traced.stderr
    assert "in explode" in traced.stderr
