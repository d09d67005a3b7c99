"""Knorri's adapter for the experiment runner: play many matches, return column arrays.

It provides every name ``sim.games`` asks of a game's adapter; the runner knows nothing of Knorri's rules. It
hands this module a seat count, one seed and one seating per match and the number of hands in each match; it gets
back one value per hand for every column of ``HAND_COLUMNS``, in match order, and optionally every decision.
Every function takes the table's ``options``, Knorri's cut-off options ``cap`` and ``repeat``
(``check_options``). Hand ``k`` of a match is dealt from ``hand_seed(match_seed, k)`` and opens as
``sim.knorri.match.play_match`` plays it; every agent is reset per hand with ``agent_seed(hand seed, seat)``, so
a hand with its agents is a function of its seed alone.

``experiments.runner.routes`` picks the engine that plays a lineup; here the compiled engine's own policies are
bare ``random`` and ``greedy``, and ``KnorriBatch`` steps the vectorised agents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.agent import AgentMaker
from sim.contract import (
    Bench,
    ChunkColumns,
    LearningFacts,
    OptionSpec,
    places_from_values,
)
from sim.errors import FailedDeal, GameInputError
from sim.knorri import encoding, worlds
from sim.knorri.columns import ACTION_COLUMNS as ACTION_COLUMNS  # the tables' columns, read here by the contract
from sim.knorri.columns import CONTINUED_COLUMNS as CONTINUED_COLUMNS
from sim.knorri.columns import CUT_OFFS, continued_columns, final_results, hand_columns, result_columns
from sim.knorri.columns import HAND_COLUMNS as HAND_COLUMNS
from sim.knorri.compiled.batch_kernels import OBSERVATION_SIZE, OBSERVATION_SLICES  # noqa: F401 (readers above sim)
from sim.knorri.compiled.encode import END_REASONS
from sim.knorri.compiled.policies import POLICY_NAMES
from sim.knorri.conformance import reference_line
from sim.knorri.describe import describe_board, describe_result
from sim.knorri.describe import describe_event as describe_event  # the contract's name, as is
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_CAP, MAX_PHASE2_ACTIONS, MAX_REPEAT, action_text
from sim.knorri.match import hand_seed
from sim.knorri.observation import KnorriObservation
from sim.knorri.reference import MAX_SEATS as MAX_SEATS  # the contract's seat range
from sim.knorri.reference import MIN_SEATS as MIN_SEATS
from sim.knorri.reference import KnorriHand, check_cut_offs, check_seats
from sim.knorri.reference import check_continuation as check_continuation_rules
from sim.knorri.render import render_svg as render_svg  # the contract's render facet
from sim.knorri.render import repeat_span as repeat_span
from sim.options import option_pairs
from sim.rng import derive_seeds
from sim.seating import (
    AgentPool,
    DecisionLog,
    SeatedAgent,
    on_compiled_engine,
    play_guarded,
    play_on,
    play_with_agents,
)

if TYPE_CHECKING:
    from sim.knorri.compiled.batch import BatchResults, KnorriBatch


# What the runner asks of every game's adapter (``sim.games``).
TITLE = "Knorri"
BARE_RUN_IDS = True  # at the default options a run id names neither game nor options, as before there were others
ROW = "hand"
MATCH_HANDS = (1, 3, 5)
ID_DOCS: dict[str, str] = {}  # the runner's identifier columns were worded for Knorri
SEED_DERIVATION = "hand seed = derive_seed(match_seed, hand_in_match)"
OUTCOME = ("loser", "loss rate")
SUMMARY_REASONS = ("repeat", "cap")
END_REASON_DOCS = {"out": "played to the end, one seat left holding cards",
                   "repeat": "cut off: a phase-2 position recurred (option repeat)",
                   "cap": "cut off at the phase-2 action cap (option cap: {cap:,} phase-2 actions)"}
# The docs facet (sim.contract.GameDocs): what an agent is given, and the action ids in words.
OBSERVATION = KnorriObservation
ACTION_DOCS = ("0-51 a card (taken in phase 1, played in phase 2), 52 picks up the bottom card of the trick, "
               "53-64 open with the club run 2C-3C up to 2C-AC.")
# Agent specs the compiled engine plays itself (the same choices as the agents, tested).
COMPILED_AGENTS: dict[str, int] = {name: POLICY_NAMES[name] for name in ("random", "greedy") if name in POLICY_NAMES}
ENGINE_POLICIES = tuple(COMPILED_AGENTS)  # the bare specs play_matches plays on the engine's own policies
COMPILED_LOGS_ACTIONS = True  # the compiled engine (and the lineup player) can fill the actions table
# The compiled engine's batch kernels, with the CPU seconds compiling them takes on first use (as measured in
# docs/speed.md).
COMPILED_CODE: dict[str, float] = {"sim.knorri.compiled.playout": 19.0}
# The batch engine's kernels (vectorised agents stepping it, training, the RL interfaces), likewise.
BATCH_CODE: dict[str, float] = {"sim.knorri.compiled.batch_kernels": 14.0}

CONTINUE_CAP = 20_000
"""The cap a continuation plays on to unless it names one (never below the table's own)."""

PLACE_COLUMNS = ("score",)  # a seat's score is the seats still holding cards when it went out: its place


def seat_teams(n_seats: int) -> tuple[int, ...]:
    """Knorri has no partners: every seat is its own team."""
    return tuple(range(n_seats))


def score_range(n_seats: int) -> tuple[float, float]:
    """Out first scores a point per other seat, n - 1; the last seat holding cards scores minus the others' total,
    at worst -(1 + 2 + ... + n - 1) (the same at a cut-off, which ranks the seats still holding cards)."""
    return -n_seats * (n_seats - 1) / 2, n_seats - 1.0


def finishing_places(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """The order of going out, from the scores: a seat out earlier scored more (seats out together tie, and a
    cut-off's ranking by cards held is already in the scores it gave)."""
    return places_from_values(columns["score"])



def play_matches(n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int = 1,
                 log_actions: bool = False, options: Mapping[str, Any] | None = None,
                 make_agent: AgentMaker | None = None, *, engine: str,
                 continuation: Mapping[str, Any] | None = None) -> ChunkColumns:
    """Play one match per seed, seating ``seatings[i]`` (a spec per seat), ``match_hands`` hands each.

    Returns every column of ``HAND_COLUMNS`` (and of ``ACTION_COLUMNS`` with ``log_actions``); raises
    ``AgentFailure`` if an agent fails. ``engine`` is the plan's choice (``experiments.runner.routes``), never
    ``auto``: ``reference`` plays the agents ``make_agent`` builds, ``compiled`` the engine's own policies
    (refused for a spec that is not one of ``ENGINE_POLICIES``). ``options`` are the cut-off options ``cap``
    and ``repeat`` (``check_options``); every hand is played under them. With a ``continuation``
    (``check_continuation``'s rules), a hand they cut off plays on past the cut with the same agents, their
    memories kept, and the columns add ``CONTINUED_COLUMNS`` (and the actions table ``continued``); a match's next
    hand still opens after the loser the rules gave.
    """
    rules = check_options(options)
    more = check_continuation(rules, continuation)
    if len(match_seeds) != len(seatings):
        raise ValueError(f"{len(match_seeds)} match seeds but {len(seatings)} seatings")
    distinct = list(dict.fromkeys(map(tuple, seatings)))  # the matches repeat a few arrangements: check each once
    if on_compiled_engine(engine, distinct, ENGINE_POLICIES, log_actions, COMPILED_LOGS_ACTIONS):
        return _play_on_engine(n_seats, np.asarray(match_seeds, dtype=np.uint64), seatings, match_hands, log_actions,
                               rules, more, distinct)
    recorder = DecisionLog() if log_actions else None
    pool = AgentPool(n_seats, recorder, make_agent)
    played: list[tuple[int, KnorriHand]] = []
    finals: list[KnorriHand] = []
    for match_seed, seating in zip(match_seeds, seatings, strict=True):
        agents = pool.seat(seating)
        first_seat = 0
        for k in range(match_hands):
            seed = hand_seed(int(match_seed), k)
            hand = KnorriHand.from_seed(n_seats, seed, first_seat, **rules)
            if recorder is not None:
                recorder.start_row(len(played))
            _play_guarded(hand, agents, seed, len(played), seating, rules)
            played.append((seed, hand))
            if more is not None:
                finals.append(_played_on(hand, agents, seed, len(played) - 1, seating, rules, more))
            first_seat = (hand.loser + 1) % n_seats
    columns = hand_columns(played, n_seats)
    actions = recorder.columns() if recorder is not None else None
    if more is not None:
        columns.update(continued_columns(columns, final_results(finals, n_seats)))
        if actions is not None:
            actions["continued"] = actions["step"] >= columns["decisions"][actions["hand_row"]]
    return ChunkColumns(hands=columns, actions=actions)


def check_continuation(options: Mapping[str, Any] | None,
                       continuation: Mapping[str, Any] | None) -> dict[str, int] | None:
    """The rules a hand cut off under ``options`` plays on under (``--continue-past-cutoff``: ``repeat`` 0 and a
    ``cap`` of at least the table's, ``CONTINUE_CAP`` unless named), checked; None for no continuation. Values may
    be ints or their text; anything else is one line saying what a continuation may be."""
    if continuation is None:
        return None
    rules = check_options(options)
    values = {"cap": max(CONTINUE_CAP, rules["cap"]), "repeat": 0}
    for name, value in option_pairs(continuation):
        if name not in values:
            raise GameInputError(f"unknown continuation rule {name!r}: a continuation past the cut-off names "
                                 f"{' and '.join(values)}")
        values[name] = _whole_number(value)
    cap, repeat = check_continuation_rules(rules["cap"], rules["repeat"], values["cap"], values["repeat"])
    return {"cap": cap, "repeat": repeat}


def _played_on(hand: KnorriHand, agents: list[SeatedAgent], seed: int, row: int, seating: Sequence[str],
               rules: Mapping[str, int], continuation: Mapping[str, int]) -> KnorriHand:
    """The hand as it ended, or, if the rules cut it off, a copy played on past the cut by the same agents (their
    decisions recorded after the cut ones)."""
    if hand.end_reason not in CUT_OFFS:
        return hand
    final = hand.clone()
    final.continue_past_cutoff(**continuation)
    play_guarded(lambda: play_on(final, agents), agents,
                 f"the hand with seed {seed} (first seat {hand.first_seat}), played on past its cut-off", action_text,
                 row, FailedDeal(hand.n_seats, seed, tuple(seating), rules, hand.first_seat))
    return final


def replay(n_seats: int, seed: int, first_seat: int, actions: Sequence[int],
           options: Mapping[str, Any] | None = None) -> KnorriHand:
    """The hand dealt from ``seed`` with ``actions`` applied in order (from the action log), under ``options``."""
    hand = KnorriHand.from_seed(n_seats, seed, first_seat, **check_options(options))
    for action in actions:
        hand.apply(int(action))
    return hand


# ----- the compiled path --------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1


def engine_rules(options: Mapping[str, Any] | None) -> dict[str, int]:
    """The cut-off options as the compiled engine's keywords (``cap=``, ``repeat=``); none at the defaults, so the
    default rules call the engine exactly as before the options existed."""
    rules = check_options(options)
    return {} if rules == DEFAULT_OPTIONS else rules


def _play_on_engine(n_seats: int, match_seeds: np.ndarray, seatings: Sequence[Sequence[str]], match_hands: int,
                    log_actions: bool, rules: Mapping[str, int], continuation: Mapping[str, int] | None,
                    arrangements: Sequence[tuple[str, ...]]) -> ChunkColumns:
    """A lineup of bare ``random`` and ``greedy`` on the batch engine's own policies: one policy row per distinct
    seating (``arrangements``, in first-seen order), then one index per match."""
    from sim.knorri.compiled.batch import play_batch

    distinct = {seating: row for row, seating in enumerate(arrangements)}
    rows = np.array([[COMPILED_AGENTS[spec.strip()] for spec in seating] for seating in distinct],
                    dtype=np.int8).reshape(len(distinct), n_seats)
    if len(distinct) == 1:  # one seating for every match: one policy per seat, no lookup per match
        policies = rows[0]
    else:
        policies = rows[np.fromiter((distinct[tuple(s)] for s in seatings), dtype=np.int64, count=len(seatings))]
    return _hand_by_hand(n_seats, match_seeds, match_hands, log_actions,
                         lambda seeds, first_seats: play_batch(n_seats, seeds, first_seats, policies, workers=1,
                                                               log_actions=log_actions, **engine_rules(rules),
                                                               **_continue_cap(continuation)))


def _continue_cap(continuation: Mapping[str, int] | None) -> dict[str, int]:
    """A checked continuation as the compiled engine's keyword (``continue_cap=``), none without one."""
    return {} if continuation is None else {"continue_cap": continuation["cap"]}


def lineup_columns(n_seats: int, match_seeds: Sequence[int], match_hands: int, log_actions: bool,
                   play_rows: Callable[[np.ndarray, np.ndarray], tuple[Any, ...]]) -> ChunkColumns:
    """The columns of matches whose hands a compiled lineup player plays: ``play_rows(seeds, first_seats)`` plays
    hand k of every match (dealt from ``seeds``, opening at ``first_seats``) and returns the compiled engine's
    rows ``(ints, held, log)`` (as ``sim.knorri.compiled.batch.results_from_rows`` reads them), and for a run played
    on past its cut-offs a fourth item, ``(ints, held)`` of every hand at its final end; the first hand opens at
    seat 0, each later one after the last loser, as the reference path plays them."""
    from sim.knorri.compiled.batch import results_from_rows

    def play(seeds: np.ndarray, first_seats: np.ndarray) -> BatchResults:
        ints, held, log, *continued = play_rows(seeds, first_seats)
        results = results_from_rows(n_seats, seeds, first_seats, ints, held, log)
        if continued and continued[0] is not None:
            results.continued = results_from_rows(n_seats, seeds, first_seats, *continued[0], None)
        return results

    return _hand_by_hand(n_seats, np.asarray(match_seeds, dtype=np.uint64), match_hands, log_actions, play)


def _hand_by_hand(n_seats: int, match_seeds: np.ndarray, match_hands: int, log_actions: bool,
                  play: Callable[[np.ndarray, np.ndarray], BatchResults]) -> ChunkColumns:
    """Hand ``k`` of every match in one compiled call (``play(seeds, first_seats)``); rows come back match by
    match."""
    first_seats = np.zeros(len(match_seeds), dtype=np.int64)
    batches = []
    for k in range(match_hands):
        batch = play(derive_seeds(match_seeds, k), first_seats)
        batches.append(batch)
        first_seats = (batch.loser + 1) % n_seats
    return result_columns(n_seats, batches, log_actions)


# ----- the batch engine, for vectorised agents (the hook the runner's batch route uses) ------------------------
BATCH_POLICIES = COMPILED_AGENTS
"""Agent specs ``KnorriBatch``'s compiled policies play beside vectorised agents (name -> policy id)."""


def start_batch(n_seats: int, seeds: np.ndarray, previous: KnorriBatch | None,
                options: Mapping[str, Any] | None = None,
                continuation: Mapping[str, Any] | None = None) -> KnorriBatch:
    """Hand k of every match as one ``KnorriBatch``: the first opens at seat 0, a later one at the seat after the
    loser of ``previous`` (hand k - 1 of the same matches, played out, as the rules ended it); with a
    ``continuation``, hands the rules cut off play on past the cut (``check_continuation``)."""
    from sim.knorri.compiled.batch import KnorriBatch

    first = np.zeros(len(seeds), dtype=np.int64) if previous is None else (previous.results().loser + 1) % n_seats
    return KnorriBatch.from_seeds(n_seats, seeds, first, **engine_rules(options),
                                  **_continue_cap(check_continuation(options, continuation)))


def batch_columns(n_seats: int, seeds: Sequence[np.ndarray], batches: Sequence[KnorriBatch],
                  options: Mapping[str, Any] | None = None,
                  continuation: Mapping[str, Any] | None = None) -> ChunkColumns:
    """The rows of played-out batches (hand k of every match, dealt from ``seeds[k]``), as the reference path's."""
    results = [batch.results() for batch in batches]
    for result, dealt in zip(results, seeds, strict=True):
        result.seed = dealt
    return result_columns(n_seats, results, False)


# ----- playing with agents ----------------------------------------------------------------------


def _play_guarded(hand: KnorriHand, agents: list[SeatedAgent], seed: int, row: int, seating: Sequence[str],
                  rules: Mapping[str, int]) -> None:
    play_guarded(lambda: play_with_agents(hand, agents, seed), agents,
                 f"the hand with seed {seed} (first seat {hand.first_seat})", action_text, row,
                 FailedDeal(hand.n_seats, seed, tuple(seating), rules, hand.first_seat))


# ----- the commands' and the RL interfaces' hooks: deals by seed, conformance lines, text, the bench ----------
DEFAULT_SEATS = 4
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("cap", int, MAX_PHASE2_ACTIONS,
                        f"phase-2 actions after which a hand ends with reason cap (1 to {MAX_CAP:,})"),
    OptionSpec("repeat", int, DEFAULT_REPEAT,
                        "a hand ends with reason repeat when one position has been reached this many times in "
                        f"phase 2, its start counted (2: the first return; 3: threefold; up to {MAX_REPEAT}; 0: no "
                        "check)"),
)
DEFAULT_OPTIONS: dict[str, int] = {spec.name: spec.default for spec in OPTIONS}


def check_options(options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Knorri's cut-off options ``cap`` and ``repeat``, checked, with the defaults filled in; one line refusing an
    unknown name or a value out of its range. Values may be ints or their text (``--option cap=20000``)."""
    values = dict(DEFAULT_OPTIONS)
    for name, value in option_pairs(options or {}):
        if name not in values:
            raise GameInputError(f"unknown option {name!r}: Knorri's options are {', '.join(values)}")
        values[name] = _whole_number(value)
    cap, repeat = check_cut_offs(values["cap"], values["repeat"])
    return {"cap": cap, "repeat": repeat}


def _whole_number(value: Any) -> Any:
    """A whole number written as text read as an int; anything else as given, for the range check to refuse."""
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KnorriHand | None = None) -> KnorriHand:
    """The hand dealt from ``seed`` under ``options``: ``first`` (default 0) turns first, or in a match the seat
    after ``previous``'s loser."""
    rules = check_options(options)
    n_seats = check_seats(n_seats)
    if previous is not None:
        if first is not None:
            raise GameInputError("the first seat is chosen for a single hand: a match's later hands open at the "
                                 "seat after the last loser")
        first = (previous.loser + 1) % n_seats
    return KnorriHand.from_seed(n_seats, seed, _first_seat(n_seats, first), **rules)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's hand under ``options``, ``first`` (default 0) turning first; the compiled
    engine plays them on one core: the lines a terminal shows take no longer."""
    rules = check_options(options)
    n_seats = check_seats(n_seats)
    first = _first_seat(n_seats, first)
    if engine == "reference":
        return [reference_line(n_seats, int(seed), first, **rules) for seed in seeds]
    from sim.knorri.compiled.batch import play_batch
    from sim.knorri.compiled.policies import PROTOCOL

    return play_batch(n_seats, seeds, first, PROTOCOL, workers=1, **engine_rules(rules)).protocol_lines()


describe_end = describe_result  # how the hand ended, the loser, its length and every seat's score


def _first_seat(n_seats: int, first: int | None) -> int:
    if first is None:
        return 0
    if not 0 <= first < n_seats:
        raise GameInputError(f"the first seat must be a seat from 0 to {n_seats - 1}, not {first}")
    return first


def _compiled_hands(n_seats: int, seeds: np.ndarray, workers: int, options: Mapping[str, Any]) -> int:
    from sim.knorri.compiled.batch import play_batch

    return int(play_batch(n_seats, seeds, 0, "random", workers=workers, **engine_rules(options)).phase2_actions.sum())


# reference_hands_per_s: `python -m experiments.bench.runner reference`, at 6 seats, its slowest.
# compiled_rows_per_s: `knorri-sim bench`, one core, Knorri at 6 seats, its slowest (docs/speed.md).
BENCH = Bench(seats=(3, 4, 5, 6), steps="actions", steps_of=lambda hand: hand.phase2_actions,
                       default_counts={"reference": 200, "compiled": 50_000}, play_compiled=_compiled_hands,
                       compiled_rows_per_s=42_000,
                       reference_hands_per_s=49)


def _acting_tensor(hand: KnorriHand) -> np.ndarray:
    # The compiled batch's tensor of the reference hand as it stands: the same numbers the vector env learns from.
    from sim.knorri.compiled.batch import KnorriBatch

    return KnorriBatch.observation_of(hand)


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.knorri.compiled.batch import KnorriBatch

    return KnorriBatch.from_seeds(n_seats, seeds, **engine_rules(options))


def _board(hand: KnorriHand) -> str:
    return describe_board(hand) + (f"\nlast: {hand.log[-1]}" if hand.log else "")


LEARNING = LearningFacts(
    num_actions=encoding.NUM_ACTIONS, observation_size=OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=_acting_tensor, board=_board, cut_offs=CUT_OFFS,
    cut_off_codes=tuple(END_REASONS.index(reason) for reason in CUT_OFFS),
    score_range=score_range,
    # phase-1 choices (one per stock card at most; a thrown-in deal had none) and the table's phase-2 cap
    max_decisions=lambda n, options: encoding.STOCK_SIZE + check_options(options)["cap"],
    resample=worlds.resample)
