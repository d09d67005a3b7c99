"""Small Knockout Whist runs to analyse when none is given: what the notebook plays by default, and the tests.

- ``make_small_run``: tables of ``random`` at 2, 3, 5 and 7 seats (the compiled
  engine plays them) and the three agents with a ``random`` at 4 seats, every
  rotation on the same deals, so that every figure has something to show.
- ``make_variant_runs``: one run of ``random`` per variant (each a set of options).
- ``make_ladder_run``: ``random``, ``greedy`` and ``tracker`` at one table, every
  rotation on the same deals.

Seeds are fixed, so the same call plays the same games.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

GAME = "knockout-whist"
LADDER_AGENTS = ("random", "greedy", "tracker")
SMALL_RUN_TABLES = (
    {"seats": 2, "agents": ["random"]},
    {"seats": 3, "agents": ["random"]},
    {"seats": 4, "agents": ["greedy", "tracker", "random", "random"]},
    {"seats": 5, "agents": ["random"]},
    {"seats": 7, "agents": ["random"]},
)
VARIANTS: dict[str, dict[str, bool]] = {
    "default": {},
    "no_dogs_life": {"dogs_life": False},
    "safe_first_hand": {"safe_first_hand": True},
    "winner_deals": {"winner_deals": True},
    "card_exchange": {"card_exchange": True},
    "no_trumps_choice": {"no_trumps_choice": True},
    "rainbow": {"rainbow": True},
}


def make_small_run(folder: str | Path, games: int = 400, seed: int = 2025, workers: int = 1,
                   progress: bool = False) -> Path:
    """Play the small sample run (``games`` per table) into ``folder`` and return the folder (``progress``: a bar)."""
    raw = {"name": "knockout-whist-sample", "tables": [dict(table) for table in SMALL_RUN_TABLES]}
    return _play(folder, raw, games, seed, workers, "rotate", progress)


def make_variant_runs(folder: str | Path, variants: Mapping[str, Mapping[str, Any]] | None = None,
                      games: int = 4000, seats: int = 4, seed: int = 2025, workers: int = 1,
                      progress: bool = False) -> list[Path]:
    """One run of ``random`` at ``seats`` per variant (name: options), in ``folder/<name>``; the folders in order."""
    variants = VARIANTS if variants is None else variants
    folders = []
    for name, options in variants.items():
        raw = {"name": f"knockout-whist-{name}", "seats": seats, "agents": ["random"], "options": dict(options)}
        folders.append(_play(Path(folder) / name, raw, games, seed, workers, "fixed", progress))
    return folders


def make_ladder_run(folder: str | Path, games: int = 300, seats: int = 3, seed: int = 2025,
                    workers: int = 1, progress: bool = False) -> Path:
    """``random``, ``greedy`` and ``tracker`` (then ``random`` again to fill ``seats``), every rotation."""
    agents = [LADDER_AGENTS[i % len(LADDER_AGENTS)] for i in range(seats)]
    raw = {"name": "knockout-whist-ladder", "seats": seats, "agents": agents}
    return _play(folder, raw, games, seed, workers, "rotate", progress)


def _play(folder: str | Path, raw: dict[str, Any], games: int, seed: int, workers: int, assign: str,
          progress: bool = False) -> Path:
    folder = Path(folder)
    raw = {**raw, "game": GAME, "seed": seed, "hands": games, "assign": assign, "workers": workers, "out": str(folder)}
    run_experiment(build_config(raw, "the Knockout Whist sample run"), folder, progress=progress)
    return folder
