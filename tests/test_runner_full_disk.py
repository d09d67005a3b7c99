"""A run into a full disk: a file system that raises ENOSPC stops the run with one line, and once there is room
again ``--resume`` completes it with exactly the planned hands."""

from __future__ import annotations

import errno
import os

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from experiments.cli import main
from experiments.runner.storage import RunFolder


class FullDisk(MemoryFileSystem):
    """An in-memory file system of ``capacity`` bytes: a write that would store more raises ENOSPC, as a full
    disk does (a file replaced frees its old size)."""

    protocol = "fulldisk"
    store: dict = {}  # its own files, apart from memory://'s
    pseudo_dirs = [""]
    capacity = 0

    @classmethod
    def _strip_protocol(cls, path):
        return super()._strip_protocol("memory://" + path.removeprefix("fulldisk://"))

    def pipe_file(self, path, value, mode="overwrite", **kwargs):
        """Store ``value`` at ``path`` if it fits."""
        path = self._strip_protocol(path)
        used = sum(len(f.getbuffer()) for name, f in self.store.items() if name != path)
        if used + len(value) > FullDisk.capacity:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return super().pipe_file(path, value, mode=mode, **kwargs)


@pytest.fixture
def full_disk():
    fsspec.register_implementation("fulldisk", FullDisk, clobber=True)
    FullDisk.store.clear()
    FullDisk.pseudo_dirs[:] = [""]
    yield FullDisk
    FullDisk.store.clear()


def test_a_full_disk_stops_the_run_in_one_line_and_a_resume_completes_it_with_exactly_the_planned_hands(
        full_disk, capsys):
    url = "fulldisk://runs/full"
    options = ["--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "120", "--chunk-hands",
               "10", "--seed", "12", "--workers", "1", "--no-progress", "--log-actions"]
    full_disk.capacity = 10**9
    assert main(["run", *options, "--out", "fulldisk://runs/measure"]) == 0
    measured = RunFolder("fulldisk://runs/measure")
    shard = sum(len(full_disk.store[f"/runs/measure/{table}/part-000000.parquet"].getbuffer())
                for table in ("hands", "actions"))
    used = sum(len(f.getbuffer()) for f in full_disk.store.values())
    assert measured.read_table("hands").num_rows == 120
    full_disk.capacity = used + 5 * shard  # room for the bookkeeping and about five of the twelve chunks
    capsys.readouterr()

    assert main(["run", *options, "--out", url]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"cannot write the run folder {url}: No space left on device" in err and f"--resume {url}" in err
    folder = RunFolder(url)
    assert 0 < len(folder.shard_ids("hands")) < 12

    full_disk.capacity = 10**9  # space freed
    assert main(["run", "--resume", url, "--no-progress"]) == 0
    hands = folder.read_table("hands", ["hand_index"]).column("hand_index").to_pylist()
    assert sorted(hands) == list(range(120))
    assert folder.read_table("actions", ["hand_index"]).num_rows == measured.read_table("actions").num_rows
    assert folder.read_manifest()["status"] == "complete"
