"""Small Kort runs to analyse when none is given: what the notebook plays by default, and the tests.

- ``make_small_run``: a table of four ``random`` seats (the compiled engine plays it)
  and one of ``greedy`` as a team against ``random`` (``greedy;random;greedy;random``
  in both rotations, so each agent holds each team's seats on the same decks).
- ``make_ladder_run``: one table per pairing of the given agents as teams, ``A;B;A;B``
  in both rotations, so every pair of teams meets on duplicate decks.

Seeds are fixed, so the same call plays the same matches.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

GAME = "kort"
LADDER_AGENTS = ("random", "greedy", "tracker")


def team_lineup(first: str, second: str) -> list[str]:
    """Agent ``first`` as team 0 (seats 0 and 2) against ``second`` as team 1 (seats 1 and 3)."""
    return [first, second, first, second]


def make_small_run(folder: str | Path, matches: int = 400, seed: int = 2025, workers: int = 1,
                   options: Mapping[str, Any] | None = None, progress: bool = False) -> Path:
    """Play the small sample run (``matches`` per table) into ``folder`` and return the folder (``progress``: a
    bar)."""
    tables = [{"seats": 4, "agents": ["random"], "assign": "fixed"},
              {"seats": 4, "agents": team_lineup("greedy", "random"), "assign": "rotate"}]
    return _play(folder, {"name": "kort-sample", "tables": tables}, matches, seed, workers, options, progress)


def make_ladder_run(folder: str | Path, matches: int = 200, agents: Sequence[str] = LADDER_AGENTS, seed: int = 2025,
                    workers: int = 1, options: Mapping[str, Any] | None = None, progress: bool = False) -> Path:
    """Every pairing of ``agents`` as teams, one table each (``A;B;A;B``, both rotations), ``matches`` per table."""
    tables = [{"seats": 4, "agents": team_lineup(first, second), "assign": "rotate"}
              for first, second in itertools.combinations(agents, 2)]
    return _play(folder, {"name": "kort-ladder", "tables": tables}, matches, seed, workers, options, progress)


def _play(folder: str | Path, raw: dict[str, Any], matches: int, seed: int, workers: int,
          options: Mapping[str, Any] | None, progress: bool = False) -> Path:
    folder = Path(folder)
    raw = {**raw, "game": GAME, "seed": seed, "matches": matches, "workers": workers, "out": str(folder),
           "options": dict(options or {})}
    run_experiment(build_config(raw, "the Kort sample run"), folder, progress=progress)
    return folder
