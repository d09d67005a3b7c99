"""How the engines' playouts spread games over threads (``sim.batch_base.play_spread``): every game once, no two
chunks at once in the same scratch rows, and a failure that stops the rest."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from sim.batch_base import chunk_count, play_spread


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_every_game_is_played_once_whatever_the_threads(workers):
    played = np.zeros(1000, dtype=np.int64)

    def serial(start, stop, rows):
        rows[start:stop] += 1

    play_spread(workers, len(played), serial, (), lambda: (played,))
    assert (played == 1).all()


def test_no_two_chunks_played_at_once_share_scratch_rows():
    in_use: set[int] = set()
    at_once = []
    lock = threading.Lock()

    def serial(start, stop, scratch):
        with lock:
            assert id(scratch) not in in_use
            in_use.add(id(scratch))
            at_once.append(len(in_use))
        time.sleep(0.001)
        with lock:
            in_use.remove(id(scratch))

    play_spread(2, 500, serial, (), lambda: (object(),))
    assert max(at_once) == 2  # the two threads did play at once, each in its own


def test_a_failing_chunk_is_raised_and_no_thread_starts_another_chunk():
    started = []

    def serial(start, stop):
        started.append(start)
        if start == 0:
            raise ValueError("chunk 0 failed")
        time.sleep(0.2)  # the other thread's chunk outlasts the failure

    with pytest.raises(ValueError, match="chunk 0 failed"):
        play_spread(2, 10_000, serial, (), lambda: ())
    # the first chunk failed at once; at most the other thread's chunk, taken before, was started besides
    assert sorted(started)[0] == 0 and len(started) <= 2 < chunk_count(10_000, 2)
