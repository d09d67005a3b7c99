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

from sim.reference_base import SeatView


@dataclass(frozen=True)
class KortObservation(SeatView):
    """One seat's view of a match at one moment; plain data, JSON-serialisable via ``to_dict``.

    ``trump`` is a suit 0..3, or None while unknown (before the choice, or "13"
    before the holder's 13th card is dealt); ``trump_13`` says "13" was chosen.
    ``lead_states`` are both teams' states as text (``free``, ``sar``, ``sar_next``,
    ``trop(k,N)``, ``trop_done``); ``tricks`` and ``wins`` are per team. ``log``
    holds the engine's own public event dicts: treat them as read-only.
    """

    team: int
    options: dict[str, Any]
    round_no: int
    deal_no: int
    holder: int
    phase: int
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
    winner_team: int | None


# What each field means, for people writing agents: docs/observations.md is generated from this
# (``python -m experiments.observation_docs``) and a test checks every field is here.
FIELD_DOCS: dict[str, str] = {
    "seat": "the seat this view belongs to, 0 to 3",
    "team": "this seat's team: 0 for seats 0 and 2, 1 for seats 1 and 3",
    "options": "the match's options by name (target_wins, first_holder)",
    "round_no": "the round being played, counted from 0",
    "deal_no": "the deal within the round, counted from 0 (each redeal adds one)",
    "holder": "the seat holding the trump this round (it names trumps and leads)",
    "phase": "what the seat to move decides: 0 trumps, 1 lead (or redeal), 2 declare Sar/Trop, 3 follow, "
             "4 Bavan vote, 5 over",
    "to_move": "the seat whose decision it is",
    "hand": "this seat's own cards as dealt so far, ascending card ids",
    "card_counts": "cards each seat holds, by seat",
    "trump": "the trump suit 0-3 (C D H S) once known; None before the choice, or after \"13\" until the "
             "holder's 13th card is dealt",
    "trump_13": "True when the holder chose \"13\" (the suit of its 13th card)",
    "thirteenth": "the holder's 13th card once dealt, after \"13\" was chosen; None otherwise",
    "leader": "the seat that leads the current trick",
    "trick_no": "tricks completed this round (the current trick's number, counted from 0)",
    "trick": "the current trick's plays in order, as (seat, card id)",
    "tricks": "tricks each team has taken this round, by team",
    "lead_states": "each team's lead state as text: free, sar, sar_next, trop(k,N), trop_done",
    "bavan_team": "the team playing on for Bavan this round, or None",
    "own_vote": "this seat's own Bavan vote once cast, as its action id (61 yes, 62 no), else None",
    "wins": "match wins so far, by team",
    "legal": "the legal action ids, ascending, when this seat is to move; () otherwise",
    "done": "True once the match has ended",
    "winner_team": "the team that won the match once done, else None",
    "scores": "each seat's result: 0 until the end, then +1 for the winning team's seats and -1 for the others",
    "log": "the public log: the engine's event dicts in order (read-only): deals, trumps, redeals (holder's "
           "cards shown), plays, declarations, tricks, votes once both are cast, round ends",
}
