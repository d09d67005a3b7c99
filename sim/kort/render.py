"""A Kort position drawn as SVG (the contract's render facet, ``sim.contract.GameRender``).

It shows the round (its holder and trumps, the holder's 13th card when it chose
"13"), each seat's cards, the trick's plays in order, each team's trump badge
(Sar, Trop with its trump leads, Trop to the end, Bavan), tricks this round and
match wins, and how the match ended. Drawn for an analyst every hand is face up;
drawn for one ``seat``, only its own cards are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import card_list
from sim.errors import GameInputError
from sim.kort.encoding import NUM_SEATS, NUM_TEAMS, TROP_TO_END_LEADS, LeadKind, Phase
from sim.kort.reference import KortMatch
from sim.svg_cards import Sheet, card_label, legal_cards, seat_label, suit_symbol

TEAM_COLOURS = ("#2f5d8c", "#a3392f")


def render_svg(match: KortMatch, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The position of ``match`` as one SVG document: every hand, or what ``seat`` may know; ``names`` are the
    agents at the seats, each named beside its seat, and the seat to move has its legal cards raised."""
    if seat is not None and not 0 <= seat < NUM_SEATS:
        raise GameInputError(f"a Kort seat is 0 to {NUM_SEATS - 1}, not {seat}")
    sheet = Sheet()
    whose = "analyst's view" if seat is None else f"seat {seat}'s view"
    target = match.options.target_wins
    sheet.heading(f"Kort: round {match.round_no + 1}" + (f", redeal {match.deal_no}" if match.deal_no else ""),
                  whose)
    trumps = "to be chosen" if match.trump is None else suit_symbol(match.trump)
    thirteenth = "" if match.thirteenth is None else f" (13th card {card_label(match.thirteenth)})"
    sheet.line(f"holder seat {match.holder} (team {match.holder % 2}); trumps {trumps}{thirteenth}; "
               f"trick {match.trick_no + 1}; {_phase_text(match)}")
    sheet.groups("trick", [(f"seat {who}", [card]) for who, card in match.trick])
    for team in range(NUM_TEAMS):
        sheet.badges([(f"team {team}: {match.tricks[team]} tricks", TEAM_COLOURS[team]),
                      (f"{match.wins[team]} of {target} match wins", TEAM_COLOURS[team]),
                      *((badge, "#e08a00") for badge in trump_badges(match, team))],
                     f"team {team} (seats {team}, {team + 2})")
    for other in range(NUM_SEATS):
        shown = seat is None or other == seat
        cards = card_list(match.hands[other])
        marked = legal_cards(cards, match.legal_actions()) if shown and other == match.to_move and not match.done \
            else []
        sheet.cards(seat_label(other, names), cards if shown else [], 0 if shown else len(cards),
                    note=f"team {other % 2}, {len(cards)} cards", to_move=other == match.to_move, marked=marked)
    if match.done:
        sheet.line(f"end ({match.end_reason.value}): team {match.winner_team} wins "
                   f"{match.wins[0]}:{match.wins[1]} after {match.rounds_played} rounds", "h")
    elif match.rounds:
        last = match.rounds[-1]
        sheet.line(f"last round: {last['result']} for team {last['team']} (+{last['wins']})", "small")
    return sheet.svg(f"Kort position after {len(match.decisions)} decisions")


def trump_badges(match: KortMatch, team: int) -> list[str]:
    """The team's trump badge words: its declaration in force (Sar, Trop k of 3, Trop to the end) and Bavan."""
    state = match.lead_states[team]
    words = []
    if state.kind in (LeadKind.SAR, LeadKind.SAR_NEXT):
        words.append("Sar")
    elif state.kind == LeadKind.TROP:
        name = "Trop to the end" if state.of == TROP_TO_END_LEADS else "Trop"
        words.append(f"{name} {state.made}/{state.of}")
    elif state.kind == LeadKind.TROP_DONE:
        words.append("Trop made")
    if match.bavan_team == team:
        words.append("Bavan")
    return words


def _phase_text(match: KortMatch) -> str:
    if match.done:
        return "over"
    return {Phase.TRUMP: "holder chooses trumps", Phase.LEAD: "lead", Phase.DECLARE: "declaration to make",
            Phase.FOLLOW: "follow", Phase.VOTE: "Bavan vote"}.get(match.phase, "") + f": seat {match.to_move}"


def repeat_span(match: KortMatch, row: Mapping[str, Any] | None = None) -> tuple[int, int] | None:
    """Kort has no repeat cut-off: always None."""
    return None
