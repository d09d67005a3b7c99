"""The run manifest: what was asked, with which code, and which chunks are done."""

from __future__ import annotations

import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from experiments.runner.config import ConfigError, RunConfig
from experiments.runner.plan import Chunk, TablePlan
from experiments.runner.schema import SCHEMA_VERSION, markdown_table

PACKAGES = ("knorri-sim", "numpy", "numba", "pandas", "pyarrow", "joblib", "dask", "distributed", "tqdm", "openskill")
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def package_versions() -> dict[str, str | None]:
    """Python's version and every package the run's results depend on."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit() -> dict[str, Any]:
    """The project's git commit and whether the tree had uncommitted changes (None outside git)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=PROJECT_ROOT,
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(status.strip())}


def new_manifest(config: RunConfig, plans: list[TablePlan], chunks: list[Chunk], chunk_hands: int,
                 code: dict[str, Any]) -> dict[str, Any]:
    """The manifest written before the first shard; ``code`` is what plays it (``fingerprint.run_code``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "game": config.game,
        "run_id": config.run_id(),
        "master_seed": config.seed,
        "config": config.to_json(),
        "chunk_hands": chunk_hands,
        "seed_derivation": ("match_seed = derive_seed(master_seed, table, deal_group); "
                            f"{config.adapter.SEED_DERIVATION} (sim.rng.derive_seed)"),
        "tables": [{"table": p.index, "seats": p.seats, "seatings": [list(s) for s in p.seatings],
                    "deal_groups": p.groups, "hands": p.hands} for p in plans],
        "hands_total": sum(p.hands for p in plans),
        "chunks_total": len(chunks),
        "chunks_complete": [],
        # chunk id -> rows written in each table (hands, actions, extra tables): what --resume checks
        "chunk_rows": {},
        # chunk id -> each table's shard's SHA-256, as written: what every reader checks a shard against
        "chunk_sha256": {},
        # chunk id -> [engine wall s, task wall s, engine CPU s, task CPU s], as the worker measured them
        "chunk_seconds": {},
        "writer_cpu_seconds": 0.0,  # this process's CPU while scheduling, collecting and writing
        "status": "running",
        "error": None,
        "versions": package_versions(),
        "git": git_commit(),
        # the code that makes the rows (fingerprint.run_code); --resume refuses to mix chunks of another
        "code": code,
        "created": now(),
        "updated": now(),
        "schema": markdown_table(config.adapter),
    }


def mark(manifest: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The manifest with ``changes`` applied and its ``updated`` time refreshed."""
    manifest.update(changes)
    manifest["updated"] = now()
    return manifest


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def check_manifest(manifest: Any, where: str) -> None:
    """Refuse, in one line starting with ``where``, a manifest that is not the kind ``knorri-sim run`` writes."""
    if not isinstance(manifest, dict):
        raise ConfigError(f"{where} holds a {type(manifest).__name__}, not a knorri-sim run's manifest")
    for key, kind in (("config", dict), ("run_id", str), ("chunk_hands", int), ("chunks_total", int)):
        if not isinstance(manifest.get(key), kind) or isinstance(manifest.get(key), bool):
            raise ConfigError(f"{where} has no valid {key!r}: it is not a knorri-sim run's manifest")
    if not isinstance(manifest["config"].get("tables"), list):
        raise ConfigError(f"{where}: its config has no tables: it is not a knorri-sim run's manifest")
    if manifest["chunk_hands"] < 1:
        raise ConfigError(f"{where}: chunk_hands must be at least 1, not {manifest['chunk_hands']}")
    complete = manifest.get("chunks_complete", [])
    if not isinstance(complete, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in complete):
        raise ConfigError(f"{where}: chunks_complete must be a list of chunk ids")
    rows = manifest.get("chunk_rows", {})
    if not isinstance(rows, dict) or not all(
            key.isdigit() and isinstance(tables, dict) and all(isinstance(n, int) for n in tables.values())
            for key, tables in rows.items()):
        raise ConfigError(f"{where}: chunk_rows must map chunk ids to each table's row count")
    if not isinstance(manifest.get("chunk_seconds", {}), dict):
        raise ConfigError(f"{where}: chunk_seconds must map chunk ids to times")
