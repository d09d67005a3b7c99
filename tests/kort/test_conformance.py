"""The reference engine reproduces every line of the independent Kort conformance vectors and traces.

The vectors (copied from the shared conformance set into tests/data) give one
line per seed for matches to 7 and to 3 wins; the traces list every deck,
decision, automatic declaration and trick of three whole matches, so a
difference shows the first step where the engines part.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter

import pytest
from conftest import DATA
from knockout_whist.test_conformance import first_difference

from sim.kort.conformance import play_protocol_match, protocol_line, protocol_trace, reference_line
from sim.kort.encoding import Options

VECTOR_DIR = DATA / "conformance" / "kort"
VECTORS = {7: VECTOR_DIR / "traj_target7.txt", 3: VECTOR_DIR / "traj_target3.txt"}
TRACES = sorted(VECTOR_DIR.glob("trace_seed*.txt"))


@pytest.mark.parametrize("target", sorted(VECTORS), ids=lambda t: f"target{t}")
def test_reference_engine_reproduces_every_conformance_line(target):
    lines = VECTORS[target].read_text().splitlines()
    assert len(lines) == 1000
    options = Options(target_wins=target)
    mismatches = [(line, got) for line in lines if (got := reference_line(options, int(line.split()[0]))) != line]
    assert not mismatches, (f"{len(mismatches)} lines differ; first expected / engine:\n  {mismatches[0][0]}\n"
                            f"  {mismatches[0][1]}\n(compare sim.kort.conformance.protocol_trace for that seed)")


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_reference_engine_replays_the_trace_step_by_step(path):
    seed = int(re.search(r"seed(\d+)", path.stem).group(1))
    expected = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    difference = first_difference(expected, protocol_trace(Options(), seed))
    assert difference is None, difference


def test_the_traces_hold_every_automatic_case_a_chosen_trop_and_both_seven_nil_outcomes():
    text = "".join(path.read_text() for path in TRACES)
    for word in ("sar_auto_fewer_than_3", "sar_auto_5_tricks", "alltrump", "trop(2,3)", "result at_kort",
                 "kind declare legal 57,58 action 58", "kind vote"):
        assert word in text, word


def test_the_vector_seeds_reach_every_result_and_declaration():
    """The first seeds of the vectors already play every kind of round and declaration (Trop to the end
    included), so matching their lines checks all of them, not only ordinary rounds."""
    results: Counter[str] = Counter()
    declarations: Counter[str] = Counter()
    for seed in (0, 29, 64, 171, 475):
        for round_record in play_protocol_match(Options(), seed).rounds:
            results[round_record["result"]] += 1
            declarations.update(d["declaration"] for d in round_record["declarations"])
    assert set(results) == {"ordinary", "kort", "at_kort", "bavan_made", "bavan_failed", "trop_failed"}
    assert set(declarations) == {"sar", "trop", "trop_to_end", "sar_auto_fewer_than_3", "sar_auto_5_tricks",
                                 "alltrump"}


def test_the_protocol_line_has_the_vectors_fields():
    crc = zlib.crc32(bytes([52, 0, 61]))
    assert protocol_line(5, 3, 1, [7, 2], 0, [52, 0, 61]) == f"5 3 1 7 2 0 3 {crc}"
