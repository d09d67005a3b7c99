"""A Kort run read as its statistics alone, chunk by chunk: ``load`` reads the rows, ``stats`` says what to gather.

This module sits above both, so neither needs the other's names to stream a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from experiments.analysis.kort.load import READER, KortRun
from experiments.analysis.kort.stats import report_partials
from experiments.analysis.load import BATCH_ROWS, Partial


def stream_run(folder: str | Path, partials: Sequence[Partial] | None = None,
               batch_rows: int = BATCH_ROWS) -> KortRun:
    """The run in ``folder`` as its statistics alone (by default every partial the report reads), in the memory
    of one batch of chunks whatever the run's size; every statistic equals ``load_run``'s."""
    return READER.stream_run(folder, report_partials() if partials is None else partials, batch_rows)
