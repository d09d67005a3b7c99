"""The reference engine reproduces every line of the independent conformance vectors."""

from __future__ import annotations

import re

import pytest
from conftest import DATA

from sim.knorri.conformance import reference_line

VECTORS = sorted((DATA / "conformance" / "knorri").glob("traj_seats*_first*.txt"))


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_reference_engine_reproduces_every_conformance_line(path):
    n_seats, first = map(int, re.search(r"seats(\d)_first(\d)", path.name).groups())
    lines = path.read_text().splitlines()
    assert len(lines) == 1000
    mismatches = [
        (line, got)
        for line in lines
        if (got := reference_line(n_seats, int(line.split()[0]), first)) != line
    ]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


def test_vectors_cover_every_seat_count_and_both_first_seats():
    covered = {re.search(r"seats(\d)_first(\d)", p.name).groups() for p in VECTORS}
    assert {n for n, _ in covered} == {"3", "4", "5", "6"}
    assert len(covered) == 8
