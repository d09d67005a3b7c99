"""The conformance protocol for Knockout Whist: play the seeded random game and summarise it as one line.

One splitmix64 stream, started at the seed, gives every permutation (a tie cut,
then the deal, for each hand, as they happen) and every decision
(``legal[next() % len(legal)]``, even with one legal action). Two engines that
print the same line dealt the same cards, offered the same legal actions at
every decision and reached the same result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.cards import card_list, card_text, cards_text
from sim.knockout_whist.encoding import Options, Phase, trumps_text
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.reference_base import play_by_protocol, protocol_fields, trace_protocol


def play_protocol_game(options: Options | Mapping[str, Any] | None, seed: int) -> KnockoutWhistGame:
    """The game for ``seed`` with every decision taken as ``legal[next() % len(legal)]``."""
    return play_by_protocol(lambda deal: KnockoutWhistGame(options, deck_source=deal), seed)


def protocol_line(seed: int, hands_played: int, winner: int, scores: Sequence[int],
                  decisions: bytes | Sequence[int]) -> str:
    """``seed hands_played winner score_0 … score_{n-1} decisions crc32``."""
    return protocol_fields(seed, [hands_played, winner, *scores], decisions)


def reference_line(options: Options | Mapping[str, Any] | None, seed: int) -> str:
    """The protocol line of the reference engine for one seed."""
    game = play_protocol_game(options, seed)
    return protocol_line(seed, game.hands_played, game.winner, game.scores, game.decisions)


def protocol_trace(options: Options | Mapping[str, Any] | None, seed: int) -> list[str]:
    """Every permutation, hand, decision, trick and result of the seed's protocol game, one line each.

    The lines follow the format of the conformance traces (``trace_seats*_seed*.txt``), so two
    engines' traces can be compared line by line to find the first step where they part.
    """
    return trace_protocol(lambda deal: KnockoutWhistGame(options, deck_source=deal), seed, _trace_lines, _step_line)


def _step_line(game: KnockoutWhistGame, legal: list[int], action: int) -> str:
    return (f"step {len(game.decisions)} hand {game.hand_no} phase {_PHASE_WORDS[game.phase]} "
            f"seat {game.to_move} legal {_ids(legal)} action {action}")


_PHASE_WORDS = {Phase.CHOOSE: "choose", Phase.EXCHANGE: "exchange", Phase.PLAY: "play"}


def _ids(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values) or "-"


def _trace_lines(event: Mapping[str, Any], game: KnockoutWhistGame, perms: list[list[int]]) -> list[str]:
    """The trace lines of one log event (a deal's lines use the engine's record of what each seat was dealt)."""
    kind = event["kind"]
    if kind == "cut":
        pairs = " ".join(f"seat {s} card {card_text(c)}" for s, c in zip(event["seats"], event["cards"], strict=True))
        return [f"cut hand {event['hand']} perm {cards_text(perms.pop(0))}",
                f"cut hand {event['hand']} {pairs} chooser {event['chooser']}"]
    if kind == "hand":
        chooser = "-" if event["chooser"] is None else event["chooser"]
        return [f"deal hand {event['hand']} perm {cards_text(perms.pop(0))}",
                f"hand {event['hand']} dealer {event['dealer']} leader {event['leader']} cards {event['cards']} "
                f"seats {_ids(event['seats'])} dogs {_ids(event['dogs'])} chooser {chooser}",
                *(f"held hand {event['hand']} seat {s} cards {cards_text(card_list(game.dealt[s]))}"
                  for s in event["seats"])]
    if kind == "turned":
        return [f"turned hand {event['hand']} card {card_text(event['card'])}"]
    if kind == "rainbow":
        return [f"rainbow hand {event['hand']} seat {event['seat']}"]
    if kind == "trumps":
        return [f"trumps hand {event['hand']} suit {trumps_text(event['suit'])}"]
    if kind == "trick":
        return [f"trick hand {event['hand']} no {event['no']} winner {event['winner']}"]
    if kind == "end_hand":
        return [f"end hand {event['hand']} tricks {_ids(event['tricks'])} out {_ids(event['out'])} "
                f"dogs {_ids(event['dogs'])}"]
    if kind == "end":
        return [f"result hands_played {event['hands_played']} winner {event['winner']} reason {event['reason']} "
                f"scores {' '.join(str(s) for s in event['scores'])}"]
    return []
