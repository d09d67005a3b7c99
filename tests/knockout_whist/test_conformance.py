"""The reference engine reproduces every line of the independent Knockout Whist conformance vectors and traces.

The vectors (copied from the shared conformance set into tests/data) give one
line per seed for every seat count with the default options and for each
variant on its own; the traces list every permutation and decision of three
whole games, so a difference shows the first step where the engines part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import DATA

from sim.knockout_whist.conformance import protocol_trace, reference_line
from sim.knockout_whist.encoding import FLAG_OPTIONS, Options

VECTOR_DIR = DATA / "conformance" / "knockout_whist"
VECTORS = sorted(VECTOR_DIR.glob("traj_seats*_*.txt"))
TRACES = sorted(VECTOR_DIR.glob("trace_seats*_seed*.txt"))


def vector_options(path: Path) -> Options:
    """The options a vector file is named after: ``traj_seats4_no_dogs_life`` is dogs_life off, the rest default."""
    n_seats, variant = re.fullmatch(r"(?:traj|trace)_seats(\d)_(\w+)", path.stem).groups()
    if variant == "default" or variant.startswith("seed"):  # the traces are default games
        return Options(players=int(n_seats))
    if variant == "no_dogs_life":
        return Options(players=int(n_seats), dogs_life=False)
    return Options(players=int(n_seats), **{variant: True})


def first_difference(expected: Sequence[str], got: Sequence[str], context: int = 3) -> str | None:
    """None if the two traces agree; else the first differing line of each, with the lines before it."""
    for index in range(max(len(expected), len(got))):
        want = expected[index] if index < len(expected) else "(end of trace)"
        have = got[index] if index < len(got) else "(end of trace)"
        if want != have:
            before = "\n".join(f"    {line}" for line in expected[max(0, index - context):index])
            return f"line {index + 1} differs, after:\n{before}\n  expected: {want}\n  engine:   {have}"
    return None


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_reference_engine_reproduces_every_conformance_line(path):
    options = vector_options(path)
    lines = path.read_text().splitlines()
    assert len(lines) == (1000 if path.stem.endswith("default") else 500)
    mismatches = [(line, got) for line in lines if (got := reference_line(options, int(line.split()[0]))) != line]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


def test_vectors_cover_every_seat_count_and_each_variant_alone():
    defaults = {vector_options(p).players for p in VECTORS if p.stem.endswith("default")}
    variants = {p.stem.split("_", 2)[2] for p in VECTORS if not p.stem.endswith("default")}
    assert defaults == set(range(2, 8))
    assert variants == {"no_dogs_life"} | set(FLAG_OPTIONS) - {"dogs_life"}


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_reference_engine_replays_the_trace_step_by_step(path):
    seed = int(re.search(r"seed(\d+)", path.stem).group(1))
    expected = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    difference = first_difference(expected, protocol_trace(vector_options(path), seed))
    assert difference is None, difference


def test_the_traces_include_a_tie_cut_dogs_and_a_knock():
    text = "".join(path.read_text() for path in TRACES)
    assert "cut hand" in text and re.search(r"dogs \d", text) and re.search(r"action 52$", text, flags=re.M)


def test_a_trace_difference_names_the_line_and_what_came_before():
    expected = ["deal hand 1 perm 2C", "step 0 hand 1 phase play seat 1 legal 3,4 action 3",
                "trick hand 1 no 0 winner 1"]
    got = expected[:1] + ["step 0 hand 1 phase play seat 1 legal 3,4 action 4"]
    message = first_difference(expected, got)
    assert message.startswith("line 2 differs") and "deal hand 1 perm 2C" in message
    assert "expected: step 0 hand 1 phase play seat 1 legal 3,4 action 3" in message
    assert first_difference(expected, expected[:2]).endswith("engine:   (end of trace)")
