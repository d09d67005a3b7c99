"""A Knorri run read as its statistics alone, chunk by chunk: ``load`` reads the rows, ``stats`` says what to gather.

This module sits above both, so neither needs the other's names to stream a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from experiments.analysis.knorri.load import Run, load_paths
from experiments.analysis.knorri.stats import knorri_partials
from experiments.analysis.load import BATCH_ROWS, Partial, open_run, stream_paths


def stream_run(folder: str | Path, partials: Sequence[Partial] | None = None,
               batch_rows: int = BATCH_ROWS) -> Run:
    """The run in ``folder`` as its statistics alone: each shard read in turn (only the columns they need), its
    ``partials`` (by default every one ``stats`` and the ladder define) added up, and its rows let go. Memory
    stays that of one chunk, whatever the run's size; every statistic equals ``load_run``'s."""
    folder = Path(folder)
    manifest, paths = open_run(folder, "knorri")
    return stream_paths([manifest], paths, lambda chunk_paths: load_paths(folder, manifest, chunk_paths),
                        knorri_partials() if partials is None else partials, ["hands"],
                        batch_rows)
