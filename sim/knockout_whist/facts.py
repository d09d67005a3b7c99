"""Knockout Whist's side of the contract beyond the runner: a game by seed, the conformance lines, text, the bench,
RL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sim.contract import Bench, LearningFacts, OptionSpec, option_specs
from sim.errors import GameInputError
from sim.knockout_whist import tensor
from sim.knockout_whist.conformance import reference_line
from sim.knockout_whist.encoding import NUM_ACTIONS, Options, parse_options
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.log_text import board_text, describe_logged_event, describe_scores

__all__ = ["BENCH", "DEFAULT_SEATS", "OPTIONS", "conformance_lines", "deal", "describe_end", "describe_event",
           "options_for"]

DEFAULT_SEATS = 4
OPTION_DOCS = {
    "dogs_life": "a seat's first hand without a trick gives it a dog's life (default true)",
    "safe_first_hand": "nobody goes out after hand 1 (default false)",
    "winner_deals": "from hand 2 the trump chooser deals and leads (default false)",
    "card_exchange": "each seat may swap up to 3 cards with the stock (default false)",
    "no_trumps_choice": "the chooser may choose no trumps (default false)",
    "rainbow": "one card of each suit in hand 4 wins at once (default false)",
}
OPTIONS: tuple[OptionSpec, ...] = option_specs(Options, OPTION_DOCS, skip=("players",))


def options_for(n_seats: int, options: Mapping[str, Any] | None) -> Options:
    """The rules' options for a table of ``n_seats``: the seat count sets ``players``, which no option may."""
    options = dict(options or {})
    if "players" in options:
        raise GameInputError("the number of players is set by the seat count (seats, --seats), not an option")
    return parse_options({"players": n_seats, **options})


def deal(n_seats: int, seed: int, options: Mapping[str, Any], first: int | None = None,
         previous: KnockoutWhistGame | None = None) -> KnockoutWhistGame:
    """The game dealt from ``seed``."""
    _refuse_first(first)
    return KnockoutWhistGame(options_for(n_seats, options), seed=seed)


def conformance_lines(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any], first: int | None,
                      engine: str) -> list[str]:
    """The protocol line of each seed's game."""
    _refuse_first(first)
    rules = options_for(n_seats, options)
    if engine == "reference":
        return [reference_line(rules, int(seed)) for seed in seeds]
    from sim.knockout_whist.compiled.batch import play_batch

    return play_batch(rules, seeds, "protocol").protocol_lines()


describe_event = describe_logged_event
describe_end = describe_scores


def _refuse_first(first: int | None) -> None:
    if first is not None:
        raise GameInputError("Knockout Whist has no choice of first seat: seat 0 deals the first hand and seat 1 leads")


def _compiled_games(n_seats: int, seeds: np.ndarray, workers: int) -> int:
    from sim.knockout_whist.compiled.batch import play_batch

    return int(play_batch(Options(players=n_seats), seeds, "random", workers=workers).decisions.sum())


# compiled_rows_per_s: `knorri-sim bench`, one core, Knockout Whist at 7 seats (README).
BENCH = Bench(seats=(4, 7), steps="decisions", steps_of=lambda game: len(game.decisions),
              default_counts={"reference": 300, "compiled": 100_000}, play_compiled=_compiled_games,
              compiled_rows_per_s=95_000)


def _new_batch(n_seats: int, seeds: np.ndarray, options: Mapping[str, Any]) -> Any:
    from sim.knockout_whist.compiled.batch import KnockoutWhistBatch

    return KnockoutWhistBatch.from_seeds(seeds, options_for(n_seats, options))


LEARNING = LearningFacts(
    num_actions=NUM_ACTIONS, observation_size=tensor.OBSERVATION_SIZE, new_batch=_new_batch,
    acting_tensor=lambda game: tensor.encode_observation(game.observation(game.to_move)), board=board_text,
    cut_offs=(), cut_off_codes=(), score_range=lambda n: (-1.0, n - 1.0),
    # per hand of 7 - h + 1 cards: a trump choice, each seat's exchange picks (3 and an end) and plays, a knock
    max_decisions=lambda n, options: sum(1 + n * (4 + cards + 1) for cards in range(7, 0, -1)))
