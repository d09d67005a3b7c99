"""The per-game facts the RL interfaces need, in one table; everything else in ``rl`` is written once for all games.

Every game has the same shape (``sim.reference_base.ReferenceGame`` for play with
agents and text, ``sim.batch_base.CompiledBatch`` for lockstep batches): what differs
is how a deal is made from a seed, which options and seat counts there are, how the
acting seat's tensor is read off a reference game, and which ends are cut-offs.

An episode is the game's runner row: a Knorri hand, a Knockout Whist game, a Kort
match. Episode ``k`` of an environment seeded ``S`` is the runner's match with seed
``derive_seed(S, k)``: its deal is seeded ``derive_seed(match_seed, 0)`` and every
agent is reset with ``agent_seed(deal_seed, seat)``, exactly as ``knorri-sim run``
plays it, so an episode can be replayed by the runner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.batch_base import CompiledBatch
from sim.cards import card_list, cards_text
from sim.errors import GameInputError
from sim.games import game as find_game
from sim.knockout_whist import encoding as knockout_whist_encoding
from sim.knockout_whist import tensor as knockout_whist_tensor
from sim.knockout_whist.compiled.batch import KnockoutWhistBatch
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knorri import encoding as knorri_encoding
from sim.knorri.compiled.batch import END_REASONS, KnorriBatch
from sim.knorri.describe import describe_board
from sim.knorri.reference import KnorriHand
from sim.kort import encoding as kort_encoding
from sim.kort import tensor as kort_tensor
from sim.kort.compiled.batch import KortBatch
from sim.kort.compiled.state import max_rounds
from sim.kort.reference import KortMatch
from sim.reference_base import ReferenceGame
from sim.rng import derive_seed

Options = Mapping[str, Any]


@dataclass(frozen=True)
class GameFacts:
    """What the RL interfaces must know of one game (the rest they read from its engines)."""

    name: str  # the game's name in ``sim.games`` (and agent specs)
    seats: tuple[int, ...]  # the seat counts it is played with
    default_seats: int
    num_actions: int
    observation_size: int
    new_game: Callable[[int, int, Options], ReferenceGame]  # (seats, deal seed, options) -> the reference deal
    new_batch: Callable[[int, np.ndarray, Options], CompiledBatch]  # (seats, deal seeds, options) -> a batch
    acting_tensor: Callable[[ReferenceGame], np.ndarray]  # the seat to move's float32 tensor
    board: Callable[[ReferenceGame], str]  # the position as text for people
    cut_offs: tuple[str, ...]  # end reasons that are cut-offs (truncations, with scores), not natural ends
    cut_off_codes: tuple[int, ...]  # the same as the compiled batch's ``end_reason`` codes
    score_range: Callable[[int], tuple[float, float]]  # (lowest, highest) score a seat can get at n seats
    max_decisions: Callable[[int, Options], int]  # an upper bound on one deal's decisions (n seats, options)

    @property
    def title(self) -> str:
        """The game's title for messages."""
        return find_game(self.name).title

    def check_seats(self, n_seats: int) -> int:
        """``n_seats`` if the game is played with it; otherwise one clear line."""
        if n_seats not in self.seats:
            raise GameInputError(f"{self.title} is for {self.seats[0]} to {self.seats[-1]} seats, not {n_seats}")
        return int(n_seats)

    def truncated(self, game: ReferenceGame) -> bool:
        """Whether a finished reference game ended by a cut-off (a truncation) rather than by the rules' end."""
        return game.done and str(game.end_reason.value) in self.cut_offs


def deal_seed(match_seed: int) -> int:
    """The seed of the deal of the runner's match ``match_seed`` (its first and only row)."""
    return derive_seed(int(match_seed), 0)


def board_text(game: ReferenceGame) -> str:
    """Any game's position as text: each seat's cards and count (the seat to move marked), the scores and the
    latest public event."""
    lines = []
    for seat, cards in enumerate(game.hands):
        marker = "->" if seat == game.to_move else "  "
        held = card_list(cards)
        lines.append(f"{marker} seat {seat} [{len(held):2d}] {cards_text(held)}")
    lines.append(f"scores {list(game.scores)}" + (f", over ({game.end_reason.value})" if game.done else ""))
    if game.log:
        lines.append(f"last: {game.log[-1]}")
    return "\n".join(lines)


def _knorri_tensor(hand: ReferenceGame) -> np.ndarray:
    # The compiled batch's tensor of the reference hand as it stands: the same numbers the vector env learns from.
    return KnorriBatch.from_hands([hand]).observation_tensor()[0]


def _knorri_board(hand: ReferenceGame) -> str:
    last = f"\nlast: {hand.log[-1]}" if hand.log else ""
    return describe_board(hand) + last


GAMES: dict[str, GameFacts] = {
    "knorri": GameFacts(
        name="knorri", seats=tuple(range(knorri_encoding.MIN_SEATS, knorri_encoding.MAX_SEATS + 1)), default_seats=4,
        num_actions=knorri_encoding.NUM_ACTIONS, observation_size=KnorriBatch.OBSERVATION_SIZE,
        new_game=lambda n, seed, options: KnorriHand.from_seed(n, seed, 0),
        new_batch=lambda n, seeds, options: KnorriBatch.from_seeds(n, seeds),
        acting_tensor=_knorri_tensor, board=_knorri_board, cut_offs=("repeat", "cap"),
        cut_off_codes=(END_REASONS.index("repeat"), END_REASONS.index("cap")),
        score_range=lambda n: (-n * (n - 1) / 2, n - 1.0),
        # phase-1 choices (one per stock card at most; a thrown-in deal had none) and the phase-2 cap
        max_decisions=lambda n, options: knorri_encoding.STOCK_SIZE + knorri_encoding.MAX_PHASE2_ACTIONS),
    "knockout-whist": GameFacts(
        name="knockout-whist",
        seats=tuple(range(knockout_whist_encoding.MIN_SEATS, knockout_whist_encoding.MAX_SEATS + 1)),
        default_seats=4, num_actions=knockout_whist_encoding.NUM_ACTIONS,
        observation_size=knockout_whist_tensor.OBSERVATION_SIZE,
        new_game=lambda n, seed, options: KnockoutWhistGame({**options, "players": n}, seed),
        new_batch=lambda n, seeds, options: KnockoutWhistBatch.from_seeds(seeds, {**options, "players": n}),
        acting_tensor=lambda game: knockout_whist_tensor.encode_observation(game.observation(game.to_move)),
        board=board_text, cut_offs=(), cut_off_codes=(), score_range=lambda n: (-1.0, n - 1.0),
        # per hand of 7 - h + 1 cards: a trump choice, each seat's exchange picks (3 and an end) and plays, a knock
        max_decisions=lambda n, options: sum(1 + n * (4 + cards + 1) for cards in range(7, 0, -1))),
    "kort": GameFacts(
        name="kort", seats=(kort_encoding.NUM_SEATS,), default_seats=kort_encoding.NUM_SEATS,
        num_actions=kort_encoding.NUM_ACTIONS, observation_size=kort_tensor.OBSERVATION_SIZE,
        new_game=lambda n, seed, options: KortMatch(options, seed),
        new_batch=lambda n, seeds, options: KortBatch.from_seeds(seeds, options),
        acting_tensor=lambda game: kort_tensor.encode_observation(game.observation(game.to_move)),
        board=board_text, cut_offs=(), cut_off_codes=(), score_range=lambda n: (-1.0, 1.0),
        # per round: a trump choice, 13 tricks of 4 plays, a declaration per trick and a vote per seat
        max_decisions=lambda n, options: max_rounds(options["target_wins"]) * (1 + 13 * 5 + 4)),
}
"""Every game the harness plays, by its ``sim.games`` name."""

def facts(name: str) -> GameFacts:
    """The facts of the game called ``name``; an unknown name is one ``GameInputError`` line listing the games."""
    find_game(name)
    return GAMES[name]
