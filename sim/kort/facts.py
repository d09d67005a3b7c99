"""Kort's side of the contract beyond the runner: a match by seed, the conformance lines, text, the bench, RL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sim.contract import Bench, LearningFacts, OptionSpec, option_specs
from sim.errors import GameInputError
from sim.kort import tensor
from sim.kort.compiled.state import max_rounds
from sim.kort.conformance import reference_line
from sim.kort.encoding import NUM_ACTIONS, NUM_SEATS, Options, parse_options
from sim.kort.reference import KortMatch
from sim.log_text import board_text, describe_logged_event, describe_scores

__all__ = ["BENCH", "DEFAULT_SEATS", "LEARNING", "OPTIONS", "conformance_lines", "deal", "describe_end",
           "describe_event"]

DEFAULT_SEATS = NUM_SEATS
OPTIONS: tuple[OptionSpec, ...] = option_specs(Options, {
    "target_wins": "the wins that end the match (7 in Practice and rooms, 3 in ranked play)",
    "first_holder": "the seat holding the trump in the first round (0 to 3)",
})


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KortMatch | None = None) -> KortMatch:
    """The match dealt from ``seed``."""
    _refuse_first(first)
    return KortMatch(parse_options(dict(options)), seed=seed)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's match."""
    _refuse_first(first)
    rules = parse_options(dict(options))
    if engine == "reference":
        return [reference_line(rules, int(seed)) for seed in seeds]
    from sim.kort.compiled.batch import play_batch

    return play_batch(rules, seeds, "protocol", keep_rounds=False).protocol_lines()


describe_event = describe_logged_event
describe_end = describe_scores


def _refuse_first(first: int | None) -> None:
    if first is not None:
        raise GameInputError("Kort has no choice of first seat: the first trump holder is option first_holder")


def _compiled_matches(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.kort.compiled.batch import play_batch

    return int(play_batch(None, seeds, "random", workers=workers).decisions.sum())


# compiled_rows_per_s: `knorri-sim bench`, one core, Kort matches to 7 wins (README).
BENCH = Bench(seats=(NUM_SEATS,), steps="decisions", steps_of=lambda match: len(match.decisions),
              default_counts={"reference": 200, "compiled": 50_000}, play_compiled=_compiled_matches,
              compiled_rows_per_s=70_000)


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.kort.compiled.batch import KortBatch

    return KortBatch.from_seeds(seeds, options)


LEARNING = LearningFacts(
    num_actions=NUM_ACTIONS, observation_size=tensor.OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=lambda match: tensor.encode_observation(match.observation(match.to_move)), board=board_text,
    cut_offs=(), cut_off_codes=(), score_range=lambda n: (-1.0, 1.0),
    # per round: a trump choice, 13 tricks of 4 plays, a declaration per trick and a vote per seat
    max_decisions=lambda n, options: max_rounds(options["target_wins"]) * (1 + 13 * 5 + 4))
