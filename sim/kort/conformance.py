"""The conformance protocol for Kort: play the seeded random match and summarise it as one line.

One splitmix64 stream, started at the seed, gives every deck (the first before
the first trump choice, a redeal's right after action 60, the next round's
right after the decision that ended a round) and every decision
(``legal[next() % len(legal)]``, even with one legal action). Two engines that
print the same line dealt the same cards, offered the same legal actions at
every decision and reached the same result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import card_text, cards_text
from sim.kort.encoding import Options, Phase, suit_text
from sim.kort.reference import KortMatch
from sim.reference_base import play_by_protocol, protocol_fields, trace_protocol


def play_protocol_match(options: Options | Mapping[str, Any] | None, seed: int) -> KortMatch:
    """The match for ``seed`` with every decision taken as ``legal[next() % len(legal)]``."""
    return play_by_protocol(lambda deal: KortMatch(options, deck_source=deal), seed)


def protocol_line(seed: int, rounds: int, redeals: int, wins: Sequence[int], winner_team: int,
                  decisions: bytes | Sequence[int]) -> str:
    """``seed rounds redeals wins_team0 wins_team1 winner_team decisions crc32``."""
    return protocol_fields(seed, [rounds, redeals, *wins, winner_team], decisions)


def reference_line(options: Options | Mapping[str, Any] | None, seed: int) -> str:
    """The protocol line of the reference engine for one seed."""
    match = play_protocol_match(options, seed)
    return protocol_line(seed, match.rounds_played, match.redeals, match.wins, match.winner_team, match.decisions)


def protocol_trace(options: Options | Mapping[str, Any] | None, seed: int) -> list[str]:
    """Every deck, decision, automatic declaration, trick and result of the seed's protocol match, one line each.

    The lines follow the format of the conformance traces (``trace_seed*.txt``), so two
    engines' traces can be compared line by line to find the first step where they part.
    """
    return trace_protocol(lambda deal: KortMatch(options, deck_source=deal), seed, _trace_lines, _step_line)


def _step_line(match: KortMatch, legal: list[int], action: int) -> str:
    return (f"step {len(match.decisions)} round {match.round_no} seat {match.to_move} "
            f"kind {Phase(match.phase).word} legal {','.join(map(str, legal))} action {action}")


def _trace_lines(event: Mapping[str, Any], match: KortMatch, decks: list[list[int]]) -> list[str]:
    """The trace lines of one log event (a deal's line shows the deck drawn for it)."""
    kind = event["kind"]
    if kind == "deal":
        return [f"deal {event['round']} {event['deal']} holder {event['holder']} deck {cards_text(decks.pop(0))}"]
    if kind == "declare" and event["automatic"]:
        return [f"auto {event['round']} seat {event['seat']} {event['declaration']}"]
    if kind == "trick":
        cards = ",".join(f"{seat}:{card_text(card)}" for seat, card in event["plays"])
        t0, t1 = event["tricks"]
        return [f"trick {event['round']} {event['no']} leader {event['leader']} cards {cards} "
                f"winner {event['winner']} tricks {t0}:{t1} states {'/'.join(event['states'])}"]
    if kind == "round_end":
        t0, t1 = event["tricks"]
        w0, w1 = event["score"]
        return [f"round {event['round']} result {event['result']} team {event['team']} wins {event['wins']} "
                f"tricks {t0}:{t1} holder {event['holder']} trump {suit_text(event['trump'])} "
                f"redeals {event['redeals']} score {w0}:{w1}"]
    if kind == "match_end":
        w0, w1 = event["wins"]
        return [f"match rounds {event['rounds']} redeals {event['redeals']} wins {w0} {w1} "
                f"winner {event['winner_team']}"]
    return []
