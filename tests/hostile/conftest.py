"""The hostile tests' fixtures: one small logged run per file, copied for every attack."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hostile.runs import make_run


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """The file's intact run, made once."""
    return make_run(tmp_path_factory.mktemp("hostile") / "run")


@pytest.fixture
def run(made, tmp_path, capsys) -> Path:
    """A copy of the intact run for one attack."""
    copy = tmp_path / "run"
    shutil.copytree(made, copy)
    capsys.readouterr()
    return copy
