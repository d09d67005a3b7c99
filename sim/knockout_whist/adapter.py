"""Knockout Whist's adapter for the experiment runner: one row per whole game.

It provides every name ``sim.games`` asks of a game's adapter. The runner hands it a seat count, one seed and one
seating per match, and the game's options; a match is one game, so it gets back one value per game for every
column of ``HAND_COLUMNS``, in match order, and optionally every decision. Game ``i`` is
``KnockoutWhistGame(options, seed)`` with ``seed = derive_seed(match_seed, 0)``, every agent reset once per game
with ``agent_seed(seed, seat)``, so a game with its agents is a function of its seed, seating and options alone.

A match is one whole game, so the compiled engine's own ``random`` policy plays it without an action log; which
engine plays a lineup is ``experiments.runner.routes``' choice.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sim import contract
from sim.agent import AgentMaker
from sim.contract import (
    ChunkColumns,
    ColumnSpec,
    decision_columns,
    decision_totals,
    nullable,
    places_from_values,
)
from sim.errors import GameInputError
from sim.knockout_whist import tensor, worlds
from sim.knockout_whist.conformance import reference_line
from sim.knockout_whist.encoding import (
    FLAG_OPTIONS,
    LAST_HAND,
    NUM_ACTIONS,
    EndReason,
    Options,
    Status,
    action_text,
    parse_options,
)
from sim.knockout_whist.encoding import MAX_SEATS as MAX_SEATS  # the contract's seat range
from sim.knockout_whist.encoding import MIN_SEATS as MIN_SEATS
from sim.knockout_whist.observation import KnockoutWhistObservation
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knockout_whist.render import render_svg as render_svg  # the contract's render facet
from sim.knockout_whist.render import repeat_span as repeat_span
from sim.log_text import board_text, describe_logged_event, describe_scores
from sim.policy_ids import GREEDY, RANDOM
from sim.rng import derive_seeds
from sim.seating import DecisionLog, check_one_per_match, on_compiled_engine, play_one_per_seed

if TYPE_CHECKING:
    from sim.knockout_whist.compiled.batch import BatchResults, KnockoutWhistBatch


GAME = "knockout-whist"
TITLE = "Knockout Whist"
ROW = "game"
MATCH_HANDS = (1,)  # a match is one game
SEED_DERIVATION = "game seed = derive_seed(match_seed, 0) (a match is one game)"
OUTCOME = ("winner", "win rate")
SUMMARY_REASONS: tuple[str, ...] = ()
CUT_OFFS: tuple[str, ...] = ()  # every game ends by the rules
# The docs facet (sim.contract.GameDocs): what an agent is given, and the action ids in words.
OBSERVATION = KnockoutWhistObservation
ACTION_DOCS = ("0-51 a card (played, or picked to throw away in an exchange), 52 a dog's knock, 53-56 choose "
               "clubs to spades as trumps, 57 no trumps (option no_trumps_choice), 58 end the card exchange (option "
               "card_exchange).")
END_REASONS = tuple(reason.value for reason in EndReason)
END_REASON_DOCS = {"last_trick": "a seat took the single trick of hand 7",
                   "last_standing": "every other seat was knocked out",
                   "rainbow": "a seat was dealt one card of each suit in hand 4 (option rainbow)"}
ENGINE_POLICIES = ("random",)  # the bare specs play_matches plays on the engine's own policy
COMPILED_LOGS_ACTIONS = False  # the compiled playouts keep no action log
# The compiled engine's batch kernels, with the CPU seconds compiling them takes on first use (as measured in
# docs/speed.md).
COMPILED_CODE: dict[str, float] = {"sim.knockout_whist.compiled.playout": 9.0}
# The batch engine's kernels (vectorised agents stepping it, training, the RL interfaces), likewise.
BATCH_CODE: dict[str, float] = {"sim.knockout_whist.compiled.batch_kernels": 10.0}
ID_DOCS = {
    "deal_group": "the seeded game within its table; every arrangement plays it (duplicate deals)",
    "arrangement": "which seating of the lineup (fixed, a rotation or a permutation)",
    "match": "the game's index in the run, from 0 (a match is one game)",
    "hand_in_match": "always 0: a Knockout Whist match is one game",
    "hand_index": "the game's index in the run, from 0: unique (the runner's row number)",
    "match_seed": "the seed the game's seed derives from: seed = derive_seed(match_seed, 0)",
}

OPTION_DOCS = {
    "dogs_life": "a seat's first hand without a trick gives it a dog's life (default true)",
    "safe_first_hand": "nobody goes out after hand 1 (default false)",
    "winner_deals": "from hand 2 the trump chooser deals and leads (default false)",
    "card_exchange": "each seat may swap up to 3 cards with the stock (default false)",
    "no_trumps_choice": "the chooser may choose no trumps (default false)",
    "rainbow": "one card of each suit in hand 4 wins at once (default false)",
}
OPTIONS: tuple[contract.OptionSpec, ...] = contract.option_specs(Options, OPTION_DOCS, skip=("players",))

HAND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", "the game's seed: KnockoutWhistGame(options, seed=SEED) deals it, every agent "
               "reset with agent_seed(SEED, seat); sim.knockout_whist.adapter.replay(options, SEED, actions) "
               "replays it from the actions table"),
    *(ColumnSpec(option.name, "bool", f"option {option.name}: {option.doc}") for option in OPTIONS),
    ColumnSpec("hands_played", "int32", "hands dealt, 1 to 7 (a rainbow end counts 4)"),
    ColumnSpec("winner", "int32", "the seat that won the game"),
    ColumnSpec("end_reason", "int8", "how the game ended: last_trick (hand 7), last_standing or rainbow",
               categories=END_REASONS),
    ColumnSpec("score", "int8", "the seat's score: n - 1 for the winner, -1 for every other seat (sums to zero)",
               per_seat=True),
    ColumnSpec("place", "int32", "the seat's finishing place: 1 for the winner, else 1 + the seats that lasted "
               "longer (seats out after the same hand share a place; at a rainbow end the seats still in "
               "share place 2)", per_seat=True),
    ColumnSpec("out_hand", "int32", "the hand after which the seat was knocked out (1 to 7); null for a seat "
               "never knocked out (the winner, or a seat still in when a rainbow ended the game)", per_seat=True),
    ColumnSpec("dog_hand", "int32", "the hand the seat played on its dog's life (2 to 7); null if it had none",
               per_seat=True),
    ColumnSpec("dogs_given", "int32", "seats given a dog's life in the game (all in the same hand)"),
    ColumnSpec("dogs_saved", "int32", "dogs whose one card took a trick, so they played on as ordinary seats"),
    ColumnSpec("seats_left", "int32", "seats not knocked out at the end (1, or more at a rainbow end)"),
    *decision_totals("trump choices, exchange picks, plays and knocks"),
)

ACTION_COLUMNS = decision_columns("game", "0 trump choice, 1 card exchange, 2 play or knock",
                                  "the action id (0..58, see the rulings' action table)",
                                  ColumnSpec("hand", "int16", "the hand of the game it was taken in, 1 to 7"))


PLACE_COLUMNS = ("place",)


def seat_teams(n_seats: int) -> tuple[int, ...]:
    """Knockout Whist has no partners: every seat is its own team."""
    return tuple(range(n_seats))


def score_range(n_seats: int) -> tuple[float, float]:
    """The winner scores n - 1 and every other seat -1."""
    return -1.0, n_seats - 1.0


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


def play_matches(n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int = 1,
                 log_actions: bool = False, options: Mapping[str, Any] | None = None,
                 make_agent: AgentMaker | None = None, *, engine: str) -> ChunkColumns:
    """Play one game per seed, seating ``seatings[i]`` (a spec per seat), with ``options``.

    Returns every column of ``HAND_COLUMNS`` (and of ``ACTION_COLUMNS`` with ``log_actions``); raises
    ``AgentFailure`` if an agent fails. ``engine`` is the plan's choice (``experiments.runner.routes``), never
    ``auto``: ``reference`` plays the agents ``make_agent`` builds, ``compiled`` the engine's own ``random``
    policy (refused unless every spec is a bare ``random`` and no action log is asked for): the same rows.
    """
    check_one_per_match(match_hands, match_seeds, seatings, "a Knockout Whist match is one game")
    settings = Options(players=n_seats, **check_options(options))
    if on_compiled_engine(engine, seatings, ENGINE_POLICIES, log_actions, COMPILED_LOGS_ACTIONS):
        from sim.knockout_whist.compiled import batch

        seeds = derive_seeds(np.asarray(match_seeds, dtype=np.uint64), 0)
        played = batch.play_batch(settings, seeds, policy="random", workers=1)  # the runner's processes share cores
        return ChunkColumns(hands=_result_columns(settings, seeds, played))
    log = DecisionLog(("hand", "hand_no")) if log_actions else None
    played = play_one_per_seed(n_seats, match_seeds, seatings, log, make_agent,
                               lambda seed: KnockoutWhistGame(settings, seed=seed), "the Knockout Whist game",
                               action_text, check_options(options))
    return ChunkColumns(hands=_game_columns(played, settings), actions=None if log is None else log.columns())


def lineup_columns(n_seats: int, match_seeds: Sequence[int], match_hands: int, log_actions: bool,
                   options: Mapping[str, Any] | None, play_rows: Callable[[Options, np.ndarray], np.ndarray],
                   ) -> ChunkColumns:
    """The columns of games a compiled lineup player plays: ``play_rows(settings, seeds)`` plays one game per seed
    with the checked ``settings`` and returns the compiled engine's int rows (as
    ``sim.knockout_whist.compiled.batch.results_from_rows`` reads them). No action log: the compiled games keep none."""
    from sim.knockout_whist.compiled import batch

    check_one_per_match(match_hands, match_seeds, None, "a Knockout Whist match is one game")
    if log_actions:
        raise ValueError("the compiled games keep no action log")
    settings = Options(players=n_seats, **check_options(options))
    seeds = derive_seeds(np.asarray(match_seeds, dtype=np.uint64), 0)
    played = batch.results_from_rows(settings, seeds, play_rows(settings, seeds))
    return ChunkColumns(hands=_result_columns(settings, seeds, played))


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
    return places_from_values(lasted).astype(np.int32)


# ----- inside --------------------------------------------------------------------------------------


def _result_columns(options: Options, seeds: np.ndarray, played: BatchResults) -> dict[str, np.ndarray]:
    """The compiled engine's results of games dealt from ``seeds``, as ``_game_columns`` fills them."""
    count = len(seeds)
    columns: dict[str, np.ndarray] = {"seed": seeds}
    for name in FLAG_OPTIONS:
        columns[name] = np.full(count, getattr(options, name), dtype=bool)
    out_hand = np.where(played.out_hand > 0, played.out_hand, np.nan)  # 0: never knocked out
    columns.update({
        "hands_played": played.hands_played.astype(np.int32),
        "winner": played.winner.astype(np.int32),
        "end_reason": _reason_codes(played.end_reasons()),
        "score": played.scores.astype(np.int8),
        "place": places(out_hand, played.winner),
        "out_hand": nullable(out_hand, "int32"),
        "dog_hand": nullable(np.where(played.dog_hand > 0, played.dog_hand, np.nan), "int32"),
        "dogs_given": (played.dog_hand > 0).sum(axis=1).astype(np.int32),
        "dogs_saved": played.dog_saved.sum(axis=1).astype(np.int32),
        "seats_left": (played.out_hand == 0).sum(axis=1).astype(np.int32),
        "decisions": played.decisions.astype(np.int32),
        "decisions_crc32": played.crc32.astype(np.uint32),
    })
    return {spec.name: columns[spec.name] for spec in HAND_COLUMNS}


# ----- the batch engine, for vectorised agents (the hook the runner's batch route uses) ------------------------
BATCH_POLICIES = {"random": RANDOM, "greedy": GREEDY}
"""Agent specs ``KnockoutWhistBatch``'s compiled policies play beside vectorised agents (name -> policy id)."""


def start_batch(n_seats: int, seeds: np.ndarray, previous: KnockoutWhistBatch | None,
                options: Mapping[str, Any] | None = None) -> KnockoutWhistBatch:
    """One game per seed as a ``KnockoutWhistBatch`` with the options (a match is one game: no previous)."""
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
    columns["out_hand"] = nullable(out_hand, "int32")
    columns["dog_hand"] = nullable(dog_hand, "int32")
    return columns


# ----- the commands' and the RL interfaces' hooks: deals by seed, conformance lines, text, the bench ----------
OPENING = "seat 0 deals the first hand and seat 1 leads"  # who opens: fixed by the rules, so --first is refused
DEFAULT_SEATS = 4


def options_for(n_seats: int, options: Mapping[str, Any] | None) -> Options:
    """The rules' options for a table of ``n_seats``: the seat count sets ``players``, which no option may."""
    return parse_options({"players": n_seats, **check_options(options)})


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KnockoutWhistGame | None = None) -> KnockoutWhistGame:
    """The game dealt from ``seed``."""
    contract.no_first_seat(TITLE, OPENING, first)
    return KnockoutWhistGame(options_for(n_seats, options), seed=seed)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's game (compiled: on one core, as Knorri's ``conformance_lines`` says)."""
    contract.no_first_seat(TITLE, OPENING, first)
    rules = options_for(n_seats, options)
    if engine == "reference":
        return [reference_line(rules, int(seed)) for seed in seeds]
    from sim.knockout_whist.compiled.batch import play_batch

    return play_batch(rules, seeds, "protocol", workers=1).protocol_lines()


describe_event = describe_logged_event
describe_end = describe_scores


def _compiled_games(n_seats: int, seeds: np.ndarray, workers: int, options: Mapping[str, Any]) -> int:
    from sim.knockout_whist.compiled.batch import play_batch

    return int(play_batch(Options(players=n_seats, **check_options(options)), seeds, "random",
                          workers=workers).decisions.sum())


# reference_hands_per_s: `python -m experiments.bench.runner reference`, at 7 seats, its slowest.
# compiled_rows_per_s: `knorri-sim bench`, one core, Knockout Whist at 7 seats (docs/knockout_whist.md).
BENCH = contract.Bench(seats=(4, 7), steps="decisions", steps_of=lambda game: len(game.decisions),
                       default_counts={"reference": 300, "compiled": 100_000}, play_compiled=_compiled_games,
                       compiled_rows_per_s=95_000,
                       reference_hands_per_s=374)


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.knockout_whist.compiled.batch import KnockoutWhistBatch

    return KnockoutWhistBatch.from_seeds(seeds, options_for(n_seats, options))


LEARNING = contract.LearningFacts(
    num_actions=NUM_ACTIONS, observation_size=tensor.OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=lambda game: tensor.encode_observation(game.observation(game.to_move)), board=board_text,
    cut_offs=CUT_OFFS, cut_off_codes=(), score_range=score_range,
    # per hand of 7 - h + 1 cards: a trump choice, each seat's exchange picks (3 and an end) and plays, a knock
    max_decisions=lambda n, options: sum(1 + n * (4 + cards + 1) for cards in range(7, 0, -1)),
    resample=worlds.resample)
