"""Every version of ``mcts`` decides as it did when its digest here was taken (2026-12-08, at e2cbad8): a digest of
each version's decisions and results on fixed deals.

The row-for-row lineup checks (``test_compiled_lineups.py``) hold the Python agent and the compiled lineup to each
other, and both run one compiled search: a change to that search changes both paths alike and passes there. These
digests catch it. A version's digest changes only with a deliberate change to that version, which for a version
researchers have published with should be a new version instead; the assertion's message gives the new digest.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from experiments.runner import routes

# (seats, the lineup with the version at seat 0, deals): each deal turns the table one seat further; versions 5 and
# 6 search alike at 4 seats and differ at 6 with two of the five others random (``search_rules.playout_horizon``)
TABLES = ((4, "{spec};greedy;loginf;random", 8), (6, "{spec};random;greedy;random;loginf;greedy", 3))
DIGESTS = {  # each version with its own budgets and settings, as a spec naming it plays
    "mcts:version=1": "b3759694",
    "mcts:version=2": "28309eb7",
    "mcts:version=3": "d90777c2",
    "mcts:version=4": "cf260509",
    "mcts:version=5": "8b097887",
    "mcts": "eb4562d5",
}


def decisions_digest(spec: str) -> str:
    """CRC-32 of every decision and each hand's result when ``spec`` plays the deals of ``TABLES``."""
    parts = []
    for n_seats, table, deals in TABLES:
        lineup = table.format(spec=spec).split(";")
        seatings = [lineup[i % n_seats:] + lineup[:i % n_seats] for i in range(deals)]
        seeds = [9_100 + 17 * i for i in range(deals)]
        played = routes.play_matches("knorri", n_seats, seeds, seatings, log_actions=True, engine="compiled")
        parts += [np.ascontiguousarray(played.actions[name]).tobytes() for name in sorted(played.actions)]
        parts += [np.ma.filled(played.hands[name], -1).tobytes() for name in ("decisions_crc32", "score", "end_reason")]
    return f"{zlib.crc32(b''.join(parts)):08x}"


@pytest.mark.parametrize("spec", list(DIGESTS))
def test_a_version_of_mcts_decides_as_when_its_digest_was_taken(spec):
    digest = decisions_digest(spec)
    assert digest == DIGESTS[spec], f"{spec}: decisions digest {digest}, stored {DIGESTS[spec]}"
