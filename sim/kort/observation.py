"""What one seat may know of a Kort match (the rulings' "Agents and information").

An observation holds the seat's own cards as dealt so far, the holder, the
trumps once fixed (or that "13" was chosen, and the holder's 13th card once
dealt), the current trick, both teams' tricks, lead states and wins, whether
Bavan is on, the seat's own Bavan vote, and the public log (every play,
declaration, trick, redeal with the holder's cards shown, and the votes once
both are cast). It never holds another seat's hand, the partner's included,
the deck order, or a partner's Bavan vote before both are cast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.reference_base import Observation


@dataclass(frozen=True)
class KortObservation(Observation):
    """One seat's view of a match at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``trump`` is a suit 0..3, or None while unknown (before the choice, or "13"
    before the holder's 13th card is dealt); ``trump_13`` says "13" was chosen.
    ``lead_states`` are both teams' states as text (``free``, ``sar``, ``sar_next``,
    ``trop(k,N)``, ``trop_done``); ``tricks`` and ``wins`` are per team. ``log``
    holds the engine's own public event dicts: treat them as read-only.
    """

    seat: int
    team: int
    options: dict[str, Any]
    round_no: int
    deal_no: int
    holder: int
    phase: int
    to_move: int
    hand: tuple[int, ...]
    card_counts: tuple[int, ...]
    trump: int | None
    trump_13: bool
    thirteenth: int | None
    leader: int
    trick_no: int
    trick: tuple[tuple[int, int], ...]
    tricks: tuple[int, ...]
    lead_states: tuple[str, ...]
    bavan_team: int | None
    own_vote: int | None
    wins: tuple[int, ...]
    legal: tuple[int, ...]
    done: bool
    winner_team: int | None
    scores: tuple[int, ...]
    log: tuple[dict[str, Any], ...]
