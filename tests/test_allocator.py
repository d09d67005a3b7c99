"""``knorri-sim``'s processes keep the memory a batch freed for the next batch (``experiments.allocator``)."""

from __future__ import annotations

import resource
import sys

import numpy as np
import pytest

from experiments.allocator import keep_freed_memory
from experiments.runner import workers

COLUMNS, COLUMN_BYTES = 12, 2 * 1024 * 1024  # a batch's result columns: a dozen of megabytes each
PAGE = resource.getpagesize()


def _faults_to_fill() -> int:
    """Page faults taken while a batch's columns are allocated and written once, then all freed."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    columns = [np.empty(COLUMN_BYTES // 8, dtype=np.int64) for _ in range(COLUMNS)]
    for column in columns:
        column.fill(1)
    del columns
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the settings are glibc's")
def test_a_batch_after_the_first_reuses_the_pages_the_first_freed():
    assert keep_freed_memory()
    _faults_to_fill()  # the first batch maps its pages
    again = [_faults_to_fill() for _ in range(3)]
    assert max(again) < COLUMNS * COLUMN_BYTES // PAGE // 20, again  # not a fault a page: the freed pages were kept


def test_every_local_worker_process_starts_with_the_kept_allocator(monkeypatch):
    calls = []
    monkeypatch.setattr(workers, "keep_freed_memory", lambda: calls.append("kept"))
    monkeypatch.setattr(workers, "end_with_parent", lambda parent: calls.append(parent))
    workers.start_worker(123)
    assert calls == ["kept", 123]
