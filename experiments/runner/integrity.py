"""Every shard of a run checked against the record its writer made, through one door every reader goes through.

As a chunk finishes, its writer records each of its shards' SHA-256 and row count with the run id: a journal
line, then the manifest's ``chunk_rows`` and ``chunk_sha256`` once folded in. It also stamps the run id and the
chunk in each shard's footer and a CRC in each data page (``storage.RunFolder.write_shard``).

``take_snapshot`` reads the journal and then the manifest, so a chunk folded from the one into the other between
the two reads is still seen. ``shard_problem`` checks one shard against its record and says in words what differs:
missing, another run's, a copy of another chunk's, short, or its bytes changed. ``verified_chunks`` is what every
reader of a run asks for its chunks (``report``, ``cutoffs``, ``league``, ``replay``, ``load_run`` and
``stream_run``, the notebooks, the duel): those recorded as finished, each of their shards checked, or one line
(``RunDamaged``) naming the first damaged file. ``--resume`` checks the same way (``experiments.runner.verify``)
and plays a failing chunk again; ``knorri-sim verify`` lists every problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from experiments.errors import RunDamaged
from experiments.runner.storage import (
    ACTIONS_DIR,
    HANDS_DIR,
    JOURNAL,
    MANIFEST,
    SHARD_CHUNK,
    SHARD_RUN,
    RunFolder,
    shard_name,
)

_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ChunkRecord:
    """What the writer recorded of a finished chunk: each table's rows and (since shards are checksummed) SHA-256."""

    rows: dict[str, int]
    sha256: dict[str, str] | None = None  # None: written before shards were checksummed (rows are checked alone)
    seconds: list[float] | None = None
    source: str = MANIFEST  # where it is recorded: the manifest, or a journal line (``journal.jsonl line 3``)

    @property
    def journal(self) -> bool:
        """Whether the journal alone records it (not yet folded into the manifest)."""
        return self.source != MANIFEST

    def as_json(self) -> dict[str, Any]:
        """The record as the manifest and the journal hold it."""
        return {"rows": self.rows, "sha256": self.sha256, "seconds": self.seconds}


@dataclass
class Snapshot:
    """A run's manifest and the chunks it and the journal record as finished, read as of one moment.

    ``records`` maps a chunk to its record (None: an old manifest lists it as complete with no row counts).
    ``problems`` says in words what could not be trusted: a damaged journal line, a record of another run, two
    records of one chunk that differ (whose chunk is then left out of ``records``)."""

    manifest: dict[str, Any] | None
    records: dict[int, ChunkRecord | None]
    problems: list[str]

    @property
    def run_id(self) -> str | None:
        """The run id the manifest gives (None for a folder without a readable manifest)."""
        run_id = (self.manifest or {}).get("run_id")
        return run_id if isinstance(run_id, str) else None


def take_snapshot(folder: RunFolder) -> Snapshot:
    """The run's finished chunks as one moment saw them: the journal is read first, then the manifest, since the
    writer folds the journal into the manifest before it empties it; the other order can miss every chunk."""
    lines = folder.journal_lines()
    manifest = folder.read_manifest()
    if not isinstance(manifest, dict):
        return Snapshot(None, {}, [])
    records, problems = manifest_records(manifest)
    run_id = manifest.get("run_id")
    clashing: set[int] = set()
    for label, line in lines:
        parsed = parse_record(line)
        if parsed is None:
            problems.append(f"{label} is damaged (it is not a chunk's record)")
            continue
        chunk, record, line_run = parsed
        record = replace(record, source=label)
        if line_run is not None and line_run != run_id:
            problems.append(f"{label} records chunk {chunk} of another run (run {line_run}, not {run_id})")
            continue
        known = records.get(chunk)
        if known is not None and (known.rows, known.sha256) != (record.rows, record.sha256):
            problems.append(f"{label} records chunk {chunk} unlike {'an earlier line' if known.journal else MANIFEST}")
            clashing.add(chunk)
        elif known is None:
            records[chunk] = record
    for chunk in clashing:
        records.pop(chunk, None)
    return Snapshot(manifest, records, problems)


def manifest_records(manifest: dict[str, Any]) -> tuple[dict[int, ChunkRecord | None], list[str]]:
    """The chunks a manifest records as finished (its ``chunks_complete``, each with its rows and SHA-256 where
    given), and what in its records is malformed (those chunks left out)."""
    problems: list[str] = []
    complete, rows, digests, seconds = (manifest.get(key, default) for key, default in (
        ("chunks_complete", []), ("chunk_rows", {}), ("chunk_sha256", {}), ("chunk_seconds", {})))
    records: dict[int, ChunkRecord | None] = {}
    if not isinstance(complete, list) or not all(_count(chunk) for chunk in complete):
        problems.append(f"{MANIFEST}'s chunks_complete is not a list of chunk ids")
    else:
        records.update(dict.fromkeys(complete))
    for key, value in (("chunk_rows", rows), ("chunk_sha256", digests), ("chunk_seconds", seconds)):
        if not isinstance(value, dict):
            problems.append(f"{MANIFEST}'s {key} is not a map of chunk ids")
            return {}, problems
    for key, counts in rows.items():
        chunk = int(key) if key.isdigit() else None
        table_rows = _rows(counts)
        table_digests = digests.get(key)
        record_digests = _digests(table_digests, table_rows) if table_digests is not None else None
        if chunk is None or table_rows is None or (table_digests is not None and record_digests is None):
            problems.append(f"{MANIFEST} records chunk {key!r} in a form knorri-sim does not write")
            records.pop(chunk, None)
            continue
        if chunk not in records:
            continue  # its rows without its place in chunks_complete, which says what is finished
        times = seconds.get(key)
        records[chunk] = ChunkRecord(table_rows, record_digests, times if isinstance(times, list) else None)
    return records, problems


def parse_record(line: bytes) -> tuple[int, ChunkRecord, str | None] | None:
    """A journal line as (chunk, record, run id), or None when it is not one the writer could have written."""
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not _count(data.get("chunk")):
        return None
    rows = _rows(data.get("rows"))
    digests = data.get("sha256")
    record_digests = _digests(digests, rows) if digests is not None else None
    run_id = data.get("run_id")
    if rows is None or (digests is not None and record_digests is None) or not isinstance(run_id, str | None):
        return None
    seconds = data.get("seconds")
    return data["chunk"], ChunkRecord(rows, record_digests, seconds if isinstance(seconds, list) else None,
                                      source=JOURNAL), run_id


def shard_problem(folder: RunFolder, table: str, chunk: int, record: ChunkRecord | None,
                  run_id: str | None) -> str | None:
    """What is wrong with one shard against its chunk's record, in words naming the file (and the journal line
    that records it, if one does); None when it matches.

    A recorded SHA-256 is checked (so any changed byte is found); a record from before checksums has its row count
    checked against the footer's, and a chunk with no record at all (``record`` None) only needs a readable shard.
    """
    problem = _problem(folder, table, chunk, record, run_id)
    if problem is None or record is None or not record.journal:
        return problem
    return f"{problem} (against its record in {record.source})"


def _problem(folder: RunFolder, table: str, chunk: int, record: ChunkRecord | None, run_id: str | None) -> str | None:
    name = f"{table}/{shard_name(chunk)}"
    digest = folder.shard_digest(table, chunk)
    if digest is None:
        if folder.file_in_place_of(table):
            return f"{table} is a file, not the folder of its shards"
        return f"{table}/ is missing" if not folder.has_table(table) else f"{name} is missing"
    wanted = (record.sha256 or {}).get(table) if record is not None else None
    if wanted is not None:
        return None if digest == wanted else f"{name} {what_differs(folder, table, chunk, record, run_id)}"
    rows = folder.shard_rows(table, chunk)
    expected = record.rows.get(table) if record is not None else None
    if rows < 0:
        return f"{name} is damaged: it cannot be read"
    if expected is not None and rows != expected:
        return f"{name} {_short(rows, expected)}"
    return None


def what_differs(folder: RunFolder, table: str, chunk: int, record: ChunkRecord | None, run_id: str | None) -> str:
    """Why a shard's bytes are not those recorded, from its footer: another run's, a copy of another chunk's, short,
    or damaged (unreadable, or readable with changed bytes)."""
    footer = folder.footer(table, chunk)
    if footer is None:
        return "is damaged: it cannot be read (cut short or garbled)"
    stamp = footer.metadata or {}
    their_run = stamp.get(SHARD_RUN, b"").decode(errors="replace")
    their_chunk = stamp.get(SHARD_CHUNK, b"").decode(errors="replace")
    if their_run and run_id and their_run != run_id:
        return f"is another run's shard (run {their_run}, not {run_id})"
    if their_chunk and their_chunk != str(chunk):
        return f"is a copy of chunk {their_chunk}'s shard, not chunk {chunk}'s"
    expected = record.rows.get(table) if record is not None else None
    if expected is not None and footer.num_rows != expected:
        return _short(footer.num_rows, expected)
    return "is damaged: its bytes differ from those written (SHA-256)"


def verified_chunks(folder: RunFolder, tables: Sequence[str] | None = None) -> Snapshot:
    """The snapshot of a run whose recorded chunks' shards all match their records, for a reader: any problem is
    one line, ``RunDamaged``, naming the first. ``tables``: the tables to check (the hands always); by default every
    table a chunk's record lists but its action log, which is checked shard by shard as it is read
    (``check_table``), since most readers never open it."""
    snapshot = take_snapshot(folder)
    if snapshot.problems:
        raise damaged(folder, snapshot.problems[0])
    for chunk, record in sorted(snapshot.records.items()):
        listed = record.rows if record is not None else {HANDS_DIR: 0}
        for table in [HANDS_DIR, *(t for t in listed if t != HANDS_DIR and (t in tables if tables is not None
                                                                              else t != ACTIONS_DIR))]:
            problem = shard_problem(folder, table, chunk, record, snapshot.run_id)
            if problem is not None:
                raise damaged(folder, problem)
    return snapshot


def check_table(folder: RunFolder, table: str, chunks: Sequence[int]) -> None:
    """The shards of ``table`` of some finished chunks checked before they are read (the action logs a replay or
    ``cutoffs`` reads): ``RunDamaged`` names the first that does not match its record."""
    snapshot = take_snapshot(folder)
    for chunk in chunks:
        problem = shard_problem(folder, table, chunk, snapshot.records.get(chunk), snapshot.run_id)
        if problem is not None:
            raise damaged(folder, problem)


def damaged(folder: RunFolder, problem: str) -> RunDamaged:
    """The one line a reader refuses a damaged run with: what is wrong, and the commands that list and mend it."""
    return RunDamaged(f"run folder {folder.location!r} is damaged: {problem}; knorri-sim verify {folder.location} "
                      "lists every problem, and with --repair plays the damaged chunks again")


def _short(rows: int, expected: int) -> str:
    return f"is {'short' if rows < expected else 'too long'}: it holds {rows:,} rows where {expected:,} were written"


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _rows(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) and _count(n) for k, n in value.items()):
        return None
    return value


def _digests(value: Any, rows: dict[str, int] | None) -> dict[str, str] | None:
    if not isinstance(value, dict) or rows is None or set(value) != set(rows):
        return None
    if not all(isinstance(digest, str) and _DIGEST.fullmatch(digest) for digest in value.values()):
        return None
    return value
