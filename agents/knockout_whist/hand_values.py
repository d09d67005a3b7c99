"""What a seat is worth at the start of a hand: its chance to win the game from there, measured in greedy self-play.

``mcts`` can stop its playouts at the end of the hand being played and value each seat
by this table instead of playing the later hands out: the later deals are fresh, so a
whole-game playout adds their noise to every value without telling the decisions of
this hand apart. A table entry is the share of games won from the start of a hand by
seats in the same spot, among games played by ``greedy`` at every seat: the hand
about to be dealt, the seats still in, the seat's status (in, or on its dog's life),
whether it chooses trumps, and whether the dog's life has been used. The expected
normalised score is the win chance (the winner scores n - 1, the others -1), so the
table is the game score's own value, not a new objective.

A table is computed once per seat count and options and process (about a second of
compiled play), from a fixed seed, so agents using it stay deterministic.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from sim import config
from sim.knockout_whist.compiled import (
    GREEDY,
    apply_action,
    chooser,
    dogs_life_used,
    hand_number,
    is_over,
    new_game,
    new_position,
    policy_choice,
    seat_status,
    winner,
)
from sim.knockout_whist.encoding import LAST_HAND, MAX_SEATS, Status

SHAPE = (LAST_HAND + 1, MAX_SEATS + 1, 2, 2, 2)
"""Indexed ``[hand about to be dealt, seats still in, status (0 in, 1 dog), chooses trumps, dog's life used]``."""
GAMES = 20_000
PRIOR_GAMES = 20.0  # an entry seen in few games leans towards an equal share of the win
SEED = 2026
OUT = int(Status.OUT)
SPOT_SEAT, SPOT_HAND, SPOT_LEFT, SPOT_STATUS, SPOT_CHOOSES, SPOT_USED = range(6)
"""The columns of a seat's spot at a hand's start, as ``_tally`` keeps it: the seat, then its index in ``SHAPE``."""


@cache
def hand_values(n_seats: int, flags: int, games: int = GAMES) -> np.ndarray:
    """The table for ``n_seats`` seats and options ``flags`` (``Options.flags()``), float64 of ``SHAPE``."""
    wins = np.zeros(SHAPE)
    totals = np.zeros(SHAPE)
    _tally(n_seats, flags, games, SEED, new_position(), wins, totals)
    fair = np.zeros(SHAPE)
    for left in range(1, MAX_SEATS + 1):
        fair[:, left] = 1.0 / left
    table = (wins + PRIOR_GAMES * fair) / (totals + PRIOR_GAMES)
    table.flags.writeable = False
    return table


@njit(**config.KERNEL)
def _tally(n, flags, games, seed, position, wins, totals):
    """Play ``games`` greedy games in ``position``; count, per table entry, the seats that were there and those that
    won."""
    cards, ints, deck, rng = position
    spots = np.zeros((LAST_HAND * MAX_SEATS, SPOT_USED + 1), dtype=np.int64)
    for g in range(games):
        new_game(cards, ints, deck, rng, n, flags, seed + g)
        count = 0
        hand = hand_number(ints)
        while not is_over(ints):
            apply_action(cards, ints, deck, rng, policy_choice(GREEDY, cards, ints, rng))
            if is_over(ints) or hand_number(ints) == hand:
                continue
            hand = hand_number(ints)
            left = 0
            for s in range(n):
                left += seat_status(ints, s) != OUT
            for s in range(n):
                status = seat_status(ints, s)
                if status != OUT:
                    spots[count, SPOT_SEAT] = s
                    spots[count, SPOT_HAND] = hand
                    spots[count, SPOT_LEFT] = left
                    spots[count, SPOT_STATUS] = status
                    spots[count, SPOT_CHOOSES] = 1 if chooser(ints) == s else 0
                    spots[count, SPOT_USED] = 1 if dogs_life_used(ints) else 0
                    count += 1
        won = winner(ints)
        for k in range(count):
            at = (spots[k, SPOT_HAND], spots[k, SPOT_LEFT], spots[k, SPOT_STATUS], spots[k, SPOT_CHOOSES],
                  spots[k, SPOT_USED])
            totals[at] += 1.0
            if spots[k, SPOT_SEAT] == won:
                wins[at] += 1.0
