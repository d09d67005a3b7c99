"""Folders for the runs a notebook plays for itself (its sample runs, when no run folder is given).

Each lasts as long as the process that asked for it, a notebook's kernel, and is removed when that process
exits: running the notebooks again and again (as the tests do) leaves nothing behind in the temporary folder.
A run worth keeping is played into a folder of one's own and named in the notebook's parameters instead.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

_HELD: list[tempfile.TemporaryDirectory] = []  # held here so that each folder lives until the process exits


def scratch_folder(prefix: str) -> Path:
    """A new empty folder under the system's temporary folder, its name starting with ``prefix``, removed with
    everything in it when this process exits."""
    folder = tempfile.TemporaryDirectory(prefix=prefix)
    _HELD.append(folder)
    return Path(folder.name)
