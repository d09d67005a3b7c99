"""Which chunks of a run folder are finished, checked table by table against the plan, before a run goes on.

A chunk counts as finished when the manifest or the journal records it (``integrity.take_snapshot``) with a
row count and SHA-256 for every table it wrote, and every one of those shards matches its record
(``integrity.shard_problem``). Anything less (a shard deleted, truncated, unreadable, another run's, a copy of
another chunk's, or with changed bytes; a chunk killed before its record, or a journal line damaged) is damaged:
its shards are removed and it is played again. Shards and records that the plan cannot have written (a chunk id
past the plan, a chunk of the wrong size or the wrong hands in the manifest, as after an edited ``chunk_hands``)
mean the manifest disagrees with the data: the run is refused with one line and nothing is touched. A record the
journal alone holds that disagrees with the plan is a damaged line: its chunk is played again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from experiments.runner import fingerprint, integrity, storage
from experiments.runner.config import ConfigError
from experiments.runner.integrity import ChunkRecord
from experiments.runner.plan import Chunk
from experiments.runner.storage import RunFolder

Record = dict[str, Any]  # {"rows": {table: rows}, "sha256": {table: digest} | None, "seconds": [...]}


def finished_chunks(out: RunFolder, manifest: dict[str, Any], chunks: list[Chunk],
                    tables: list[str]) -> dict[int, Record]:
    """The chunks finished in every table (``tables``: the folders the run writes); ``remove_unfinished`` then
    clears the others' shards, once the run has decided to go on.

    Raises ``ConfigError`` when the manifest disagrees with the plan or the shards (nothing is touched).
    """
    for table in tables:
        if out.file_in_place_of(table):
            raise integrity.damaged(out, f"{table} is a file, not the folder of its shards (move it away, and "
                                         "--resume plays its chunks again)")
    records = integrity.take_snapshot(out).records
    run_id = manifest.get("run_id")
    planned = {chunk.id: chunk for chunk in chunks}
    where = f"run folder {out.location!r}"
    disagree = "the manifest disagrees with the shards (was it edited, or are these another run's files?)"
    for table in tables:
        for chunk_id in out.shard_ids(table):
            if chunk_id not in planned:
                raise ConfigError(f"{where}: {table}/{storage.shard_name(chunk_id)} is outside the manifest's plan "
                                  f"of {len(chunks)} chunks: {disagree}")
    for chunk_id, record in list(records.items()):
        hands = record.rows.get(storage.HANDS_DIR) if record is not None else None
        if chunk_id in planned and hands in (None, planned[chunk_id].hands):
            continue
        if record is not None and record.journal:
            del records[chunk_id]  # a damaged journal line: its chunk is played again
        elif chunk_id not in planned:
            raise ConfigError(f"{where}: chunk {chunk_id} is recorded but the plan has {len(chunks)} chunks: "
                              f"{disagree}")
        else:
            raise ConfigError(f"{where}: chunk {chunk_id} is recorded with {hands} rows where the plan has "
                              f"{planned[chunk_id].hands}: {disagree}")
    intact = [chunk for chunk in chunks if chunk.id in records
              and _intact(out, chunk, records[chunk.id], tables, run_id)]
    for chunk in intact:
        _check_span(out, chunk, where, disagree)
    finished: dict[int, Record] = {}
    for chunk in intact:
        record = records[chunk.id]
        finished[chunk.id] = record.as_json() if record is not None else {
            "rows": _rows_on_disk(out, chunk.id, tables), "sha256": None, "seconds": None}
    return finished


def remove_unfinished(out: RunFolder, chunks: list[Chunk], finished: dict[int, Record], tables: list[str]) -> None:
    """Delete the shards of every chunk not finished (damaged, or cut short by a kill), so it is played afresh."""
    for chunk in chunks:
        if chunk.id not in finished:
            out.remove_chunk(chunk.id, tables)


def recorded_chunks(out: RunFolder, chunks: list[Chunk]) -> set[int]:
    """The chunks recorded as finished whose hands shard is in place with the planned rows: what a resume expects
    to keep, found from the footers alone (``finished_chunks`` checks every byte before the run goes on)."""
    records = integrity.take_snapshot(out).records
    return {chunk.id for chunk in chunks if chunk.id in records
            and out.shard_rows(storage.HANDS_DIR, chunk.id) == chunk.hands}


def _intact(out: RunFolder, chunk: Chunk, record: ChunkRecord | None, tables: list[str], run_id: Any) -> bool:
    """Every table's shard of the chunk matches its record (an older record without row counts: the planned hands,
    and a readable shard in every other table)."""
    if record is None:
        return (out.shard_rows(storage.HANDS_DIR, chunk.id) == chunk.hands
                and all(out.shard_rows(table, chunk.id) >= 0 for table in tables))
    return set(tables) <= set(record.rows) and all(
        integrity.shard_problem(out, table, chunk.id, record, run_id) is None for table in record.rows)


def _check_span(out: RunFolder, chunk: Chunk, where: str, disagree: str) -> None:
    """Refuse a finished hands shard whose hands are not those the plan puts in its chunk (an edited plan)."""
    span = out.column_range(storage.HANDS_DIR, chunk.id, "hand_index")
    expected = (chunk.first_hand, chunk.first_hand + chunk.hands - 1)
    if span is not None and span != expected:
        raise ConfigError(f"{where}: hands/{storage.shard_name(chunk.id)} holds hand_index {span[0]} to {span[1]} "
                          f"where the plan puts chunk {chunk.id} at {expected[0]} to {expected[1]}: {disagree}")


def _rows_on_disk(out: RunFolder, chunk_id: int, tables: list[str]) -> dict[str, int]:
    return {table: out.shard_rows(table, chunk_id) for table in tables}


@dataclass
class Findings:
    """What ``knorri-sim verify`` found in a run folder: a line per problem, the chunks a repair plays again, and
    the counts its summary gives."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth saying, not wrong (a run not yet finished)
    damaged: set[int] = field(default_factory=set)  # chunks with something on disk that does not match a record
    finished: int = 0  # chunks recorded as finished whose every shard matches its record
    shards: int = 0
    size: int = 0  # bytes of the shards checked


def inspect_run(out: RunFolder, chunks: list[Chunk], tables: list[str], code: dict[str, Any]) -> Findings:
    """Every check ``knorri-sim verify`` makes (as ``git fsck`` does), touching nothing: the journal against the
    manifest, every recorded shard's SHA-256, rows and run id against its record, the hands' place in the plan,
    shards on disk that no record lists, and the code that would play a repair against the run's (``code``)."""
    found = Findings()
    snapshot = integrity.take_snapshot(out)
    manifest = snapshot.manifest or {}
    found.problems += snapshot.problems
    planned = {chunk.id: chunk for chunk in chunks}
    for chunk_id, record in sorted(snapshot.records.items()):
        chunk = planned.get(chunk_id)
        if chunk is None:
            found.problems.append(f"chunk {chunk_id} is recorded as finished but the plan has {len(chunks)} chunks")
            continue
        problems = _chunk_problems(out, chunk, record, tables, snapshot.run_id)
        if problems:
            found.problems += problems
            found.damaged.add(chunk_id)
        else:
            found.finished += 1
    for table in tables:
        for chunk_id in out.shard_ids(table):
            found.shards += chunk_id in snapshot.records
            if chunk_id not in snapshot.records:
                name = f"{table}/{storage.shard_name(chunk_id)}"
                if chunk_id in planned:
                    found.problems.append(f"{name} is not recorded as finished (its chunk was cut short, or the "
                                          "file does not belong here)")
                    found.damaged.add(chunk_id)
                else:
                    found.problems.append(f"{name} is outside the plan of {len(chunks)} chunks (another run's file?)")
    found.size = sum(out.shard_size(table, chunk_id) for table in tables for chunk_id in snapshot.records)
    missing = len(chunks) - found.finished - len(found.damaged)
    if missing > 0:
        found.notes.append(f"{missing} of {len(chunks)} chunks are not played yet: knorri-sim run --resume {out} "
                           "finishes the run")
        if manifest.get("status") == "complete":
            found.problems.append(f"{storage.MANIFEST} says the run is complete but {missing} of its chunks are not "
                                  "recorded as finished")
    changed = fingerprint.changes(manifest.get("code"), code)
    if changed:
        line = (f"code: what plays this run changed since its chunks were made ({'; '.join(changed)}), so a chunk "
                "played again would not be the one lost")
        (found.problems if found.damaged or missing > 0 else found.notes).append(line)
    return found


def _chunk_problems(out: RunFolder, chunk: Chunk, record: ChunkRecord | None, tables: list[str],
                    run_id: str | None) -> list[str]:
    """What is wrong with a recorded chunk: a table it should have written and does not list, each shard against
    its record, and (for a shard that matches) its footer's rows and its hands' place in the plan."""
    problems = [f"chunk {chunk.id}'s record lists no {table} shard" for table in tables
                if record is not None and table not in record.rows]
    hands = record.rows.get(storage.HANDS_DIR) if record is not None else chunk.hands
    if hands != chunk.hands:
        problems.append(f"chunk {chunk.id} is recorded with {hands} rows where the plan has {chunk.hands}")
    for table in (record.rows if record is not None else tables):
        problem = integrity.shard_problem(out, table, chunk.id, record, run_id)
        rows = out.shard_rows(table, chunk.id)
        if problem is None and record is not None and rows != record.rows[table]:
            problem = f"{table}/{storage.shard_name(chunk.id)} holds {rows:,} rows where its record says " \
                      f"{record.rows[table]:,}"
        if problem is not None:
            problems.append(problem)
    if not problems:
        span = out.column_range(storage.HANDS_DIR, chunk.id, "hand_index")
        expected = (chunk.first_hand, chunk.first_hand + chunk.hands - 1)
        if span is not None and span != expected:
            problems.append(f"hands/{storage.shard_name(chunk.id)} holds hand_index {span[0]} to {span[1]} where "
                            f"the plan puts chunk {chunk.id} at {expected[0]} to {expected[1]}")
    return problems
