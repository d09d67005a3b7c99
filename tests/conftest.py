"""Shared test helpers: where the data lives and how to load scenario fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SCENARIOS = ROOT / "seeds" / "scenarios"


def load_scenario(name: str) -> dict:
    """A scenario fixture from seeds/scenarios/ by file stem."""
    return json.loads((SCENARIOS / f"{name}.json").read_text())


@pytest.fixture
def scenario():
    """Load a scenario by name: ``scenario("opening_run")``."""
    return load_scenario
