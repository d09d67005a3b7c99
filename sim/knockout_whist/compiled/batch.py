"""The compiled Knockout Whist engine's public API: a batch of games stepped together, and whole-game playouts.

- ``KnockoutWhistBatch``: B games as a few arrays; ``legal_mask()``, ``to_move``, ``step(actions)``,
  ``observation_tensor()``, ``done``, ``scores``, ``winner``. For agents and learners.
- ``play_batch``: play G games from their seeds to the end inside compiled code, over
  every core, and return the per-game results as NumPy arrays (``BatchResults``).

Every result equals the reference engine's (``reference.KnockoutWhistGame``) for the
same seed and decisions; the tests replay both side by side. Compile time is paid
on the first call after install and cached on disk (``sim/config.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.batch_base import (
    BatchResultsBase,
    CompiledBatch,
    ints_column,
    play_spread,
    playout_request,
    protocol_rows,
    seeded_state,
)
from sim.compiled_bits import crc_final, seed_streams
from sim.knockout_whist.compiled import batch_kernels, state
from sim.knockout_whist.compiled.kernels import init_game
from sim.knockout_whist.compiled.playout import POLICY_NAMES, PROTOCOL, play_chunk
from sim.knockout_whist.compiled.policies import POLICY_IDS
from sim.knockout_whist.compiled.state import END_REASONS
from sim.knockout_whist.encoding import NUM_ACTIONS, EndReason, Options, OptionsLike
from sim.knockout_whist.reference import as_options
from sim.knockout_whist.tensor import OBSERVATION_MEANINGS, OBSERVATION_SIZE, OBSERVATION_SLICES


# ----- whole-game playouts ---------------------------------------------------------------------------
@dataclass
class BatchResults(BatchResultsBase):
    """Per-game results, one entry per game (per-seat fields one column per seat)."""

    seed: np.ndarray  # uint64[G]
    options: Options
    hands_played: np.ndarray  # int64[G]: the number of the last hand dealt
    winner: np.ndarray  # int64[G]
    end_reason: np.ndarray  # int8[G]: an index into END_REASONS (last_trick, last_standing, rainbow)
    decisions: np.ndarray  # int64[G]
    crc32: np.ndarray  # uint32[G]: CRC-32 of the decision ids, one byte each (the protocol's)
    scores: np.ndarray  # int64[G, n]
    out_hand: np.ndarray  # int64[G, n]: the hand at whose end each seat went out (0: never)
    dog_hand: np.ndarray  # int64[G, n]: the hand each seat played on its dog's life (0: none)
    dog_saved: np.ndarray  # bool[G, n]: whether that dog took a trick

    def protocol_lines(self) -> list[str]:
        """The conformance protocol's line for each game: ``seed hands_played winner scores… decisions crc32``."""
        return protocol_rows(self.seed.tolist(), self.hands_played.tolist(), self.winner.tolist(),
                             self.scores.tolist(), self.decisions.tolist(), self.crc32.tolist())

    def end_reasons(self) -> list[EndReason]:
        """Each game's end reason as an ``EndReason``."""
        return [END_REASONS[i] for i in self.end_reason.tolist()]


def results_from_rows(options: Options, seeds: np.ndarray, ints: np.ndarray) -> BatchResults:
    """The per-game results of finished games' ints rows (one row per seed), as ``play_batch`` returns them."""
    n = options.players
    return BatchResults(
        seed=seeds,
        options=options,
        hands_played=ints[:, state.I_HAND_NO].copy(),
        winner=ints[:, state.I_WINNER].copy(),
        end_reason=ints[:, state.I_END_REASON].astype(np.int8),
        decisions=ints[:, state.I_DECISIONS].copy(),
        crc32=crc_final(ints[:, state.I_CRC]).astype(np.uint32),
        scores=ints[:, state.I_SCORE:state.I_SCORE + n].copy(),
        out_hand=ints[:, state.I_OUT_HAND:state.I_OUT_HAND + n].copy(),
        dog_hand=ints[:, state.I_DOG_HAND:state.I_DOG_HAND + n].copy(),
        dog_saved=ints[:, state.I_DOG_SAVED:state.I_DOG_SAVED + n].astype(bool),
    )


def play_batch(options: OptionsLike, seeds: Sequence[int] | np.ndarray, policy: int | str = PROTOCOL,
               workers: int | None = None) -> BatchResults:
    """Play one game per seed to its end in compiled code, spread over ``workers`` cores.

    ``policy`` is ``"protocol"`` (the conformance protocol: one stream per game for the
    permutations and the decisions, so ``protocol_lines()`` are the reference engine's)
    or ``"random"`` (seat s draws from ``agent_seed(seed, s)``, as ``RandomAgent``). A
    game's result depends only on its seed, the options and the policy, never on ``workers``.
    """
    options = as_options(options)
    seeds, policy, workers = playout_request(seeds, policy, POLICY_NAMES, workers)
    ints = np.zeros((len(seeds), state.NUM_INT_FIELDS), dtype=np.int64)
    play_spread(workers, len(seeds), play_chunk, (options.players, options.flags(), seeds, policy),
                lambda: (ints,))
    return results_from_rows(options, seeds, ints)


# ----- the batch ------------------------------------------------------------------------------------
class KnockoutWhistBatch(CompiledBatch):
    """B games of Knockout Whist stepped together: one action per game per ``step``; finished games stand still.

    Every game has the same options. All state is in a few arrays (``state``
    documents the columns); the permutations and streams never leave them. ``scores``
    are zeros until a game is over, then n-1 for the winner and -1 for every other seat.
    The observation holds the same numbers ``tensor.encode_observation`` makes of the
    reference engine's observation: the seat's own cards, picks and thrown cards, the
    trick, the public counts, statuses and choices; never another seat's hand or thrown
    cards, nor the stock.
    """

    NUM_ACTIONS = NUM_ACTIONS
    OBSERVATION_SIZE = OBSERVATION_SIZE
    LAYOUT = state
    KERNELS = batch_kernels
    POLICIES = POLICY_IDS

    def __init__(self, options: Options, cards: np.ndarray, ints: np.ndarray, decks: np.ndarray,
                 rngs: np.ndarray) -> None:
        """Wrap state arrays; use ``from_seeds`` to make a batch."""
        self.options = options
        self.n_seats = options.players
        self._cards, self._ints, self._decks, self._rngs = cards, ints, decks, rngs

    @classmethod
    def from_seeds(cls, seeds: Sequence[int] | np.ndarray, options: OptionsLike = None) -> KnockoutWhistBatch:
        """One game per seed, dealt as ``KnockoutWhistGame(options, seed)`` deals it (default options: 4 seats)."""
        options = as_options(options)
        seeds, (cards, ints, decks, rngs) = seeded_state(seeds, state)
        flags = options.flags()
        for g, seed in enumerate(seeds.tolist()):
            seed_streams(rngs[g], np.uint64(seed), options.players)
            init_game(cards[g], ints[g], decks[g], rngs[g], options.players, flags)
        return cls(options, cards, ints, decks, rngs)

    # ----- what only Knockout Whist asks ------------------------------------------------------------------
    phase = ints_column(state.I_PHASE, "``int64[B]``: each game's ``Phase`` (choose, exchange, play, over).")
    hand_no = ints_column(state.I_HAND_NO, "``int64[B]``: the hand being played, 1..7 (the hands played, once over).")
    winner = ints_column(state.I_WINNER, "``int64[B]``: each game's winner (-1 while playing).")

    def results(self) -> BatchResults:
        """The per-game results so far, in the form ``play_batch`` returns (seeds are not kept: zeros)."""
        return results_from_rows(self.options, np.zeros(len(self), dtype=np.uint64), self._ints)


__all__ = [
    "END_REASONS",
    "OBSERVATION_MEANINGS",
    "OBSERVATION_SLICES",
    "BatchResults",
    "KnockoutWhistBatch",
    "play_batch",
    "results_from_rows",
]
