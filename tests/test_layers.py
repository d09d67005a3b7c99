"""The import contract holds: `lint-imports` checks the contracts in pyproject.toml's [tool.importlinter].

Imports flow one way (experiments -> rl -> agents -> sim), no game's package imports another
game's, and agents reach an engine only through its public compiled API, never its internals.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def _lint_imports() -> str:
    """The venv's ``lint-imports`` (next to this Python), else the one on the PATH."""
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports") or "lint-imports"


def test_imports_keep_the_layers_and_the_games_apart():
    result = subprocess.run([_lint_imports(), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_covers_every_package_and_game():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'layers = ["experiments", "rl", "agents", "sim"]' in text
    assert 'modules = ["sim.knorri", "sim.knockout_whist", "sim.kort"]' in text
    assert '"import-linter>=' in text

