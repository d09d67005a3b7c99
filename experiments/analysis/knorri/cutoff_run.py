"""A Knorri run folder as the cut-off analysis reads it: its manifest, complete shards, tables, game facts and
action logs, and the slices every cut-off statistic adds up over.

Both the statistics (``cutoffs``) and the pairings of runs (``counterfactual``) open a run through here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from experiments.analysis.duck import ROWS_PER_SLICE, ShardIndex, Slice, shard_index, slices
from experiments.analysis.load import SEAT_AGENT, chunks_total, complete_shards, lineup_table, read_manifest, run_game
from experiments.runner import integrity
from experiments.runner.storage import ACTIONS_DIR, RunFolder
from sim import games

ANATOMY_COLUMNS = ("cycle_start", "cycle_length", "cycle_choices", "cycle_log2_paths", "cycle_seats")


@dataclass
class CutoffRun:
    """A run folder as the cut-off analysis reads it: its manifest, complete shards, tables and game facts."""

    folder: Path
    manifest: dict[str, Any]
    game: str
    title: str
    cut_offs: tuple[str, ...]
    paths: list[Path]
    columns: list[str]
    width: int
    tables: pd.DataFrame
    chunks_total: int
    shards: ShardIndex  # each shard's rows and span of tables and deal groups: which shards a slice reads
    options: dict[str, Any] = field(default_factory=dict)
    continuation: dict[str, Any] | None = None  # the rules its cut-off hands played on under, if it continued them
    actions: ShardIndex | None = None  # its action logs, a shard per hands shard (the same span), if it kept them

    @property
    def has_anatomy(self) -> bool:
        """Whether the shards hold the loop-anatomy columns (runs made before them hold only ``cycle_length``)."""
        return all(name in self.columns for name in ANATOMY_COLUMNS)

    @property
    def continued(self) -> bool:
        """Whether its cut-off hands were played on past the cut (``--continue-past-cutoff``): the hands table then
        holds ``continued_*`` columns."""
        return self.continuation is not None and "continued_phase2_actions" in self.columns

    @property
    def complete(self) -> bool:
        """Whether every planned chunk was read."""
        return len(self.paths) == self.chunks_total


def open_cutoff_run(folder: str | Path) -> CutoffRun:
    """The run in ``folder`` with its game's cut-off reasons (``CUT_OFFS`` of its adapter); a bad folder is one
    line (``RunFolderError``)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    game = run_game(manifest)
    adapter = games.adapter(game)
    paths = complete_shards(folder, manifest)
    columns = pq.read_schema(paths[0]).names
    width = sum(1 for name in columns if SEAT_AGENT.fullmatch(name))
    shards = shard_index(paths)
    return CutoffRun(folder=folder, manifest=manifest, game=game, title=adapter.TITLE,
                     cut_offs=tuple(adapter.CUT_OFFS), paths=paths, columns=columns, width=width,
                     tables=lineup_table(manifest), chunks_total=chunks_total(manifest, paths),
                     shards=shards, options=dict(manifest["config"].get("options") or {}),
                     continuation=manifest["config"].get("continuation"), actions=action_shards(folder, shards))


def action_shards(folder: Path, shards: ShardIndex) -> ShardIndex | None:
    """The run's action logs as a ``ShardIndex`` beside its hands shards (a chunk's actions shard has its hands
    shard's name, so the same slices read it), or None if the run kept no logs of some complete chunk."""
    paths = tuple(folder / ACTIONS_DIR / path.name for path in shards.paths)
    return replace(shards, paths=paths) if all(path.is_file() for path in paths) else None


def checked_action_shards(run: CutoffRun) -> ShardIndex | None:
    """The run's action logs (``action_shards``), each checked against its record before it is read (most of the
    analysis never reads them, so only what does pays for the check)."""
    if run.actions is not None:
        chunks = [int(path.stem.removeprefix("part-")) for path in run.actions.paths]
        integrity.check_table(RunFolder(run.folder), ACTIONS_DIR, chunks)
    return run.actions


def run_slices(run: CutoffRun) -> list[Slice | None]:
    """The run in slices of whole deal groups (``experiments.analysis.duck``), ``ROWS_PER_SLICE`` rows or so each:
    every statistic below adds up slice by slice, so memory stays that of one slice however large the run."""
    return slices(run.manifest, ROWS_PER_SLICE)
