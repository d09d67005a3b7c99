"""The compiled Kort engine's public API: a batch of matches stepped together, and whole-match playouts.

- ``KortBatch``: B matches as a few arrays; ``legal_mask()``, ``to_move``, ``step(actions)``,
  ``observation_tensor()``, ``done``, ``scores``, ``winner_team``, ``results()``. For agents and learners.
- ``play_batch``: play G matches from their seeds to the end inside compiled code, over
  every core, and return the per-match and per-round results as NumPy arrays (``BatchResults``).

Every result equals the reference engine's (``reference.KortMatch``) for the same seed
and decisions; the tests replay both side by side. Compile time is paid on the first
call after install and cached on disk (``sim/config.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.batch_base import (
    BatchResultsBase,
    CompiledBatch,
    code_names,
    ints_column,
    ints_columns,
    play_spread,
    playout_request,
    protocol_rows,
    seeded_state,
)
from sim.compiled_bits import crc_final
from sim.kort.compiled import batch_kernels, state
from sim.kort.compiled.kernels import init_match, seed_streams
from sim.kort.compiled.playout import POLICY_NAMES, PROTOCOL, RANDOM, play_chunk
from sim.kort.compiled.state import END_REASONS
from sim.kort.encoding import AUTOMATIC_BASE, DECLARATION_KINDS, NUM_ACTIONS, NUM_SEATS, Options, OptionsLike, Result
from sim.kort.reference import as_options
from sim.kort.tensor import OBSERVATION_MEANINGS, OBSERVATION_SIZE, OBSERVATION_SLICES

RESULTS: tuple[Result, ...] = tuple(Result)
"""``round_result`` indexes this: ordinary, kort, at_kort, bavan_made, bavan_failed, trop_failed."""


# ----- whole-match playouts ---------------------------------------------------------------------------
@dataclass
class BatchResults(BatchResultsBase):
    """Per-match results, one entry per match; per-round fields have one column per round (R of them).

    A round column past a match's last round holds -1 (``round_result``) or zeros. R is the most
    rounds a match can last (``2 * target_wins - 1``), or 0 when the rounds were not kept.
    """

    seed: np.ndarray  # uint64[G]
    options: Options
    rounds_played: np.ndarray  # int64[G]
    redeals: np.ndarray  # int64[G]: over the whole match
    wins: np.ndarray  # int64[G, 2]: match wins per team
    winner_team: np.ndarray  # int64[G]
    decisions: np.ndarray  # int64[G]
    crc32: np.ndarray  # uint32[G]: CRC-32 of the decision ids, one byte each (the protocol's)
    scores: np.ndarray  # int64[G, 4]: +1 for the winning team's seats, -1 for the others
    round_result: np.ndarray  # int8[G, R]: an index into RESULTS (-1: no such round)
    round_team: np.ndarray  # int8[G, R]: the team that got the round's wins
    round_wins: np.ndarray  # int8[G, R]: how many
    round_tricks: np.ndarray  # int8[G, R, 2]: tricks per team
    round_holder: np.ndarray  # int8[G, R]: the trump holder
    round_trump: np.ndarray  # int8[G, R]: the trump suit 0..3
    round_trump_13: np.ndarray  # bool[G, R]: the holder chose "13"
    round_redeals: np.ndarray  # int16[G, R]: redeals in the round
    round_bavan: np.ndarray  # bool[G, R]: Bavan was played
    round_score: np.ndarray  # int16[G, R, 2]: the match's wins per team after the round
    round_declarations: np.ndarray  # int8[G, R, 13]: each trick's declaration, kind * 4 + seat (-1: none)

    def protocol_lines(self) -> list[str]:
        """The conformance protocol's line for each match: ``seed rounds redeals wins_team0 wins_team1
        winner_team decisions crc32``."""
        return protocol_rows(self.seed.tolist(), self.rounds_played.tolist(), self.redeals.tolist(),
                             self.wins.tolist(), self.winner_team.tolist(), self.decisions.tolist(),
                             self.crc32.tolist())

    def round_result_names(self) -> np.ndarray:
        """``str[G, R]``: ``round_result`` by name (``ordinary``, ``kort``, ``at_kort``, ``bavan_made``,
        ``bavan_failed``, ``trop_failed``); ``""`` past a match's last round."""
        return code_names(self.round_result, [result.word for result in RESULTS])

    def round_records(self, g: int) -> list[dict[str, Any]]:
        """Match g's rounds as the reference engine records them (``KortMatch.rounds``)."""
        records = []
        for r in range(min(int(self.rounds_played[g]), self.round_result.shape[1])):
            declarations = [_declaration(trick, code)
                            for trick, code in enumerate(self.round_declarations[g, r].tolist()) if code >= 0]
            records.append({
                "round": r, "result": RESULTS[self.round_result[g, r]].word, "team": int(self.round_team[g, r]),
                "wins": int(self.round_wins[g, r]), "tricks": self.round_tricks[g, r].tolist(),
                "holder": int(self.round_holder[g, r]), "trump": int(self.round_trump[g, r]),
                "trump_13": bool(self.round_trump_13[g, r]), "declarations": declarations,
                "redeals": int(self.round_redeals[g, r]), "bavan": bool(self.round_bavan[g, r]),
                "score": self.round_score[g, r].tolist(),
            })
        return records

    def record(self, g: int) -> dict[str, Any]:
        """Match g's record as the reference engine gives it (``KortMatch.record()``)."""
        return {
            "options": self.options.to_dict(), "rounds_played": int(self.rounds_played[g]),
            "redeals": int(self.redeals[g]), "wins": self.wins[g].tolist(), "winner_team": int(self.winner_team[g]),
            "scores": self.scores[g].tolist(), "decisions": int(self.decisions[g]), "rounds": self.round_records(g),
        }


def _declaration(trick: int, code: int) -> dict[str, Any]:
    """A declaration's record from its code (kind * 4 + seat), as the reference engine writes it."""
    kind, seat = divmod(code, NUM_SEATS)
    return {"trick": trick, "seat": seat, "declaration": DECLARATION_KINDS[kind], "automatic": kind >= AUTOMATIC_BASE}


def _results(options: Options, seeds: np.ndarray, ints: np.ndarray, rounds: np.ndarray) -> BatchResults:
    kept = rounds.shape[1]
    played = np.arange(kept)[None, :] < ints[:, state.I_ROUNDS_PLAYED, None]
    return BatchResults(
        seed=seeds,
        options=options,
        rounds_played=ints[:, state.I_ROUNDS_PLAYED].copy(),
        redeals=ints[:, state.I_REDEALS].copy(),
        wins=ints[:, state.I_WINS:state.I_WINS + 2].copy(),
        winner_team=ints[:, state.I_WINNER_TEAM].copy(),
        decisions=ints[:, state.I_DECISIONS].copy(),
        crc32=crc_final(ints[:, state.I_CRC]).astype(np.uint32),
        scores=ints[:, state.I_SCORE:state.I_SCORE + NUM_SEATS].copy(),
        round_result=np.where(played, rounds[:, :, state.R_RESULT], -1).astype(np.int8),
        round_team=rounds[:, :, state.R_TEAM].astype(np.int8),
        round_wins=rounds[:, :, state.R_WINS].astype(np.int8),
        round_tricks=rounds[:, :, state.R_TRICKS:state.R_TRICKS + 2].astype(np.int8),
        round_holder=rounds[:, :, state.R_HOLDER].astype(np.int8),
        round_trump=rounds[:, :, state.R_TRUMP].astype(np.int8),
        round_trump_13=rounds[:, :, state.R_TRUMP_13] == 1,
        round_redeals=rounds[:, :, state.R_REDEALS].copy(),
        round_bavan=rounds[:, :, state.R_BAVAN] == 1,
        round_score=rounds[:, :, state.R_SCORE:state.R_SCORE + 2].copy(),
        round_declarations=rounds[:, :, state.R_DECLARED:state.R_DECLARED + 13].astype(np.int8),
    )


def results_of_rows(options: Options, seeds: np.ndarray, ints: np.ndarray, rounds: np.ndarray) -> BatchResults:
    """The results of matches played elsewhere in compiled code (``compiled.new_results`` rows: final ints rows
    and round records), as ``play_batch`` returns its own: the compiled lineups of ``agents.kort.lineup``."""
    return _results(options, seeds, ints, rounds)


def _round_arrays(count: int, options: Options, keep: bool) -> np.ndarray:
    """Zeroed ``int16[count, R, ROUND_FIELDS]`` for the rounds' records (R = 0 when they are not kept)."""
    return np.zeros((count, state.max_rounds(options.target_wins) if keep else 0, state.ROUND_FIELDS), dtype=np.int16)


def play_batch(options: OptionsLike, seeds: Sequence[int] | np.ndarray, policy: int | str = PROTOCOL,
               workers: int | None = None, keep_rounds: bool = True) -> BatchResults:
    """Play one match per seed to its end in compiled code, spread over ``workers`` cores.

    ``policy`` is ``"protocol"`` (the conformance protocol: one stream per match for the
    decks and the decisions, so ``protocol_lines()`` are the reference engine's) or
    ``"random"`` (decks from the match's stream, seat s's choices from ``agent_seed(seed, s)``,
    as ``RandomAgent`` reset once a match). A match's result depends only on its seed, the
    options and the policy, never on ``workers``. ``keep_rounds=False`` skips the per-round
    arrays (they come back with no columns), for long runs that need only the match lines.
    """
    options = as_options(options)
    seeds, policy, workers = playout_request(seeds, policy, POLICY_NAMES, workers)
    ints = np.zeros((len(seeds), state.NUM_INT_FIELDS), dtype=np.int64)
    rounds = _round_arrays(len(seeds), options, keep_rounds)
    play_spread(workers, len(seeds), play_chunk,
                (options.target_wins, options.first_holder, seeds, policy),
                lambda: (ints, rounds))
    return _results(options, seeds, ints, rounds)


# ----- the batch ------------------------------------------------------------------------------------
class KortBatch(CompiledBatch):
    """B matches of Kort stepped together: one action per match per ``step``; finished matches stand still.

    Every match has the same options. All state is in a few arrays (``state``
    documents the columns); the decks and streams never leave them. ``scores`` are zeros
    until a match is over, then +1 for the winning team's seats and -1 for the others.
    The observation holds the same numbers ``tensor.encode_observation`` makes of the
    reference engine's observation: the acting seat's own cards, everything public, and its
    own Bavan vote; never another seat's hand (the partner's included), the deck, or the
    partner's vote before both are cast.
    """

    UNIT = "match"
    NUM_ACTIONS = NUM_ACTIONS
    OBSERVATION_SIZE = OBSERVATION_SIZE
    LAYOUT = state
    KERNELS = batch_kernels
    n_seats = NUM_SEATS
    POLICIES = {"random": RANDOM}
    STATE = ("_cards", "_ints", "_decks", "_rngs", "_rounds")

    def __init__(self, options: Options, cards: np.ndarray, ints: np.ndarray, decks: np.ndarray,
                 rngs: np.ndarray, rounds: np.ndarray) -> None:
        """Wrap state arrays; use ``from_seeds`` to make a batch."""
        self.options = options
        self._cards, self._ints, self._decks, self._rngs, self._rounds = cards, ints, decks, rngs, rounds

    @classmethod
    def from_seeds(cls, seeds: Sequence[int] | np.ndarray, options: OptionsLike = None) -> KortBatch:
        """One match per seed, dealt as ``KortMatch(options, seed=seed)`` deals it (default options: to 7 wins)."""
        options = as_options(options)
        seeds, (cards, ints, decks, rngs) = seeded_state(seeds, state)
        for g, seed in enumerate(seeds.tolist()):
            seed_streams(rngs[g], np.uint64(seed))
            init_match(cards[g], ints[g], decks[g], rngs[g], options.target_wins, options.first_holder)
        return cls(options, cards, ints, decks, rngs, _round_arrays(len(seeds), options, True))

    # ----- what only Kort asks ------------------------------------------------------------------------
    phase = ints_column(
        state.I_PHASE, "``int64[B]``: each match's ``Phase`` (trump, lead, declare, follow, vote, over).")
    round_no = ints_column(state.I_ROUND_NO, "``int64[B]``: the round being played, from 0 (the last one's once over).")
    holder = ints_column(state.I_HOLDER, "``int64[B]``: this round's trump holder.")
    trump = ints_column(state.I_TRUMP, "``int64[B]``: the trump suit 0..3, -1 before the holder's choice.")
    tricks = ints_columns(state.I_TRICKS, 2, "``int64[B, 2]``: tricks per team this round.")
    lead_states = ints_columns(state.I_LEAD_STATE, 2, "``int64[B, 2]``: each team's lead state as ``LeadState.code``.")
    wins = ints_columns(state.I_WINS, 2, "``int64[B, 2]``: match wins per team.")
    winner_team = ints_column(state.I_WINNER_TEAM, "``int64[B]``: each match's winning team (-1 while playing).")

    def results(self) -> BatchResults:
        """The per-match and per-round results so far, as ``play_batch`` returns them (seeds are not kept: zeros)."""
        return _results(self.options, np.zeros(len(self), dtype=np.uint64), self._ints, self._rounds)


__all__ = [
    "END_REASONS",
    "OBSERVATION_MEANINGS",
    "OBSERVATION_SLICES",
    "RESULTS",
    "BatchResults",
    "KortBatch",
    "play_batch",
    "results_of_rows",
]
