"""The reference engine reproduces every line of the independent conformance vectors made under the cut-off options."""

from __future__ import annotations

import re

import pytest
from conftest import DATA

from sim.knorri.conformance import reference_line

VARIANTS = {"cap200": {"cap": 200}, "norepeat": {"repeat": 0, "cap": 20000}, "threefold": {"repeat": 3}}
VECTORS = sorted((DATA / "conformance" / "knorri" / "variants").glob("traj_*_seats*_first*.txt"))


def _variant(path):
    variant, n_seats, first = re.fullmatch(r"traj_([a-z0-9]+)_seats(\d)_first(\d)", path.stem).groups()
    return VARIANTS[variant], int(n_seats), int(first)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_reference_engine_reproduces_every_line_under_the_options(path):
    options, n_seats, first = _variant(path)
    lines = path.read_text().splitlines()
    assert len(lines) == 1000
    mismatches = [(line, got) for line in lines
                  if (got := reference_line(n_seats, int(line.split()[0]), first, **options)) != line]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


def test_variant_vectors_cover_every_variant_at_every_seat_count():
    covered = {(re.match(r"traj_([a-z0-9]+)_", p.name).group(1), _variant(p)[1]) for p in VECTORS}
    assert covered == {(v, n) for v in VARIANTS for n in (3, 4, 5, 6)}


def test_the_variants_reach_the_cut_offs_they_are_about():
    reasons = {p.stem: {line.split()[2] for line in p.read_text().splitlines()} for p in VECTORS}
    assert all("cap" in r for name, r in reasons.items() if "cap200" in name)
    assert all("repeat" not in r for name, r in reasons.items() if "norepeat" in name)
