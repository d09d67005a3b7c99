"""Which chunks of a run folder are finished, checked table by table against the plan, before a run goes on.

A chunk counts as finished when the manifest or the journal records it with a row
count for every table it wrote, and every one of those shards exists with that
many rows. Anything less (a shard deleted, truncated or unreadable, a chunk
killed before its record) is damaged: its shards are removed and it is played
again. Shards and records that the plan cannot have written (a chunk id past the
plan, a chunk of the wrong size or the wrong hands, as after an edited
``chunk_hands``) mean the manifest disagrees with the data: the run is refused
with one line and nothing is touched.
"""

from __future__ import annotations

from typing import Any

from experiments.runner import storage
from experiments.runner.config import ConfigError
from experiments.runner.plan import Chunk
from experiments.runner.storage import RunFolder

Record = dict[str, Any]  # {"rows": {table: rows}, "seconds": [...]} of a finished chunk


def recorded_chunks(out: RunFolder, manifest: dict[str, Any]) -> dict[int, Record | None]:
    """The finished chunks the manifest and the journal record; None for a chunk an older manifest lists
    as complete without row counts."""
    records: dict[int, Record | None] = {int(chunk): None for chunk in manifest.get("chunks_complete", [])}
    seconds = manifest.get("chunk_seconds", {})
    for chunk, rows in manifest.get("chunk_rows", {}).items():
        records[int(chunk)] = {"rows": rows, "seconds": seconds.get(str(chunk))}
    for record in out.read_journal():
        records[record["chunk"]] = {"rows": record["rows"], "seconds": record.get("seconds")}
    return records


def finished_chunks(out: RunFolder, manifest: dict[str, Any], chunks: list[Chunk],
                    tables: list[str]) -> dict[int, Record]:
    """The chunks finished in every table (``tables``: the folders the run writes), damaged ones removed.

    Raises ``ConfigError`` when the manifest disagrees with the shards.
    """
    records = recorded_chunks(out, manifest)
    planned = {chunk.id: chunk for chunk in chunks}
    where = f"run folder {out.location!r}"
    disagree = "the manifest disagrees with the shards (was it edited, or are these another run's files?)"
    for table in tables:
        for chunk_id in out.shard_ids(table):
            if chunk_id not in planned:
                raise ConfigError(f"{where}: {table}/{storage.shard_name(chunk_id)} is outside the manifest's plan "
                                  f"of {len(chunks)} chunks: {disagree}")
    for chunk_id, record in records.items():
        if chunk_id not in planned:
            raise ConfigError(f"{where}: chunk {chunk_id} is recorded but the plan has {len(chunks)} chunks: "
                              f"{disagree}")
        hands = (record or {}).get("rows", {}).get(storage.HANDS_DIR, planned[chunk_id].hands)
        if hands != planned[chunk_id].hands:
            raise ConfigError(f"{where}: chunk {chunk_id} is recorded with {hands} rows where the plan has "
                              f"{planned[chunk_id].hands}: {disagree}")
    for chunk_id in out.shard_ids(storage.HANDS_DIR):
        chunk = planned[chunk_id]
        span = out.column_range(storage.HANDS_DIR, chunk_id, "hand_index")
        expected = (chunk.first_hand, chunk.first_hand + chunk.hands - 1)
        if span is not None and span != expected:
            raise ConfigError(f"{where}: hands/{storage.shard_name(chunk_id)} holds hand_index {span[0]} to "
                              f"{span[1]} where the plan puts chunk {chunk_id} at {expected[0]} to {expected[1]}: "
                              f"{disagree}")
    finished: dict[int, Record] = {}
    for chunk in chunks:
        record = records.get(chunk.id)
        if chunk.id in records and _intact(out, chunk, record, tables):
            finished[chunk.id] = record or {"rows": _rows_on_disk(out, chunk.id, tables), "seconds": None}
        else:
            out.remove_chunk(chunk.id, tables)
    return finished


def _intact(out: RunFolder, chunk: Chunk, record: Record | None, tables: list[str]) -> bool:
    """Every table's shard of the chunk is in place with its recorded rows (an older record: the planned hands,
    and a readable shard in every other table)."""
    if record is None:
        return (out.shard_rows(storage.HANDS_DIR, chunk.id) == chunk.hands
                and all(out.shard_rows(table, chunk.id) >= 0 for table in tables))
    rows = record["rows"]
    return set(tables) <= set(rows) and all(out.shard_rows(table, chunk.id) == rows[table] for table in rows)


def _rows_on_disk(out: RunFolder, chunk_id: int, tables: list[str]) -> dict[str, int]:
    return {table: out.shard_rows(table, chunk_id) for table in tables}
