"""The site's first-bot page: a whole short bot, and knorri-sim finding it from its folder or by PYTHONPATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_readme_commands import page_files

ROOT = Path(__file__).resolve().parents[1]


# ----- your first bot -------------------------------------------------------------------------------------------

FIRST_BOT = ROOT / "docs" / "first_bot.md"
CLI = Path(sys.executable).parent / "knorri-sim"


def _first_bot() -> tuple[str, str]:
    (saved,) = page_files(FIRST_BOT.read_text(encoding="utf-8"))
    return saved


def test_the_first_bot_page_shows_a_whole_short_bot_and_is_on_the_site():
    name, code = _first_bot()
    assert name == "lowbot.py" and len(code.strip().splitlines()) <= 20
    namespace: dict = {}
    exec(compile(code, name, "exec"), namespace)  # the page's code as the reader saves it
    bot = namespace["LowBot"](seed=1)
    bot.reset(0, 4)
    assert bot.name == "lowbot" and bot.act(None, [13, 27, 52]) == 13  # the 2 of diamonds, lowest by rank
    assert bot.act(None, [52]) == 52  # only a pick-up: it picks up
    assert "first_bot.md" in (ROOT / "mkdocs.yml").read_text()


def test_the_first_bot_is_found_from_its_folder_and_from_anywhere_by_pythonpath(tmp_path):
    name, code = _first_bot()
    bots, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    bots.mkdir()
    elsewhere.mkdir()
    (bots / name).write_text(code)
    play = [str(CLI), "play", "--seats", "4", "--seed", "3", "--agents", "lowbot:LowBot;greedy;random;random"]
    here = subprocess.run(play, cwd=bots, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert here.returncode == 0, here.stderr
    assert here.stdout.startswith("Knorri, seed 3, agents: lowbot:LowBot; greedy; random; random")
    lost = subprocess.run(play, cwd=elsewhere, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert lost.returncode == 2 and lost.stderr.count("\n") == 1 and "lowbot" in lost.stderr
    found = subprocess.run(play, cwd=elsewhere, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(bots)])})
    assert found.returncode == 0 and found.stdout == here.stdout
