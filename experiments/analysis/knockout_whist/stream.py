"""Knockout Whist runs read as their statistics alone, chunk by chunk: ``load`` reads the rows, ``stats`` says what
to gather.

This module sits above both, so neither needs the other's names to stream a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from experiments.analysis.knockout_whist.load import READER, GameRun
from experiments.analysis.knockout_whist.stats import report_partials, variant_partials
from experiments.analysis.load import BATCH_ROWS, Partial, stack_streamed


def stream_run(folder: str | Path, partials: Sequence[Partial] | None = None,
               batch_rows: int = BATCH_ROWS) -> GameRun:
    """The run in ``folder`` as its statistics alone (by default every partial the report reads), in the memory
    of one batch of chunks whatever the run's size; every statistic equals ``load_run``'s."""
    return READER.stream_run(folder, report_partials() if partials is None else partials, batch_rows)


def stream_runs(folders: Sequence[str | Path], partials: Sequence[Partial] | None = None,
                 batch_rows: int = BATCH_ROWS) -> GameRun:
    """Several Knockout Whist runs as one, streamed: each run read shard by shard (``stream_run``) and their
    statistics added up (``stack_streamed``), equal to ``load_runs``'s; by default those split by variant
    (``stats.variant_partials``), the notebook's runs of one variant each. Memory stays that of one chunk."""
    partials = variant_partials() if partials is None else partials
    return stack_streamed([stream_run(folder, partials, batch_rows) for folder in folders], partials)
