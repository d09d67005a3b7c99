"""Knorri's side of the contract beyond the runner: a hand by seed, the conformance lines, text, the bench, RL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sim.contract import Bench, LearningFacts, OptionSpec
from sim.errors import GameInputError
from sim.knorri import encoding
from sim.knorri.compiled.batch_kernels import OBSERVATION_SIZE
from sim.knorri.compiled.encode import END_REASONS
from sim.knorri.conformance import reference_line
from sim.knorri.describe import describe_board, describe_event, describe_result
from sim.knorri.reference import KnorriHand, check_seats

__all__ = ["BENCH", "DEFAULT_SEATS", "OPTIONS", "check_options", "conformance_lines", "deal", "describe_end",
           "describe_event", "LEARNING"]

DEFAULT_SEATS = 4
OPTIONS: tuple[OptionSpec, ...] = ()


def check_options(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Knorri has no options: ``{}``, or one line refusing any given."""
    if options:
        raise GameInputError(f"Knorri has no options, so not {', '.join(sorted(options))}")
    return {}


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KnorriHand | None = None) -> KnorriHand:
    """The hand dealt from ``seed``: ``first`` (default 0) turns first, or in a match the seat after ``previous``'s
    loser."""
    check_options(options)
    n_seats = check_seats(n_seats)
    if previous is not None:
        if first is not None:
            raise GameInputError("the first seat is chosen for a single hand: a match's later hands open at the "
                                 "seat after the last loser")
        first = (previous.loser + 1) % n_seats
    return KnorriHand.from_seed(n_seats, seed, _first_seat(n_seats, first))


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's hand, ``first`` (default 0) turning first."""
    check_options(options)
    n_seats = check_seats(n_seats)
    first = _first_seat(n_seats, first)
    if engine == "reference":
        return [reference_line(n_seats, int(seed), first) for seed in seeds]
    from sim.knorri.compiled.batch import play_batch
    from sim.knorri.compiled.policies import PROTOCOL

    return play_batch(n_seats, seeds, first, PROTOCOL).protocol_lines()


def describe_end(hand: KnorriHand) -> str:
    """How the hand ended, the loser, its length and every seat's score."""
    return describe_result(hand)


def _first_seat(n_seats: int, first: int | None) -> int:
    if first is None:
        return 0
    if not 0 <= first < n_seats:
        raise GameInputError(f"the first seat must be a seat from 0 to {n_seats - 1}, not {first}")
    return first


def _compiled_hands(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.knorri.compiled.batch import play_batch

    return int(play_batch(n_seats, seeds, 0, "random", workers=workers).phase2_actions.sum())


# compiled_rows_per_s: `knorri-sim bench`, one core, Knorri at 6 seats, its slowest (README).
BENCH = Bench(seats=(3, 4, 5, 6), steps="actions", steps_of=lambda hand: hand.phase2_actions,
              default_counts={"reference": 200, "compiled": 50_000}, play_compiled=_compiled_hands,
              compiled_rows_per_s=42_000)


def _acting_tensor(hand: KnorriHand) -> np.ndarray:
    # The compiled batch's tensor of the reference hand as it stands: the same numbers the vector env learns from.
    from sim.knorri.compiled.batch import KnorriBatch

    return KnorriBatch.from_hands([hand]).observation_tensor()[0]


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.knorri.compiled.batch import KnorriBatch

    return KnorriBatch.from_seeds(n_seats, seeds)


def _board(hand: KnorriHand) -> str:
    return describe_board(hand) + (f"\nlast: {hand.log[-1]}" if hand.log else "")


LEARNING = LearningFacts(
    num_actions=encoding.NUM_ACTIONS, observation_size=OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=_acting_tensor, board=_board, cut_offs=("repeat", "cap"),
    cut_off_codes=(END_REASONS.index("repeat"), END_REASONS.index("cap")),
    score_range=lambda n: (-n * (n - 1) / 2, n - 1.0),
    # phase-1 choices (one per stock card at most; a thrown-in deal had none) and the phase-2 cap
    max_decisions=lambda n, options: encoding.STOCK_SIZE + encoding.MAX_PHASE2_ACTIONS)
