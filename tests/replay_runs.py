"""Small runs of each built-in game for the replay tests: reference-engine runs, so nothing compiles for them."""

from __future__ import annotations

from pathlib import Path

from experiments.cli import main

# game -> the run command's game options and lineup: short deals, two different agents
RUN_SETTINGS = {
    "knorri": (["--seats", "4"], "random;greedy;random;greedy"),
    "knockout-whist": (["--seats", "3"], "random;greedy;random"),
    "kort": (["--option", "target_wins=1"], "random;greedy;random;greedy"),
}


def small_run(folder: Path, game: str, hands: int = 8, log_actions: bool = False) -> Path:
    """A run of ``hands`` rows of ``game`` on the reference engine into ``folder``; returns the folder."""
    extra, agents = RUN_SETTINGS[game]
    argv = ["run", "--game", game, *extra, "--agents", agents, "--hands", str(hands), "--workers", "1",
            "--engine", "reference", "--no-progress", "--out", str(folder)]
    assert main(argv + (["--log-actions"] if log_actions else [])) == 0
    return folder
