"""Ten's adapter: every name of ``sim.contract.GameAdapter``, on the reference engine alone (no compiled engine)."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sim import contract
from sim.agent import AgentMaker
from sim.contract import (
    ChunkColumns,
    ColumnSpec,
    decision_columns,
    places_from_values,
)
from sim.errors import GameInputError
from sim.reference_base import play_by_protocol, protocol_fields
from sim.seating import DecisionLog, on_compiled_engine, play_one_per_seed
from tiny_game.engine import MAX_SEATS, MIN_SEATS, EndReason, TenGame

TITLE = "Ten"
DEFAULT_SEATS = 2
ROW = "game"
MATCH_HANDS = (1,)
OPTIONS: tuple[contract.OptionSpec, ...] = ()
SEED_DERIVATION = "game seed = derive_seed(match_seed, 0) (a match is one game)"
OUTCOME = ("winner", "win rate")
SUMMARY_REASONS: tuple[str, ...] = ()
END_REASON_DOCS = {"played_out": "every card was played"}
CUT_OFFS: tuple[str, ...] = ()  # three tricks always end
PLACE_COLUMNS = ("score",)
ID_DOCS: dict[str, str] = {}
HAND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", "the game's seed"),
    ColumnSpec("winner", "int32", "the seat with most tricks (a tie: the tied seat that took a trick last)"),
    ColumnSpec("end_reason", "int8", "how the game ended", categories=tuple(reason.value for reason in EndReason)),
    ColumnSpec("score", "int8", "the tricks the seat took", per_seat=True),
    ColumnSpec("decisions", "int32", "cards played"),
    ColumnSpec("decisions_crc32", "uint32", "CRC-32 of the cards played, one byte each, in order"),
)
ACTION_COLUMNS = decision_columns("game", "always 0: Ten has one phase", "the card played, 0 to 9")
LEARNING = None  # no RL interface: no tensors or batches
ENGINE_POLICIES: tuple[str, ...] = ()  # no compiled engine, so no batch engine either
COMPILED_CODE: dict[str, float] = {}
COMPILED_LOGS_ACTIONS = False
BATCH_POLICIES = None
BENCH = contract.Bench(seats=(2, 3), steps="decisions", steps_of=lambda game: len(game.decisions),
                       default_counts={"reference": 1_000})


def check_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Ten has no options."""
    if options:
        raise GameInputError(f"Ten has no options, so not {', '.join(sorted(options))}")
    return {}



def seat_teams(n_seats: int) -> tuple[int, ...]:
    """No partners."""
    return tuple(range(n_seats))


def score_range(n_seats: int) -> tuple[float, float]:
    """A seat takes none to all three tricks."""
    return 0.0, 3.0


def finishing_places(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """More tricks finish ahead."""
    return places_from_values(columns["score"])


def action_text(action: int) -> str:
    """A card is its number."""
    return f"card {action}"


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: TenGame | None = None) -> TenGame:
    """The game dealt from ``seed``; seat 0 always leads."""
    check_options(options)
    contract.no_first_seat(TITLE, "seat 0 leads", first)
    return TenGame(_check_seats(n_seats), seed)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """``seed winner tricks... decisions crc32`` for each seed's protocol game (one stream: shuffle, then choices)."""
    check_options(options)
    contract.no_first_seat(TITLE, "seat 0 leads", first)
    n_seats = _check_seats(n_seats)
    games = (play_by_protocol(lambda source: TenGame(n_seats, deck_source=source), int(seed)) for seed in seeds)
    return [protocol_fields(int(seed), [game.winner, *game.tricks], game.decisions)
            for seed, game in zip(seeds, games, strict=True)]


def describe_event(event: Mapping[str, Any]) -> str:
    """A log event in words."""
    if event["kind"] == "play":
        return f"  seat {event['seat']} plays {event['card']}"
    if event["kind"] == "trick":
        return f"trick {event['cards']} to seat {event['taker']}"
    return f"{event['kind']}: " + ", ".join(f"{key}={value}" for key, value in event.items() if key != "kind")


def describe_end(game: TenGame) -> str:
    """The winner and the tricks."""
    return f"end ({game.end_reason.value}): seat {game.winner} wins; tricks {game.tricks}"


def play_matches(n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int = 1,
                 log_actions: bool = False, options: Mapping[str, Any] | None = None,
                 make_agent: AgentMaker | None = None, *, engine: str) -> ChunkColumns:
    """One game per match seed on the reference engine, every column of ``HAND_COLUMNS`` (and the decisions)."""
    check_options(options)
    on_compiled_engine(engine, seatings, ENGINE_POLICIES, log_actions, COMPILED_LOGS_ACTIONS)  # refuses compiled
    log = DecisionLog() if log_actions else None
    played = play_one_per_seed(n_seats, match_seeds, seatings, log, make_agent,
                               lambda seed: TenGame(n_seats, seed), "the Ten game", action_text)
    hands = {
        "seed": np.array([seed for seed, _ in played], dtype=np.uint64),
        "winner": np.array([game.winner for _, game in played], dtype=np.int32),
        "end_reason": np.zeros(len(played), dtype=np.int8),
        "score": np.array([game.tricks for _, game in played], dtype=np.int8).reshape(len(played), n_seats),
        "decisions": np.array([len(game.decisions) for _, game in played], dtype=np.int32),
        "decisions_crc32": np.array([zlib.crc32(bytes(game.decisions)) for _, game in played], dtype=np.uint32),
    }
    return ChunkColumns(hands=hands, actions=log.columns() if log else None)


def _check_seats(n_seats: int) -> int:
    if not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise GameInputError(f"Ten is for {MIN_SEATS} to {MAX_SEATS} seats, not {n_seats}")
    return int(n_seats)
