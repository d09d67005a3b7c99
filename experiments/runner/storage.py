"""The output folder: parquet shards put in place whole, a journal of finished chunks, the manifest, a lock.

A run folder (``manifest.json``, ``journal.jsonl``, ``.lock``, and ``hands/``, ``actions/`` and any extra table's
``part-NNNNNN.parquet`` shards) is a local path or any fsspec URL such as ``s3://bucket/run`` (``RunFolder``). A
shard is complete exactly when its final name exists (a temporary name renamed in one step, or one whole put), and
a chunk is finished when its record, with every table's row count, is in the journal: adding one costs the same
for the first chunk and the millionth. The layout and the object-store case are in docs/internals.md,
``experiments.runner.storage``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from experiments.errors import UsageError
from experiments.runner.locking import LOCK, file_lock, lease

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
JOURNAL_DIR = "journal"  # the journal on an object store: one record per object
HANDS_DIR = "hands"
ACTIONS_DIR = "actions"
_SHARD = re.compile(r"^part-(\d{6,})\.parquet$")
SHARD_RUN = b"knorri_sim_run_id"  # a shard's footer keys: the run and the chunk that wrote it
SHARD_CHUNK = b"knorri_sim_chunk"


def shard_name(chunk_id: int) -> str:
    """The final file name of a chunk's shard."""
    return f"part-{chunk_id:06d}.parquet"


def is_url(location: str | os.PathLike) -> bool:
    """Whether ``--out`` names an fsspec URL (``s3://…``, ``gs://…``, ``memory://…``) rather than a local path."""
    return "://" in str(location) and not str(location).startswith("file://")


class RunFolder:
    """A run folder on the local disk or on any fsspec file system; every read and write of a run goes here."""

    def __init__(self, location: str | os.PathLike) -> None:
        self.location = str(location)
        self.local = not is_url(location)
        if self.local:
            self.root = str(Path(self.location.removeprefix("file://")))
            self.fs: Any = None
        else:
            import fsspec

            try:
                self.fs, self.root = fsspec.core.url_to_fs(self.location)
            except (ImportError, ValueError) as error:
                raise UsageError(f"--out {self.location!r}: {' '.join(str(error).split())}") from None
            self.root = self.root.rstrip("/")

    def __str__(self) -> str:
        return self.location

    def path(self, *parts: str) -> str:
        """The path of a file in the run folder, as its file system names it."""
        return "/".join([self.root, *parts])

    @property
    def filesystem(self) -> Any:
        """The ``fsspec`` file system of the folder (None: the local disk). Read parquet with ``read_table`` or
        ``read_shard``, not by passing it to pyarrow (see ``read_table``)."""
        return self.fs

    # ----- the folder -----------------------------------------------------------------------------------------

    def exists(self) -> bool:
        """Whether anything is at the folder's location."""
        return os.path.lexists(self.root) if self.local else self.fs.exists(self.root)

    def is_dir(self) -> bool:
        """Whether the location is a folder (an object store's prefix counts as one)."""
        return os.path.isdir(self.root) if self.local else self.fs.isdir(self.root)

    def names(self) -> list[str]:
        """The names directly in the folder."""
        if self.local:
            return os.listdir(self.root)
        return [entry.rstrip("/").rsplit("/", 1)[-1] for entry in self.fs.ls(self.root, detail=False)]

    def _read_bytes(self, *parts: str) -> bytes | None:
        try:
            if self.local:
                return Path(self.path(*parts)).read_bytes()
            return self.fs.cat_file(self.path(*parts))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def _write_bytes(self, data: bytes, *parts: str) -> None:
        """Put a small file in place whole (a temporary name then a rename on a file system)."""
        if self.local:
            final = Path(self.path(*parts))
            final.parent.mkdir(parents=True, exist_ok=True)
            temporary = final.with_name(f".{final.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, final)
        else:
            self.fs.pipe_file(self.path(*parts), data)

    def _remove(self, *parts: str) -> None:
        if self.local:
            Path(self.path(*parts)).unlink(missing_ok=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm_file(self.path(*parts))

    # ----- shards -------------------------------------------------------------------------------------------

    def write_shard(self, table_name: str, chunk_id: int, table: pa.Table, run_id: str | None = None,
                    staged: bool = False) -> str:
        """Write a shard whole (a temporary name then a rename, atomic on one file system, or one put) and return
        the SHA-256 of exactly the bytes written (on a file system, of the temporary file before its rename).
        ``staged`` leaves a file system's shard under its temporary name, for ``put_in_place``.

        The footer carries the run id and the chunk (``SHARD_RUN``, ``SHARD_CHUNK``), so a shard found in the wrong
        place can be named, and every data page a CRC, which readers verify."""
        # Dictionary pages only for the categorical columns: the small integer columns come out
        # smaller and faster plain-encoded under zstd.
        categorical = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
        stamp = {SHARD_CHUNK: str(chunk_id).encode(), **({SHARD_RUN: run_id.encode()} if run_id else {})}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **stamp})
        options = {"compression": "zstd", "use_dictionary": categorical, "write_page_checksum": True}
        if not self.local:
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, **options)
            data = sink.getvalue().to_pybytes()
            self.fs.pipe_file(self.path(table_name, shard_name(chunk_id)), data)
            return hashlib.sha256(data).hexdigest()
        folder = Path(self.path(table_name))
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / shard_name(chunk_id)
        temporary = folder / self._staging_name(chunk_id)
        pq.write_table(table, temporary, **options)
        # hashed as it lies on disk, read back from the page cache: building the shard in memory first would cost
        # more, in page faults on a fresh buffer for every shard
        with open(temporary, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        if not staged:
            os.replace(temporary, final)
        return digest

    def write_chunk(self, chunk_id: int, hands: pa.Table, actions: pa.Table | None,
                    extras: dict[str, pa.Table] | None = None, run_id: str | None = None,
                    staged: bool = False) -> dict[str, Any]:
        """Write a chunk's shards (extra tables in folders of their names); return what the journal records of
        them: each table's row count (``rows``) and SHA-256 (``sha256``).

        ``staged`` (a file system's only) leaves the shards under temporary names and lists them (``staged``):
        a worker writes them, and the process that keeps the journal puts them in place (``put_in_place``) just
        before it records them, so a stopped run never shows a shard its journal lacks."""
        staged = staged and self.local
        tables = {**(extras or {}), **({ACTIONS_DIR: actions} if actions is not None else {}), HANDS_DIR: hands}
        rows, digests = {}, {}
        for name, table in tables.items():  # the hands shard last: its presence says the others are in place
            digests[name] = self.write_shard(name, chunk_id, table, run_id, staged)
            rows[name] = table.num_rows
        written: dict[str, Any] = {"rows": rows, "sha256": digests}
        if staged:
            written["staged"] = {name: self._staging_name(chunk_id) for name in tables}
        return written

    @staticmethod
    def _staging_name(chunk_id: int) -> str:
        return f".{shard_name(chunk_id)}.{os.getpid()}.tmp"

    def put_in_place(self, chunk_id: int, written: dict[str, Any]) -> None:
        """Rename a chunk's staged shards (``write_chunk(staged=True)``) to their own names, the hands shard last."""
        for name, temporary in written.get("staged", {}).items():
            folder = Path(self.path(name))
            os.replace(folder / temporary, folder / shard_name(chunk_id))

    def has_table(self, table: str) -> bool:
        """Whether the folder holds a table's folder (``hands``, ``actions``, ...)."""
        return os.path.isdir(self.path(table)) if self.local else self.fs.isdir(self.path(table))

    def file_in_place_of(self, table: str) -> bool:
        """Whether a file stands where a table's folder belongs (a damaged run)."""
        return os.path.isfile(self.path(table)) if self.local else self.fs.isfile(self.path(table))

    def shard_ids(self, table: str) -> list[int]:
        """The chunk ids of the finished shards in a table's folder (none when the folder is missing)."""
        try:
            if self.local:
                names = os.listdir(self.path(table))
            else:
                names = [entry.rsplit("/", 1)[-1] for entry in self.fs.ls(self.path(table), detail=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(int(m.group(1)) for m in map(_SHARD.match, names) if m)

    def footer(self, table: str, chunk_id: int) -> pq.FileMetaData | None:
        """A shard's footer (its row count, statistics and key-value metadata), or None when missing or unreadable."""
        path = self.path(table, shard_name(chunk_id))
        try:
            if self.local:
                return pq.ParquetFile(path).metadata
            with self.fs.open(path, "rb") as handle:
                return pq.ParquetFile(handle).metadata
        except (OSError, ValueError, pa.ArrowException):  # a garbled footer fails to parse or to decode
            return None

    def read_shard(self, table: str, chunk_id: int, columns: list[str] | None = None) -> pa.Table:
        """One shard's rows (only ``columns``, if given)."""
        path = self.path(table, shard_name(chunk_id))
        if self.local:
            return pq.read_table(path, columns=columns, page_checksum_verification=True)
        return pq.read_table(arrow_owned(self.fs.cat_file(path)), columns=columns, page_checksum_verification=True)

    def read_table(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """Every finished shard of a table, in chunk order (only ``columns``, if given).

        A folder on an object store is read through ``fsspec`` here, its bytes copied into memory
        Arrow owns, never by handing the ``fsspec`` file system to pyarrow: a pyarrow scan of Python
        files leaves buffers that its own threads release after the read returns, and a release
        that comes as the interpreter exits aborts the process ("terminate called without an
        active exception"). The same holds for any reader of a run on a store: use this, or
        ``read_shard`` one chunk at a time.
        """
        if self.local:
            return pq.read_table(self.path(table), columns=columns, partitioning=None)
        paths = [self.path(table, shard_name(chunk)) for chunk in self.shard_ids(table)]
        found = self.fs.cat(paths, on_error="raise") if paths else {}
        shards = [pq.read_table(arrow_owned(found[path]), columns=columns) for path in paths]
        if not shards:
            raise FileNotFoundError(f"{self.path(table)} holds no shards")
        return pa.concat_tables(shards)

    def read_schema(self, table: str, chunk_id: int) -> pa.Schema:
        """The schema of one shard."""
        path = self.path(table, shard_name(chunk_id))
        if self.local:
            return pq.read_schema(path)
        return pq.read_schema(arrow_owned(self.fs.cat_file(path)))

    def shard_rows(self, table: str, chunk_id: int) -> int:
        """A shard's row count from its footer, or -1 when it is missing or unreadable."""
        metadata = self.footer(table, chunk_id)
        return -1 if metadata is None else metadata.num_rows

    def shard_digest(self, table: str, chunk_id: int) -> str | None:
        """The SHA-256 of a shard's bytes as they are now, or None when it is missing."""
        path = self.path(table, shard_name(chunk_id))
        try:
            if self.local:
                with open(path, "rb") as handle:
                    return hashlib.file_digest(handle, "sha256").hexdigest()
            return hashlib.sha256(self.fs.cat_file(path)).hexdigest()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def shard_size(self, table: str, chunk_id: int) -> int:
        """A shard's size in bytes (0 when it is missing)."""
        try:
            return os.path.getsize(self.path(table, shard_name(chunk_id))) if self.local else \
                int(self.fs.size(self.path(table, shard_name(chunk_id))))
        except (FileNotFoundError, NotADirectoryError):
            return 0

    def column_range(self, table: str, chunk_id: int, column: str) -> tuple[int, int] | None:
        """The least and greatest value of an integer column, from the shard's statistics (None if unknown)."""
        metadata = self.footer(table, chunk_id)
        if metadata is None:
            return None
        index = metadata.schema.to_arrow_schema().get_field_index(column)
        if index < 0:
            return None
        stats = [metadata.row_group(g).column(index).statistics for g in range(metadata.num_row_groups)]
        if not stats or any(s is None or not s.has_min_max for s in stats):
            return None
        return min(int(s.min) for s in stats), max(int(s.max) for s in stats)

    def remove_chunk(self, chunk_id: int, tables: list[str]) -> None:
        """Delete a chunk's shards in every table (the hands shard first), so that it is played again."""
        for table in sorted(tables, key=lambda name: name != HANDS_DIR):
            self._remove(table, shard_name(chunk_id))

    def remove_temporary_files(self) -> None:
        """Delete the shards and the manifest copy a killed run left half written (a file system's only)."""
        if not self.local:
            return  # an object store never shows a half put
        root = Path(self.root)
        for path in [*root.glob(".*.tmp"), *root.glob("*/.*.tmp")]:
            path.unlink(missing_ok=True)

    # ----- manifest and journal -----------------------------------------------------------------------------

    def read_manifest(self) -> Any:
        """The run's manifest (whatever JSON it holds), or None when the folder holds none readable."""
        data = self._read_bytes(MANIFEST)
        if data is None:
            return None
        try:
            return json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replace the manifest whole."""
        self._write_bytes((json.dumps(manifest, indent=2, sort_keys=False) + "\n").encode(), MANIFEST)

    def journal(self) -> Journal:
        """The journal, open for adding records."""
        return Journal(self)

    def journal_lines(self) -> list[tuple[str, bytes]]:
        """The journal's records as raw lines, each with the words that name it (``journal.jsonl line 3``). A last
        line with no newline yet is left out: a kill cut it short, or its writer is adding it now; its chunk is not
        finished (``integrity.take_snapshot`` reads them)."""
        if self.local:
            data = self._read_bytes(JOURNAL) or b""
            lines = data.split(b"\n")
            return [(f"{JOURNAL} line {number}", line) for number, line in enumerate(lines[:-1], 1)]
        try:
            paths = sorted(p for p in self.fs.ls(self.path(JOURNAL_DIR), detail=False) if p.endswith(".json"))
        except FileNotFoundError:
            return []
        found = self.fs.cat(paths) if paths else {}
        return [(f"{JOURNAL_DIR}/{path.rsplit('/', 1)[-1]}", found[path]) for path in paths]

    def clear_journal(self) -> None:
        """Empty the journal once the manifest holds its records."""
        if self.local:
            self._remove(JOURNAL)
        else:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm(self.path(JOURNAL_DIR), recursive=True)

    # ----- the lock -----------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's lock while writing it; a second writer gets one ``RunFolderBusy`` line.

        On a file system it is an ``flock`` on ``.lock``, which the system drops when its holder dies:
        a lock left by a killed run never blocks a resume. On an object store it is a lease the
        holder renews; one not renewed for ``LEASE_SECONDS`` is a dead writer's and is taken over.
        """
        holder = f"process {os.getpid()} on {socket.gethostname()}"
        if self.local:
            with file_lock(Path(self.root), holder):
                yield
            return
        with lease(self, holder):
            yield


class Journal:
    """Adds a record per finished chunk: a line of ``journal.jsonl``, or an object of ``journal/`` on a store."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self._file = open(folder.path(JOURNAL), "a", encoding="utf-8") if folder.local else None  # noqa: SIM115

    def append(self, chunk_id: int, record: dict[str, Any]) -> None:
        """Record a chunk whose shards are all in place (``record``: its ``rows``, ``sha256``, ``run_id``,
        ``seconds``)."""
        line = json.dumps({"chunk": chunk_id, **record})
        if self._file is not None:
            self._file.write(line + "\n")
            self._file.flush()
        else:
            self.folder._write_bytes(line.encode(), JOURNAL_DIR, shard_name(chunk_id).replace(".parquet", ".json"))

    def close(self) -> None:
        """Close the journal (its records stay until ``clear_journal``)."""
        if self._file is not None:
            self._file.close()


def arrow_owned(data: bytes) -> pa.BufferReader:
    """A reader over a copy of ``data`` in memory that Arrow owns: Arrow's threads can drop it at any time, where a
    buffer over Python bytes must take the interpreter's lock to be released (see ``RunFolder.read_table``)."""
    buffer = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(buffer).write(data)
    return pa.BufferReader(buffer)


# ----- the same, for a local folder given as a path (the analysis, tests) --------------------------------------


def read_manifest(out: str | os.PathLike) -> dict[str, Any] | None:
    """The run's manifest, or None when the folder holds none readable."""
    manifest = RunFolder(out).read_manifest()
    return manifest if isinstance(manifest, dict) else None


def is_bookkeeping(name: str) -> bool:
    """Whether a file in a run folder is left by a run killed at its start (a temporary file, the lock)."""
    return name.endswith(".tmp") or name == LOCK
