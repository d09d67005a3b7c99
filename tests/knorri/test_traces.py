"""The reference engine replays every conformance trace decision by decision.

A trace lists the deck of each deal, then every decision: the deal it belongs
to, the phase, the seat to move, the legal ids and the action taken; its last
line is the result. Replaying catches a wrong legal list at the step where it
first goes wrong, not just a wrong final line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import DATA

from sim.cards import parse_cards
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64

TRACES = sorted((DATA / "conformance" / "knorri").glob("trace_*.txt"))


@dataclass
class Step:
    deal: int
    index: int
    phase: int
    seat: int
    legal: list[int]
    action: int


@dataclass
class Trace:
    n_seats: int
    first_seat: int
    seed: int
    decks: list[list[int]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    result: dict[str, str | list[int]] = field(default_factory=dict)


def read_trace(path: Path) -> Trace:
    """Parse a trace file (its name gives the seats, first seat and seed)."""
    n_seats, first_seat, seed = map(int, re.search(r"seats(\d)_first(\d)_seed(\d+)", path.name).groups())
    trace = Trace(n_seats, first_seat, seed)
    for line in path.read_text().splitlines():
        words = line.split()
        if words[0] == "deal" and words[2] == "deck":
            assert int(words[1]) == len(trace.decks)
            trace.decks.append(parse_cards(" ".join(words[3:])))
        elif words[0] == "deal":
            fields = dict(zip(words[2::2], words[3::2], strict=True))
            trace.steps.append(Step(int(words[1]), int(fields["step"]), int(fields["phase"]), int(fields["seat"]),
                                    [int(a) for a in fields["legal"].split(",")], int(fields["action"])))
        elif words[0] == "result":
            scores_at = words.index("scores")
            trace.result = dict(zip(words[1:scores_at:2], words[2:scores_at:2], strict=True))
            trace.result["scores"] = [int(s) for s in words[scores_at + 1:]]
    return trace


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_reference_engine_replays_the_trace_step_by_step(path):
    trace = read_trace(path)
    assert trace.steps and trace.result, "the trace file has no steps or no result"
    protocol = SplitMix64(trace.seed)
    assert [protocol.shuffled_deck() for _ in trace.decks] == trace.decks  # the protocol deals these decks
    later_decks = iter(trace.decks[1:])
    hand = KnorriHand(trace.n_seats, trace.decks[0], trace.first_seat, redeal=lambda: next(later_decks))
    for step in trace.steps:
        where = f"step {step.index}"
        assert step.index == len(hand.decisions), where
        assert (hand.redeals, hand.phase, hand.to_move) == (step.deal, step.phase, step.seat), where
        assert hand.legal_actions() == step.legal, where
        hand.apply(step.action)
    assert hand.done
    assert hand.redeals == int(trace.result["redeals"])
    assert hand.end_reason.value == trace.result["reason"]
    assert hand.phase2_actions == int(trace.result["phase2_actions"])
    assert hand.scores == trace.result["scores"]


def test_the_traces_include_a_repeat_and_a_cap():
    reasons = {read_trace(path).result["reason"] for path in TRACES}
    assert {"out", "repeat", "cap"} <= reasons
