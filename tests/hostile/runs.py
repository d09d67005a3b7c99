"""What the hostile tests share: a small logged run, its live form, and ways to damage it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.cli import main
from experiments.runner import storage

RUN = ["--seats", "3", "--agents", "random", "--hands", "40", "--chunk-hands", "10", "--log-actions", "--workers",
       "1", "--no-progress"]


def make_run(out: Path, seed: int = 5) -> Path:
    """A run of 40 hands in four chunks of ten, with its action log."""
    assert main(["run", *RUN, "--seed", str(seed), "--out", str(out)]) == 0
    return out


def as_live(out: Path, chunks: tuple[int, ...] = (2, 3)) -> Path:
    """The run as a reader finds one still being written: ``chunks`` recorded by the journal, not yet the manifest."""
    manifest = json.loads((out / storage.MANIFEST).read_text())
    lines = []
    for chunk in chunks:
        manifest["chunks_complete"].remove(chunk)
        lines.append(json.dumps({"chunk": chunk, "run_id": manifest["run_id"],
                                 "rows": manifest["chunk_rows"].pop(str(chunk)),
                                 "sha256": manifest["chunk_sha256"].pop(str(chunk)),
                                 "seconds": manifest["chunk_seconds"].pop(str(chunk))}))
    manifest["status"] = "running"
    (out / storage.MANIFEST).write_text(json.dumps(manifest, indent=2))
    (out / storage.JOURNAL).write_text("".join(line + "\n" for line in lines))
    return out


def hands(out: Path) -> pd.DataFrame:
    """Every hands shard in the folder, in hand order (read without any check: what is on disk)."""
    return pd.read_parquet(out / "hands").sort_values("hand_index").reset_index(drop=True)


def actions(out: Path) -> pd.DataFrame:
    """Every actions shard in the folder, in order."""
    return pd.read_parquet(out / "actions").sort_values(["hand_index", "step"]).reset_index(drop=True)


@contextlib.contextmanager
def flipped(path: Path, offset: int, bit: int) -> Iterator[None]:
    """``path`` with one bit flipped for the block, its bytes put back after."""
    original = path.read_bytes()
    data = bytearray(original)
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))
    try:
        yield
    finally:
        path.write_bytes(original)


def one_line(text: str) -> str:
    """The command's stderr, checked to be one error line and no traceback."""
    assert text.count("\n") == 1 and text.startswith("knorri-sim: ") and "Traceback" not in text, text
    return text


TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent


def knorri_sim(*args: str, env_extra: dict[str, str] | None = None, **popen: Any) -> subprocess.Popen:
    """``knorri-sim`` in a fresh process, with tests/ on the path for the hostile agents (``hostile.bots``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)]), **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "experiments.cli", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def finish(process: subprocess.Popen, timeout: float = 120) -> tuple[int, str, str]:
    """Wait for a ``knorri_sim`` process: its exit code, stdout and stderr."""
    stdout, stderr = process.communicate(timeout=timeout)
    return process.returncode, stdout, stderr
