"""Knockout Whist's adapter for the experiment runner: one row per whole game.

It provides every name ``sim.games`` asks of a game's adapter. The runner hands
it a seat count, one seed and one seating (an agent spec per seat) per match,
and the game's options; a match is one game, so it gets back one value per game
for every column of ``HAND_COLUMNS`` (per-seat columns as ``[games, seats]``
arrays), in match order, and optionally every decision.

Game ``i`` is ``KnockoutWhistGame(options, seed)`` with ``seed =
derive_seed(match_seed, 0)``: that seed's splitmix64 stream draws every tie cut
and deal, as the conformance protocol fixes. Every agent is reset once per game
with ``agent_seed(seed, seat)``, so a game with its agents is a function of its
seed, seating and options alone: the chunking and the worker never change a
result.

Two paths give the same rows. When every seat's spec names a built-in agent
(``random``, ``greedy``, ``tracker`` or ``mcts`` with any parameters but a
wall-clock ``time`` budget), the games are played inside compiled code: a lineup
of bare ``random`` by ``sim.knockout_whist.compiled.batch.play_batch`` with its ``random``
policy (seat s draws from ``agent_seed(seed, s)`` exactly as ``RandomAgent``
does), any other by ``agents.knockout_whist.lineup.play_lineups``, whose compiled
agents make the Python agents' very decisions (each seat with its own tracker,
stream and search state, reset every game). Otherwise, that is with a user's agent
given by import path or ``mcts:time=...``, and whenever the decisions are logged
(the compiled playouts keep no action log), each game is played by the reference
engine with the agents. A lineup of vectorised agents (``act_batch``) with
``random`` and ``greedy`` seats plays on ``KnockoutWhistBatch``, stepped by
``sim.batch_agents`` (the hook: ``BATCH_POLICIES``, ``start_batch``, ``batch_columns``).
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import Agent
from sim import batch_agents
from sim.errors import GameInputError
from sim.games import AgentFailure, ChunkColumns, ColumnSpec, derive_seeds, nullable, places_from_values
from sim.knockout_whist.encoding import (
    FLAG_OPTIONS,
    LAST_HAND,
    MAX_SEATS,
    MIN_SEATS,
    EndReason,
    Options,
    Status,
    action_text,
    parse_options,
)
from sim.knockout_whist.facts import (  # the commands' hooks (sim.contract.GameAdapter)
    BENCH,
    DEFAULT_SEATS,
    LEARNING,
    OPTIONS,
    conformance_lines,
    deal,
    describe_end,
    describe_event,
)
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.policy_ids import GREEDY, RANDOM
from sim.rng import derive_seed
from sim.seating import (
    DecisionLog,
    check_one_per_match,
    check_specs,
    is_compiled_lineup,
    play_one_per_seed,
    play_with_agents,
    plays_compiled,
    replay_command,
)

if TYPE_CHECKING:
    from sim.knockout_whist.compiled.batch import BatchResults, KnockoutWhistBatch

__all__ = ["ACTION_COLUMNS", "AgentFailure", "BATCH_POLICIES", "BENCH", "DEFAULT_SEATS", "HAND_COLUMNS", "LEARNING",
           "MAX_SEATS", "MIN_SEATS", "OPTIONS", "batch_columns", "check_lineup", "check_options", "conformance_lines",
           "deal", "describe_end", "describe_event", "finishing_places", "game_seed", "is_compiled", "play_game",
           "play_matches", "replay", "seat_teams", "start_batch"]

GAME = "knockout-whist"
TITLE = "Knockout Whist"
ROW = "game"
MATCH_HANDS = (1,)  # a match is one game
SEED_DERIVATION = "game seed = derive_seed(match_seed, 0) (a match is one game)"
OUTCOME = ("winner", "win rate")
SUMMARY_REASONS: tuple[str, ...] = ()
END_REASONS = tuple(reason.value for reason in EndReason)
# Agents the compiled engine plays itself: the name and what makes the same choices there (tested row for row).
COMPILED_AGENTS: dict[str, str] = {
    "random": "the engine's random policy (batch.play_batch) or the lineup kernel",
    "greedy": "the compiled greedy policy, in the lineup kernel (agents.knockout_whist.lineup)",
    "tracker": "a compiled tracker row per seat, in the lineup kernel",
    "mcts": "the compiled search with a tracker row and stream per seat, in the lineup kernel (not with time=)",
}
# The compiled engine's batch kernels, with the CPU seconds compiling them takes on first use (measured: a cold
# `knorri-sim run --game knockout-whist --agents random --hands 2000 --workers 1` took 11.3 s of CPU, 1.9 s cached).
COMPILED_CODE: dict[str, float] = {"sim.knockout_whist.compiled.playout": 9.0}
# The lineup kernel (measured: a cold `knorri-sim run --game knockout-whist --agents
# 'random;greedy;tracker;mcts:iters=10' --hands 8 --workers 1` took 40.2 s of CPU, 2.2 s once cached).
LINEUP_CODE: dict[str, float] = {"agents.knockout_whist.lineup": 38.0}

ID_DOCS = {
    "chunk": "the chunk (shard) the game was played in",
    "deal_group": "the seeded game within its table; every arrangement plays it (duplicate deals)",
    "arrangement": "which seating of the lineup (fixed, a rotation or a permutation)",
    "match": "the game's index in the run, from 0 (a match is one game)",
    "hand_in_match": "always 0: a Knockout Whist match is one game",
    "hand_index": "the game's index in the run, from 0: unique (the runner's row number)",
    "match_seed": "the seed the game's seed derives from: seed = derive_seed(match_seed, 0)",
}

HAND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", "the game's seed: KnockoutWhistGame(options, seed=SEED) deals it, every agent "
               "reset with agent_seed(SEED, seat); sim.knockout_whist.simulate.replay(options, SEED, actions) "
               "replays it from the actions table"),
    *(ColumnSpec(option.name, "bool", f"option {option.name}: {option.doc}") for option in OPTIONS),
    ColumnSpec("hands_played", "uint8", "hands dealt, 1 to 7 (a rainbow end counts 4)"),
    ColumnSpec("winner", "uint8", "the seat that won the game"),
    ColumnSpec("end_reason", "int8", "how the game ended: last_trick (hand 7), last_standing or rainbow",
               categories=END_REASONS),
    ColumnSpec("score", "int8", "the seat's score: n - 1 for the winner, -1 for every other seat (sums to zero)",
               per_seat=True),
    ColumnSpec("place", "uint8", "the seat's finishing place: 1 for the winner, else 1 + the seats that lasted "
               "longer (seats out after the same hand share a place; at a rainbow end the seats still in "
               "share place 2)", per_seat=True),
    ColumnSpec("out_hand", "uint8", "the hand after which the seat was knocked out (1 to 7); null for a seat "
               "never knocked out (the winner, or a seat still in when a rainbow ended the game)", per_seat=True),
    ColumnSpec("dog_hand", "uint8", "the hand the seat played on its dog's life (2 to 7); null if it had none",
               per_seat=True),
    ColumnSpec("dogs_given", "uint8", "seats given a dog's life in the game (all in the same hand)"),
    ColumnSpec("dogs_saved", "uint8", "dogs whose one card took a trick, so they played on as ordinary seats"),
    ColumnSpec("seats_left", "uint8", "seats not knocked out at the end (1, or more at a rainbow end)"),
    ColumnSpec("decisions", "uint16", "decisions taken (trump choices, exchange picks, plays and knocks)"),
    ColumnSpec("decisions_crc32", "uint32", "CRC-32 of the decisions' action ids, one byte each, in order "
               "(as in the conformance protocol)"),
)

ACTION_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("step", "uint16", "the decision's place in the game, from 0"),
    ColumnSpec("seat", "uint8", "the seat that decided"),
    ColumnSpec("hand", "uint8", "the hand of the game it was taken in, 1 to 7"),
    ColumnSpec("phase", "uint8", "0 trump choice, 1 card exchange, 2 play or knock"),
    ColumnSpec("action", "uint8", "the action id (0..58, see the rulings' action table)"),
)


PLACE_COLUMNS = ("place",)


def seat_teams(n_seats: int) -> tuple[int, ...]:
    """Knockout Whist has no partners: every seat is its own team."""
    return tuple(range(n_seats))


def finishing_places(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """The game's placing, as the ``place`` column holds it (seats out after the same hand share a place)."""
    return np.asarray(columns["place"]).astype(np.int64)


def check_options(options: Mapping[str, Any] | None = None) -> dict[str, bool]:
    """Every option but ``players`` (the seat count sets it), checked, with the rules' defaults filled in."""
    options = dict(options or {})
    if "players" in options:
        raise GameInputError("the number of players is set by the seat count (seats, --seats), not an option")
    unknown = sorted(set(options) - set(FLAG_OPTIONS))
    if unknown:
        raise GameInputError(f"unknown Knockout Whist option {unknown[0]!r}: the options are {', '.join(FLAG_OPTIONS)}")
    parsed = parse_options(options)
    return {name: getattr(parsed, name) for name in FLAG_OPTIONS}


def check_lineup(n_seats: int, specs: Sequence[str], options: Mapping[str, Any] | None = None) -> None:
    """Refuse a seat count outside 2-7, a lineup of the wrong length, a spec that makes no agent, or bad options."""
    check_options(options)
    _check_seats(n_seats)
    check_specs(n_seats, specs, GAME)


def is_compiled(specs: Sequence[str]) -> bool:
    """Whether a lineup plays on the compiled engine: every spec a built-in agent, ``mcts`` without ``time``."""
    if is_compiled_lineup(specs, ("random",)):
        return True
    from agents.knockout_whist.lineup import is_compiled_lineup as plays_in_kernel

    return plays_in_kernel(specs)


def compiled_code(specs: Sequence[str]) -> dict[str, float]:
    """The compiled code a lineup ``is_compiled`` accepts runs, with its measured compile seconds."""
    return COMPILED_CODE if is_compiled_lineup(specs, ("random",)) else LINEUP_CODE


def game_seed(match_seed: int) -> int:
    """The seed of the one game a match holds."""
    return derive_seed(int(match_seed), 0)


def play_game(game: KnockoutWhistGame, agents: Sequence[Agent], seed: int) -> KnockoutWhistGame:
    """Play ``game`` to its end, each seat's decisions taken by its agent, each agent reset once for the game.

    ``seed`` is the game's seed: the agent at ``seat`` is reset with ``agent_seed(seed, seat)``.
    An illegal choice raises ``IllegalActionError`` and changes nothing.
    """
    return play_with_agents(game, agents, seed)


def play_matches(
    n_seats: int,
    match_seeds: Sequence[int],
    seatings: Sequence[Sequence[str]],
    match_hands: int = 1,
    log_actions: bool = False,
    options: Mapping[str, Any] | None = None,
    engine: str = "auto",
) -> ChunkColumns:
    """Play one game per seed, seating ``seatings[i]`` (a spec per seat), with ``options``.

    Returns every column of ``HAND_COLUMNS`` (and of ``ACTION_COLUMNS`` with
    ``log_actions``); raises ``AgentFailure`` if an agent fails. ``engine`` is
    ``auto`` (compiled when every spec is compiled and no action log is asked
    for), ``compiled`` or ``reference``; both give the same rows.
    """
    _check_seats(n_seats)
    check_one_per_match(match_hands, match_seeds, seatings, "a Knockout Whist match is one game")
    settings = Options(players=n_seats, **check_options(options))
    if batch_agents.takes_batch_path(engine, log_actions, seatings, GAME, BATCH_POLICIES):
        return batch_agents.play_batched(sys.modules[__name__], GAME, n_seats, match_seeds, seatings, 1, options)
    compiled = all(is_compiled(seating) for seating in seatings)  # looked up here: tests swap it
    if plays_compiled(engine, compiled, log_actions, COMPILED_AGENTS):
        return ChunkColumns(hands=_compiled_columns(settings, np.asarray(match_seeds, dtype=np.uint64), seatings))
    log = DecisionLog(("hand", "hand_no")) if log_actions else None
    defaults = Options(players=n_seats).to_dict()
    played = play_one_per_seed(n_seats, match_seeds, seatings, log, GAME,
                               lambda seed: KnockoutWhistGame(settings, seed=seed), "the Knockout Whist game",
                               action_text,
                               lambda seed, seating: replay_command(GAME, n_seats, seed, seating, settings.to_dict(),
                                                                    defaults))
    return ChunkColumns(hands=_game_columns(played, settings), actions=None if log is None else log.columns())


def replay(options: Options | Mapping[str, Any], seed: int, actions: Sequence[int]) -> KnockoutWhistGame:
    """The game dealt from ``seed`` with ``options`` and ``actions`` applied in order (from the actions table)."""
    game = KnockoutWhistGame(options, seed=seed)
    for action in actions:
        game.apply(int(action))
    return game


def places(out_hand: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """Finishing places of many games: 1 for the winner, else 1 + the seats that lasted strictly longer.

    ``out_hand`` is ``[games, seats]`` floats, the hand each seat went out after, NaN for a seat never
    knocked out (it lasted longest but for the winner); ``winner`` one seat per game.
    """
    lasted = np.where(np.isnan(out_hand), LAST_HAND + 1, out_hand)
    lasted[np.arange(len(winner)), winner] = np.inf
    return places_from_values(lasted).astype(np.uint8)


# ----- inside --------------------------------------------------------------------------------------


def _check_seats(n_seats: int) -> None:
    if isinstance(n_seats, bool) or not isinstance(n_seats, (int, np.integer)) or not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise GameInputError(f"Knockout Whist is for {MIN_SEATS} to {MAX_SEATS} seats, not {n_seats}")


def _compiled_columns(options: Options, match_seeds: np.ndarray,
                      seatings: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
    """Every game of the chunk played in compiled code, as ``_game_columns`` fills them: by the engine's ``random``
    policy when every seat is ``random``, else by the lineup kernel (one core: the runner's processes share them)."""
    from sim.knockout_whist.compiled import batch

    seeds = derive_seeds(match_seeds, 0)
    if all(is_compiled_lineup(seating, ("random",)) for seating in seatings):
        played = batch.play_batch(options, seeds, policy="random", workers=1)
    else:
        from agents.knockout_whist.lineup import int_rows, play_lineups

        rows = int_rows(len(seeds))
        play_lineups(options.players, options.flags(), seeds, seatings, rows)
        played = batch.results_from_rows(options, seeds, rows)
    return _result_columns(options, seeds, played)


def _result_columns(options: Options, seeds: np.ndarray, played: BatchResults) -> dict[str, np.ndarray]:
    """The compiled engine's results of games dealt from ``seeds``, as ``_game_columns`` fills them."""
    count = len(seeds)
    columns: dict[str, np.ndarray] = {"seed": seeds}
    for name in FLAG_OPTIONS:
        columns[name] = np.full(count, getattr(options, name), dtype=bool)
    out_hand = np.where(played.out_hand > 0, played.out_hand, np.nan)  # 0: never knocked out
    columns.update({
        "hands_played": played.hands_played.astype(np.uint8),
        "winner": played.winner.astype(np.uint8),
        "end_reason": _reason_codes(played.end_reasons()),
        "score": played.scores.astype(np.int8),
        "place": places(out_hand, played.winner),
        "out_hand": nullable(out_hand, "uint8"),
        "dog_hand": nullable(np.where(played.dog_hand > 0, played.dog_hand, np.nan), "uint8"),
        "dogs_given": (played.dog_hand > 0).sum(axis=1).astype(np.uint8),
        "dogs_saved": played.dog_saved.sum(axis=1).astype(np.uint8),
        "seats_left": (played.out_hand == 0).sum(axis=1).astype(np.uint8),
        "decisions": played.decisions.astype(np.uint16),
        "decisions_crc32": played.crc32.astype(np.uint32),
    })
    return {spec.name: columns[spec.name] for spec in HAND_COLUMNS}


# ----- the batch engine, for vectorised agents (the hook sim.batch_agents uses) ------------------------
BATCH_POLICIES = {"random": RANDOM, "greedy": GREEDY}
"""Agent specs ``KnockoutWhistBatch``'s compiled policies play beside vectorised agents (name -> policy id)."""


def start_batch(n_seats: int, seeds: np.ndarray, previous: KnockoutWhistBatch | None,
                options: Mapping[str, Any] | None = None) -> KnockoutWhistBatch:
    """One game per seed as a ``KnockoutWhistBatch`` with the chunk's options (a match is one game: no previous)."""
    from sim.knockout_whist.compiled.batch import KnockoutWhistBatch

    return KnockoutWhistBatch.from_seeds(seeds, Options(players=n_seats, **check_options(options)))


def batch_columns(n_seats: int, seeds: Sequence[np.ndarray], batches: Sequence[KnockoutWhistBatch],
                  options: Mapping[str, Any] | None = None) -> ChunkColumns:
    """The rows of a played-out batch (its games dealt from ``seeds[0]``), as the reference path's."""
    (dealt,), (played,) = seeds, batches
    return ChunkColumns(hands=_result_columns(played.options, dealt, played.results()))


def _reason_codes(reasons: Sequence[EndReason]) -> np.ndarray:
    codes = {reason: END_REASONS.index(reason.value) for reason in EndReason}
    return np.array([codes[reason] for reason in reasons], dtype=np.int8)


def _game_columns(played: list[tuple[int, KnockoutWhistGame]], options: Options) -> dict[str, np.ndarray]:
    count, n_seats = len(played), options.players
    columns = {spec.name: np.zeros((count, n_seats) if spec.per_seat else count, dtype=spec.dtype)
               for spec in HAND_COLUMNS}
    out_hand = np.full((count, n_seats), np.nan)
    dog_hand = np.full((count, n_seats), np.nan)
    for name in FLAG_OPTIONS:
        columns[name][:] = getattr(options, name)
    for row, (seed, game) in enumerate(played):
        columns["seed"][row] = seed
        columns["hands_played"][row] = game.hands_played
        columns["winner"][row] = game.winner
        columns["end_reason"][row] = END_REASONS.index(game.end_reason.value)
        columns["score"][row] = game.scores
        out_hand[row] = [np.nan if hand is None else hand for hand in game.out_hand]
        dog_hand[row] = [np.nan if hand is None else hand for hand in game.dog_hand]
        columns["dogs_given"][row] = sum(hand is not None for hand in game.dog_hand)
        columns["dogs_saved"][row] = sum(game.dog_saved)
        columns["seats_left"][row] = sum(status != Status.OUT for status in game.status)
        columns["decisions"][row] = len(game.decisions)
        columns["decisions_crc32"][row] = zlib.crc32(bytes(game.decisions))
    columns["place"] = places(out_hand, columns["winner"])
    columns["out_hand"] = nullable(out_hand, "uint8")
    columns["dog_hand"] = nullable(dog_hand, "uint8")
    return columns
