"""The output folder: parquet shards written under a temporary name then renamed, a journal, the manifest, a lock.

Layout of a run folder::

    manifest.json            the config, seeds, versions, git commit, schema version, chunks done and their rows
    journal.jsonl            one line per chunk finished since the manifest was last written (folded in later)
    .lock                    held (flock) by the one process writing the run
    hands/part-000042.parquet   the hands of chunk 42 (zstd)
    actions/part-000042.parquet every decision of chunk 42 (only with --log-actions)
    rounds/part-000042.parquet  the rows of a game's extra table, named after it (Kort: its rounds)

A shard is complete exactly when its final name exists: it is written as
``.part-….parquet.tmp`` (a name pandas, pyarrow, polars and DuckDB globs all
skip) and renamed in one step, so a killed run never leaves a half shard under
a final name. A chunk is finished when its line, with every table's row count,
is in the journal (or its counts in the manifest): the line is appended after
all of its shards are in place. Appending a line costs the same for the first
chunk and the millionth, where rewriting the whole manifest after every chunk
grew with the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from experiments.cli import UsageError

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
LOCK = ".lock"
HANDS_DIR = "hands"
ACTIONS_DIR = "actions"
_SHARD = re.compile(r"^part-(\d{6,})\.parquet$")


class RunFolderBusy(UsageError):
    """Another live process is writing the run folder; reported as one line, exit code 2."""


def shard_name(chunk_id: int) -> str:
    """The final file name of a chunk's shard."""
    return f"part-{chunk_id:06d}.parquet"


def write_shard(folder: Path, chunk_id: int, table: pa.Table) -> Path:
    """Write a shard under a temporary name, then rename it into place (atomic on one file system)."""
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / shard_name(chunk_id)
    temporary = folder / f".{final.name}.{os.getpid()}.tmp"
    # Dictionary pages only for the categorical columns: the small integer columns come out
    # smaller and faster plain-encoded under zstd.
    categorical = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, temporary, compression="zstd", use_dictionary=categorical)
    os.replace(temporary, final)
    return final


def write_chunk(out: Path, chunk_id: int, hands: pa.Table, actions: pa.Table | None,
                extras: dict[str, pa.Table] | None = None) -> dict[str, int]:
    """Write a chunk's shards (extra tables in folders of their names); return each table's row count."""
    rows = {}
    for name, table in (extras or {}).items():
        write_shard(out / name, chunk_id, table)
        rows[name] = table.num_rows
    if actions is not None:
        write_shard(out / ACTIONS_DIR, chunk_id, actions)
        rows[ACTIONS_DIR] = actions.num_rows
    write_shard(out / HANDS_DIR, chunk_id, hands)
    rows[HANDS_DIR] = hands.num_rows
    return rows


def shard_rows(path: Path) -> int:
    """A shard's row count from its footer, or -1 when it is missing or unreadable."""
    try:
        return pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException):
        return -1


def shard_ids(folder: Path) -> list[int]:
    """The chunk ids of the finished shards in a table's folder (none when the folder is missing)."""
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for m in map(_SHARD.match, os.listdir(folder)) if m)


def column_range(path: Path, column: str) -> tuple[int, int] | None:
    """The least and greatest value of an integer column, from the shard's statistics (None if unknown)."""
    try:
        metadata = pq.ParquetFile(path).metadata
        index = metadata.schema.to_arrow_schema().get_field_index(column)
        stats = [metadata.row_group(g).column(index).statistics for g in range(metadata.num_row_groups)]
    except (OSError, pa.ArrowException):
        return None
    if index < 0 or not stats or any(s is None or not s.has_min_max for s in stats):
        return None
    return min(int(s.min) for s in stats), max(int(s.max) for s in stats)


def complete_chunks(out: Path, expected_rows: dict[int, int]) -> set[int]:
    """The chunks whose hands shard exists with the planned row count."""
    folder = out / HANDS_DIR
    return {chunk for chunk in shard_ids(folder) if expected_rows.get(chunk) == shard_rows(folder / shard_name(chunk))}


def remove_chunk(out: Path, chunk_id: int, tables: list[str]) -> None:
    """Delete a chunk's shards in every table (the hands shard first), so that it is played again."""
    for table in sorted(tables, key=lambda name: name != HANDS_DIR):
        (out / table / shard_name(chunk_id)).unlink(missing_ok=True)


def remove_temporary_files(out: Path) -> None:
    """Delete the shards and the manifest copy a killed run left half written."""
    for path in out.glob(f".{MANIFEST}.*.tmp"):
        path.unlink(missing_ok=True)
    for path in out.glob("*/.part-*.tmp"):  # the hands, actions and extra tables' folders
        path.unlink(missing_ok=True)


def is_bookkeeping(name: str) -> bool:
    """Whether a file in a run folder is left by a run killed at its start (a temporary file, the lock)."""
    return name.endswith(".tmp") or name == LOCK


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The run's manifest, or None when the folder holds none."""
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Replace the manifest atomically (temporary file, then rename)."""
    out.mkdir(parents=True, exist_ok=True)
    temporary = out / f".{MANIFEST}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(temporary, out / MANIFEST)


class Journal:
    """The append-only list of finished chunks: one JSON line each, ``{"chunk", "rows", "seconds"}``."""

    def __init__(self, out: Path) -> None:
        self.path = out / JOURNAL
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def append(self, chunk_id: int, rows: dict[str, int], seconds: list[float]) -> None:
        """Record a chunk whose shards are all in place."""
        self._file.write(json.dumps({"chunk": chunk_id, "rows": rows, "seconds": seconds}) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file (the lines stay until ``clear_journal``)."""
        self._file.close()


def read_journal(out: Path) -> list[dict[str, Any]]:
    """The journal's records; a line cut short by a kill, or garbled, is skipped (its chunk is played again)."""
    path = out / JOURNAL
    if not path.is_file():
        return []
    records = []
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(record, dict) and isinstance(record.get("chunk"), int) and isinstance(record.get("rows"), dict):
            records.append(record)
    return records


def clear_journal(out: Path) -> None:
    """Empty the journal once the manifest holds its records."""
    (out / JOURNAL).unlink(missing_ok=True)


def finished_chunks(out: Path, manifest: dict[str, Any]) -> list[int]:
    """The chunks a manifest lists as complete, with those its journal has recorded since: for reading a live run."""
    listed = {int(chunk) for chunk in manifest.get("chunks_complete", [])}
    return sorted(listed | {record["chunk"] for record in read_journal(out)})


@contextlib.contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """Hold the run folder's lock while writing it; a second writer gets one ``RunFolderBusy`` line.

    The lock is an ``flock`` on ``.lock``, which the system drops when its holder dies: a lock
    left by a killed run never blocks a resume. The file names the holder for the message.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / LOCK, "a+", encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise UsageError(f"cannot write the run folder {str(out)!r}: {error.strerror or error} "
                         f"({error.filename or out}): give a folder you can write") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunFolderBusy(f"run folder {str(out)!r} is being written by {holder}: wait for it to finish "
                                "or stop it, then --resume") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()} on {socket.gethostname()}")
        handle.flush()
        yield
    finally:
        handle.close()  # closing drops the flock; the file stays, so no second writer can lock a twin of it
