"""Kort's adapter for the experiment runner: one row per match, and one row per round in the ``rounds`` table.

It provides every name ``sim.games`` asks of a game's adapter. The runner hands it one seed and one seating
(always four seats) per match and the game's options; it gets back one value per match for every column of
``HAND_COLUMNS``, one per round for every column of ``ROUND_COLUMNS`` and optionally every decision. Match ``i`` is
``KortMatch(options, seed)`` with ``seed = derive_seed(match_seed, 0)``, every agent reset once per match with
``agent_seed(seed, seat)``, so a match with its agents is a function of its seed, seating and options alone. Teams
are seats 0 and 2 against 1 and 3: ``A;B;A;B`` pits A against B, and its rotations swap the teams.

``experiments.runner.routes`` picks the engine that plays a lineup; the compiled engine's own policy is bare
``random``, which keeps no action log.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sim import contract
from sim.agent import AgentMaker
from sim.contract import (
    ChunkColumns,
    ColumnSpec,
    decision_columns,
    decision_totals,
)
from sim.kort import tensor, worlds
from sim.kort.compiled.state import max_rounds
from sim.kort.conformance import reference_line
from sim.kort.encoding import (
    DECLARATION_KINDS,
    NUM_ACTIONS,
    NUM_SEATS,
    NUM_TEAMS,
    OPTION_NAMES,
    Options,
    Result,
    action_text,
    parse_options,
)
from sim.kort.observation import KortObservation
from sim.kort.reference import KortMatch, as_options
from sim.kort.render import render_svg as render_svg  # the contract's render facet
from sim.kort.render import repeat_span as repeat_span
from sim.log_text import board_text, describe_logged_event, describe_scores
from sim.policy_ids import RANDOM
from sim.rng import derive_seeds
from sim.seating import DecisionLog, check_one_per_match, on_compiled_engine, play_one_per_seed

if TYPE_CHECKING:
    from sim.kort.compiled.batch import BatchResults, KortBatch


GAME = "kort"
TITLE = "Kort"
MIN_SEATS = MAX_SEATS = NUM_SEATS
ROW = "match"
MATCH_HANDS = (1,)  # a runner match is one Kort match (its rounds are the rounds table)
SEED_DERIVATION = "match's engine seed = derive_seed(match_seed, 0); its rounds are in the rounds table"
OUTCOME = ("won", "win rate")
SUMMARY_REASONS: tuple[str, ...] = ()
END_REASON_DOCS: dict[str, str] = {}  # a match has no end_reason column: it ends when a team has won enough rounds
CUT_OFFS: tuple[str, ...] = ()  # every match ends by the rules
# The docs facet (sim.contract.GameDocs): what an agent is given, and the action ids in words.
OBSERVATION = KortObservation
ACTION_DOCS = ("0-51 a card, 52-55 name clubs to spades as trumps, 56 \"13\", 57 Sar, 58 Trop, 59 Trop to the end, "
               "60 redeal, 61 and 62 vote Bavan yes and no.")
RESULTS: tuple[str, ...] = tuple(result.word for result in Result)
DECLARATIONS = ("sar", "sar_auto", "trop", "trop_to_end")
"""The declarations a round's row counts per team; ``sar`` counts every Sar, ``sar_auto`` the automatic ones."""
_COUNTED_AS = {
    "sar": ("sar",),
    "sar_auto_fewer_than_3": ("sar", "sar_auto"),
    "sar_auto_5_tricks": ("sar", "sar_auto"),
    "trop": ("trop",),
    "trop_to_end": ("trop_to_end",),
    "alltrump": (),  # a trump led from an all-trump hand declares nothing
}
"""Which counters a declaration of the round's record (its word) adds one to."""

ID_DOCS = {
    "deal_group": "the seeded match within its table; every arrangement plays it (duplicate deals)",
    "arrangement": "which seating of the lineup (fixed, a rotation or a permutation)",
    "match": "the match's index in the run, from 0",
    "hand_in_match": "always 0: a row of the hands table is a whole Kort match",
    "hand_index": "the match's row in the run, from 0: unique (the rounds and actions tables name it)",
    "match_seed": "the seed the match's seed derives from: seed = derive_seed(match_seed, 0)",
    "n_seats": "seats at the table: always 4 (teams: seats 0 and 2, seats 1 and 3)",
    "agent": "the agent spec at seat i (team i % 2)",
}

_SEED_DOC = ("the match's seed: KortMatch(options, seed=SEED) deals it, every agent reset with agent_seed(SEED, seat); "
             "sim.kort.adapter.replay(options, SEED, actions) replays it from the actions table")
_OPTION_COLUMNS = (
    ColumnSpec("target_wins", "int32", "option target_wins: the wins that end the match (7, or 3 in ranked play)"),
    ColumnSpec("first_holder", "int32", "option first_holder: the seat holding the trump in the first round"),
)

HAND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", _SEED_DOC),
    *_OPTION_COLUMNS,
    ColumnSpec("rounds", "int32", "rounds played (a redeal does not start a new round)"),
    ColumnSpec("redeals", "int32", "redeals over the whole match"),
    ColumnSpec("wins_team0", "int32", "match wins of team 0 (seats 0 and 2) at the end; may pass the target"),
    ColumnSpec("wins_team1", "int32", "match wins of team 1 (seats 1 and 3) at the end; may pass the target"),
    ColumnSpec("winner_team", "int32", "the team that reached the target: 0 (seats 0 and 2) or 1 (seats 1 and 3)"),
    ColumnSpec("score", "int8", "the seat's result: +1 on the winning team, -1 on the other (sums to zero)",
               per_seat=True),
    ColumnSpec("won", "bool", "whether the seat's team won the match", per_seat=True),
    *decision_totals("trump choices, leads and redeals, declarations, plays, votes"),
)

ROUND_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("seed", "uint64", "the match's seed (as in the hands table)"),
    *_OPTION_COLUMNS,
    ColumnSpec("round", "int32", "the round's place in the match, from 0"),
    ColumnSpec("holder", "int32", "the seat holding the trump (its team is holder % 2)"),
    ColumnSpec("trump", "int32", "the trump suit: 0 clubs, 1 diamonds, 2 hearts, 3 spades"),
    ColumnSpec("trump_13", "bool", "the holder chose \"13\": trumps are the suit of its 13th card"),
    ColumnSpec("redeals", "int32", "redeals before the deal that was played"),
    *(ColumnSpec(f"{kind}_team{team}", "int32", doc.format(team=team))
      for kind, doc in (("sar", "Sar declarations by team {team}, chosen or automatic"),
                        ("sar_auto", "of those, automatic ones (fewer than 3 trumps, or 5 tricks already)"),
                        ("trop", "Trop declarations by team {team}"),
                        ("trop_to_end", "Trop to the end declarations by team {team}"))
      for team in range(NUM_TEAMS)),
    ColumnSpec("tricks_team0", "int32", "tricks taken by team 0 (seats 0 and 2)"),
    ColumnSpec("tricks_team1", "int32", "tricks taken by team 1 (seats 1 and 3)"),
    ColumnSpec("bavan", "bool", "both partners of a 7:0 team voted Bavan and play went on"),
    ColumnSpec("result", "int8", "how the round ended: ordinary, kort, at_kort, bavan_made, bavan_failed or "
               "trop_failed", categories=RESULTS),
    ColumnSpec("result_team", "int32", "the team the round's wins went to"),
    ColumnSpec("wins", "int32", "the match wins the round gave (1, 5 or 7)"),
    ColumnSpec("match_wins_team0", "int32", "team 0's match wins after the round"),
    ColumnSpec("match_wins_team1", "int32", "team 1's match wins after the round"),
)
EXTRA_TABLES = {"rounds": ROUND_COLUMNS}

ACTION_COLUMNS = decision_columns("match", "0 trump choice, 1 lead (or redeal), 2 declaration, 3 follow, 4 Bavan vote",
                                  "the action id (0..62, see the rulings' action table)",
                                  ColumnSpec("round", "int16", "the round it was taken in, from 0"))
ENGINE_POLICIES = ("random",)  # the bare specs play_matches plays on the engine's own playouts
COMPILED_LOGS_ACTIONS = False  # the compiled playouts keep no action log
# The compiled engine's batch kernels, with the CPU seconds compiling them takes on first use (as measured in
# docs/speed.md).
COMPILED_CODE: dict[str, float] = {"sim.kort.compiled.playout": 7.5}
# The batch engine's kernels (vectorised agents stepping it, training, the RL interfaces), likewise.
BATCH_CODE: dict[str, float] = {"sim.kort.compiled.batch_kernels": 8.0}

PLACE_COLUMNS = ("won",)


def seat_teams(n_seats: int = NUM_SEATS) -> tuple[int, ...]:
    """Two teams of partners: seats 0 and 2 (team 0) against 1 and 3 (team 1)."""
    return tuple(seat % NUM_TEAMS for seat in range(n_seats))


def score_range(n_seats: int = NUM_SEATS) -> tuple[float, float]:
    """A seat scores +1 when its team wins the match and -1 when it loses."""
    return -1.0, 1.0


def finishing_places(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """The team result: place 1 for both seats of the team that won the match, 2 for the other team's."""
    return np.where(np.asarray(columns["won"], dtype=bool), 1, 2)


def check_options(options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Kort's options (``target_wins``, ``first_holder``), checked, with the rules' defaults filled in."""
    return as_options(dict(options or {})).to_dict()





def play_matches(n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int = 1,
                 log_actions: bool = False, options: Mapping[str, Any] | None = None,
                 make_agent: AgentMaker | None = None, *, engine: str) -> ChunkColumns:
    """Play one match per seed, seating ``seatings[i]`` (a spec per seat), with ``options``.

    Returns every column of ``HAND_COLUMNS``, of ``ROUND_COLUMNS`` (as ``tables["rounds"]``)
    and, with ``log_actions``, of ``ACTION_COLUMNS``; raises ``AgentFailure`` if an agent fails.
    ``engine`` is the plan's choice (``experiments.runner.routes``), never ``auto``: ``reference`` plays the
    agents ``make_agent`` builds, ``compiled`` the engine's own ``random`` policy (refused unless every spec is
    a bare ``random`` and no action log is asked for): the same rows.
    """
    check_one_per_match(match_hands, match_seeds, seatings, "a runner match is one Kort match")
    settings = as_options(check_options(options))
    if on_compiled_engine(engine, seatings, ENGINE_POLICIES, log_actions, COMPILED_LOGS_ACTIONS):
        from sim.kort.compiled.batch import play_batch

        seeds = derive_seeds(np.asarray(match_seeds, dtype=np.uint64), 0)
        return _result_columns(settings, seeds, play_batch(settings, seeds, policy="random", workers=1))
    log = DecisionLog(("round", "round_no")) if log_actions else None
    played = play_one_per_seed(n_seats, match_seeds, seatings, log, make_agent,
                               lambda seed: KortMatch(settings, seed=seed), "the Kort match", action_text,
                               settings.to_dict())
    seeds = np.array([seed for seed, _ in played], dtype=np.uint64)
    summary = _MatchSummary.of_matches([match for _, match in played])
    rounds = _Rounds.of_matches([match for _, match in played])
    return ChunkColumns(hands=_match_columns(seeds, settings, summary),
                        actions=None if log is None else log.columns(),
                        tables={"rounds": _round_columns(seeds, settings, rounds)})


def lineup_columns(n_seats: int, match_seeds: Sequence[int], match_hands: int, log_actions: bool,
                   options: Mapping[str, Any] | None,
                   play_rows: Callable[[Options, np.ndarray], tuple[np.ndarray, np.ndarray]]) -> ChunkColumns:
    """The columns (and rounds) of matches a compiled lineup player plays: ``play_rows(settings, seeds)`` plays one
    match per seed with the checked ``settings`` and returns the compiled engine's rows ``(ints, rounds)`` (as
    ``sim.kort.compiled.batch.results_of_rows`` reads them). No action log: the compiled matches keep none."""
    from sim.kort.compiled.batch import results_of_rows

    check_one_per_match(match_hands, match_seeds, None, "a runner match is one Kort match")
    if log_actions:
        raise ValueError("the compiled matches keep no action log")
    settings = as_options(check_options(options))
    seeds = derive_seeds(np.asarray(match_seeds, dtype=np.uint64), 0)
    return _result_columns(settings, seeds, results_of_rows(settings, seeds, *play_rows(settings, seeds)))


def replay(options: Options | Mapping[str, Any] | None, seed: int, actions: Sequence[int]) -> KortMatch:
    """The match dealt from ``seed`` with ``options`` and ``actions`` applied in order (from the actions table)."""
    match = KortMatch(options, seed=seed)
    for action in actions:
        match.apply(int(action))
    return match


# ----- inside --------------------------------------------------------------------------------------


# ----- the batch engine, for vectorised agents (the hook the runner's batch route uses) ------------------------
BATCH_POLICIES = {"random": RANDOM}
"""Agent specs ``KortBatch``'s compiled policies play beside vectorised agents (name -> policy id)."""


def start_batch(n_seats: int, seeds: np.ndarray, previous: KortBatch | None,
                options: Mapping[str, Any] | None = None) -> KortBatch:
    """One match per seed as a ``KortBatch`` with the options (a runner match is one Kort match)."""
    from sim.kort.compiled.batch import KortBatch

    return KortBatch.from_seeds(seeds, as_options(check_options(options)))


def batch_columns(n_seats: int, seeds: Sequence[np.ndarray], batches: Sequence[KortBatch],
                  options: Mapping[str, Any] | None = None) -> ChunkColumns:
    """The rows (and rounds) of a played-out batch (its matches dealt from ``seeds[0]``), as the reference path's."""
    (dealt,), (played,) = seeds, batches
    return _result_columns(played.options, dealt, played.results())


def _result_columns(options: Options, seeds: np.ndarray, played: BatchResults) -> ChunkColumns:
    """The compiled engine's results of matches dealt from ``seeds``, in the reference path's columns."""
    summary = _MatchSummary(played.rounds_played, played.redeals, played.wins, played.winner_team, played.scores,
                            played.decisions, played.crc32)
    return ChunkColumns(hands=_match_columns(seeds, options, summary),
                        tables={"rounds": _round_columns(seeds, options, _Rounds.of_batch(played))})


@dataclass
class _MatchSummary:
    """Per-match results, one entry per match (``wins`` per team, ``scores`` per seat)."""

    rounds: np.ndarray
    redeals: np.ndarray
    wins: np.ndarray  # [matches, 2]
    winner_team: np.ndarray
    scores: np.ndarray  # [matches, 4]
    decisions: np.ndarray
    crc32: np.ndarray

    @classmethod
    def of_matches(cls, matches: Sequence[KortMatch]) -> _MatchSummary:
        """The results of reference matches played to their end."""
        return cls(
            rounds=np.array([m.rounds_played for m in matches], dtype=np.int64),
            redeals=np.array([m.redeals for m in matches], dtype=np.int64),
            wins=np.array([m.wins for m in matches], dtype=np.int64).reshape(-1, NUM_TEAMS),
            winner_team=np.array([m.winner_team for m in matches], dtype=np.int64),
            scores=np.array([m.scores for m in matches], dtype=np.int64).reshape(-1, NUM_SEATS),
            decisions=np.array([len(m.decisions) for m in matches], dtype=np.int64),
            crc32=np.array([zlib.crc32(bytes(m.decisions)) for m in matches], dtype=np.uint32),
        )


@dataclass
class _Rounds:
    """Every round of the matches, one entry per round in match order (per-team fields ``[rounds, 2]``)."""

    match_row: np.ndarray
    round: np.ndarray
    holder: np.ndarray
    trump: np.ndarray
    trump_13: np.ndarray
    redeals: np.ndarray
    declared: np.ndarray  # [rounds, len(DECLARATIONS), 2]: each counter per team
    tricks: np.ndarray
    bavan: np.ndarray
    result: np.ndarray  # index into RESULTS
    result_team: np.ndarray
    wins: np.ndarray
    score: np.ndarray  # match wins per team after the round

    @classmethod
    def of_matches(cls, matches: Sequence[KortMatch]) -> _Rounds:
        """The rounds of reference matches, from each match's round records."""
        records = [(row, record) for row, match in enumerate(matches) for record in match.rounds]
        declared = np.zeros((len(records), len(DECLARATIONS), NUM_TEAMS), dtype=np.int64)
        for i, (_, record) in enumerate(records):
            for declaration in record["declarations"]:
                for counter in _COUNTED_AS[declaration["declaration"]]:
                    declared[i, DECLARATIONS.index(counter), declaration["seat"] % NUM_TEAMS] += 1

        def field(name: str, dtype: Any = np.int64) -> np.ndarray:
            return np.array([record[name] for _, record in records], dtype=dtype)

        return cls(
            match_row=np.array([row for row, _ in records], dtype=np.int64),
            round=field("round"), holder=field("holder"), trump=field("trump"), trump_13=field("trump_13", bool),
            redeals=field("redeals"), declared=declared,
            tricks=field("tricks").reshape(-1, NUM_TEAMS), bavan=field("bavan", bool),
            result=np.array([RESULTS.index(record["result"]) for _, record in records], dtype=np.int64),
            result_team=field("team"), wins=field("wins"), score=field("score").reshape(-1, NUM_TEAMS),
        )

    @classmethod
    def of_batch(cls, played: BatchResults) -> _Rounds:
        """The rounds of the compiled engine's matches, from its per-round arrays (a round past the last is -1)."""
        g, r = np.nonzero(played.round_result >= 0)  # match by match, round by round
        codes = played.round_declarations[g, r].astype(np.int64)  # [rounds, tricks]: kind * 4 + seat, -1 for none
        made = codes >= 0
        counts = np.array([[counter in _COUNTED_AS[word] for counter in DECLARATIONS] for word in DECLARATION_KINDS],
                          dtype=np.int64)  # [kind, counter]
        kind_counts = counts[np.where(made, codes // NUM_SEATS, 0)] * made[:, :, None]  # [rounds, tricks, counter]
        team = (codes % NUM_SEATS) % NUM_TEAMS
        declared = np.stack([(kind_counts * (made & (team == t))[:, :, None]).sum(axis=1) for t in range(NUM_TEAMS)],
                            axis=2)
        return cls(
            match_row=g, round=r, holder=played.round_holder[g, r], trump=played.round_trump[g, r],
            trump_13=played.round_trump_13[g, r], redeals=played.round_redeals[g, r], declared=declared,
            tricks=played.round_tricks[g, r], bavan=played.round_bavan[g, r], result=played.round_result[g, r],
            result_team=played.round_team[g, r], wins=played.round_wins[g, r], score=played.round_score[g, r],
        )


def _option_columns(options: Options, count: int) -> dict[str, np.ndarray]:
    return {name: np.full(count, getattr(options, name), dtype=np.int32) for name in OPTION_NAMES}


def _match_columns(seeds: np.ndarray, options: Options, summary: _MatchSummary) -> dict[str, np.ndarray]:
    team_of_seat = np.arange(NUM_SEATS) % NUM_TEAMS
    columns = {
        "seed": seeds,
        **_option_columns(options, len(seeds)),
        "rounds": summary.rounds.astype(np.int32),
        "redeals": summary.redeals.astype(np.int32),
        "wins_team0": summary.wins[:, 0].astype(np.int32),
        "wins_team1": summary.wins[:, 1].astype(np.int32),
        "winner_team": summary.winner_team.astype(np.int32),
        "score": summary.scores.astype(np.int8),
        "won": summary.winner_team[:, None] == team_of_seat[None, :],
        "decisions": summary.decisions.astype(np.int32),
        "decisions_crc32": summary.crc32.astype(np.uint32),
    }
    return {spec.name: columns[spec.name] for spec in HAND_COLUMNS}


def _round_columns(seeds: np.ndarray, options: Options, rounds: _Rounds) -> dict[str, np.ndarray]:
    columns = {
        "hand_row": rounds.match_row,
        "seed": seeds[rounds.match_row],
        **_option_columns(options, len(rounds.match_row)),
        "round": rounds.round, "holder": rounds.holder, "trump": rounds.trump, "trump_13": rounds.trump_13,
        "redeals": rounds.redeals, "bavan": rounds.bavan, "result": rounds.result,
        "result_team": rounds.result_team, "wins": rounds.wins,
    }
    for team in range(NUM_TEAMS):
        for k, kind in enumerate(DECLARATIONS):
            columns[f"{kind}_team{team}"] = rounds.declared[:, k, team]
        columns[f"tricks_team{team}"] = rounds.tricks[:, team]
        columns[f"match_wins_team{team}"] = rounds.score[:, team]
    return {"hand_row": columns["hand_row"],
            **{spec.name: np.asarray(columns[spec.name]).astype(spec.dtype) for spec in ROUND_COLUMNS}}


# ----- the commands' and the RL interfaces' hooks: deals by seed, conformance lines, text, the bench ----------
OPENING = "the first trump holder is option first_holder"  # who opens: fixed by the rules, so --first is refused
DEFAULT_SEATS = NUM_SEATS
OPTIONS: tuple[contract.OptionSpec, ...] = contract.option_specs(Options, {
    "target_wins": "the wins that end the match (7 in Practice and rooms, 3 in ranked play)",
    "first_holder": "the seat holding the trump in the first round (0 to 3)",
})


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KortMatch | None = None) -> KortMatch:
    """The match dealt from ``seed``."""
    contract.no_first_seat(TITLE, OPENING, first)
    return KortMatch(parse_options(dict(options)), seed=seed)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's match (compiled: on one core, as Knorri's ``conformance_lines`` says)."""
    contract.no_first_seat(TITLE, OPENING, first)
    rules = parse_options(dict(options))
    if engine == "reference":
        return [reference_line(rules, int(seed)) for seed in seeds]
    from sim.kort.compiled.batch import play_batch

    return play_batch(rules, seeds, "protocol", keep_rounds=False, workers=1).protocol_lines()


describe_event = describe_logged_event
describe_end = describe_scores



def _compiled_matches(n_seats: int, seeds: np.ndarray, workers: int, options: Mapping[str, Any]) -> int:
    from sim.kort.compiled.batch import play_batch

    return int(play_batch(check_options(options), seeds, "random", workers=workers).decisions.sum())


# reference_hands_per_s: `python -m experiments.bench.runner reference`, at 4 seats, its slowest.
# compiled_rows_per_s: `knorri-sim bench`, one core, Kort matches to 7 wins (docs/kort.md).
BENCH = contract.Bench(seats=(NUM_SEATS,), steps="decisions", steps_of=lambda match: len(match.decisions),
                       default_counts={"reference": 200, "compiled": 50_000}, play_compiled=_compiled_matches,
                       compiled_rows_per_s=70_000,
                       reference_hands_per_s=86)


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.kort.compiled.batch import KortBatch

    return KortBatch.from_seeds(seeds, options)


LEARNING = contract.LearningFacts(
    num_actions=NUM_ACTIONS, observation_size=tensor.OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=lambda match: tensor.encode_observation(match.observation(match.to_move)), board=board_text,
    cut_offs=CUT_OFFS, cut_off_codes=(), score_range=score_range,
    # per round: a trump choice, 13 tricks of 4 plays, a declaration per trick and a vote per seat
    max_decisions=lambda n, options: max_rounds(options["target_wins"]) * (1 + 13 * 5 + 4),
    resample=worlds.resample)
