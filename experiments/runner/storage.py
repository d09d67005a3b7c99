"""The output folder: parquet shards written under a temporary name then renamed, and the manifest.

Layout of a run folder::

    manifest.json            the config, seeds, versions, git commit, schema version, chunks done
    hands/part-000042.parquet   the hands of chunk 42 (zstd)
    actions/part-000042.parquet every decision of chunk 42 (only with --log-actions)
    rounds/part-000042.parquet  the rows of a game's extra table, named after it (Kort: its rounds)

A shard is complete exactly when its final name exists: it is written as
``.part-….parquet.tmp`` (a name pandas, pyarrow, polars and DuckDB globs all
skip) and renamed in one step, so a killed run never leaves a half shard under
a final name. The actions and extra shards are renamed before the hands shard,
so a chunk whose hands shard exists is complete in every table.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

MANIFEST = "manifest.json"
HANDS_DIR = "hands"
ACTIONS_DIR = "actions"
_SHARD = re.compile(r"^part-(\d{6,})\.parquet$")


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
                extras: dict[str, pa.Table] | None = None) -> None:
    """Write a chunk's shards (extra tables in folders of their names); the hands shard last: it marks completion."""
    for name, table in (extras or {}).items():
        write_shard(out / name, chunk_id, table)
    if actions is not None:
        write_shard(out / ACTIONS_DIR, chunk_id, actions)
    write_shard(out / HANDS_DIR, chunk_id, hands)


def complete_chunks(out: Path, expected_rows: dict[int, int]) -> set[int]:
    """The chunks whose hands shard exists with the planned row count (others are redone)."""
    done = set()
    folder = out / HANDS_DIR
    if not folder.is_dir():
        return done
    for path in folder.iterdir():
        match = _SHARD.match(path.name)
        if not match:
            continue
        chunk_id = int(match.group(1))
        try:
            rows = pq.ParquetFile(path).metadata.num_rows
        except (OSError, pa.ArrowException):
            rows = -1
        if expected_rows.get(chunk_id) == rows:
            done.add(chunk_id)
    return done


def remove_temporary_files(out: Path) -> None:
    """Delete the shards and the manifest copy a killed run left half written."""
    for path in out.glob(f".{MANIFEST}.*.tmp"):
        path.unlink(missing_ok=True)
    for path in out.glob("*/.part-*.tmp"):  # the hands, actions and extra tables' folders
        path.unlink(missing_ok=True)


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The run's manifest, or None when the folder holds none."""
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Replace the manifest atomically (temporary file, then rename)."""
    out.mkdir(parents=True, exist_ok=True)
    temporary = out / f".{MANIFEST}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(temporary, out / MANIFEST)
