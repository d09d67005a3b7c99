"""Knorri's observation tensor from a seat's observation, for the learned agent's one-decision ``act``.

The batch route hands ``act_batch`` the compiled batch's tensor rows; on the reference route ``act`` gets the
seat's observation and must build the very same numbers, or the two routes would choose differently. The tensor
needs the other seats' piles and hands, which Knorri's public log shows card by card, so they are read with
Knorri's tracker and the rest from the observation. Only what the seat may know goes in: the observation and its log.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.knorri.tracker import KnorriTracker
from sim import config, games


class KnorriEncoder:
    """Knorri's tensor from an observation and the piles and hands its public log shows (Knorri's tracker), written
    field by field as the compiled batch writes it (``sim.knorri.adapter.OBSERVATION_SLICES``), in compiled code."""

    def __init__(self, n_seats: int) -> None:
        self.n_seats = n_seats
        self.tracker = KnorriTracker(n_seats)
        self.size = games.adapter("knorri").LEARNING.observation_size
        from sim.knorri.adapter import OBSERVATION_SLICES  # the tensor's named fields

        self.offsets = TensorOffsets(*(np.int64(OBSERVATION_SLICES[name].start) for name in TensorOffsets._fields))

    def __call__(self, observation: Any) -> np.ndarray:
        """The tensor the compiled batch writes for this seat's decision."""
        self.tracker.update(observation)
        out = np.zeros(self.size, dtype=np.float32)
        if observation.done:
            return out
        n, seat = self.n_seats, observation.seat
        order = [(seat + k) % n for k in range(n)]  # seats counted from the acting one
        holdings = np.array([self.tracker.holdings[other] for other in order], dtype=np.uint64)
        scores = np.array([observation.scores[other] for other in order], dtype=np.int64)
        if self.tracker.phase == 1:
            table = np.array(observation.table, dtype=np.int64)
            turned = -1 if observation.turned is None else observation.turned
            view = SeatView(1, table, turned, observation.stock_left, _NO_CARDS, 0, 0, 0, 0)
            write_knorri(out, self.offsets, holdings, scores, view)
            return out
        flat = np.array([card for play in observation.trick for card in play], dtype=np.int64)
        run = len(observation.trick[0]) if observation.trick and len(observation.trick[0]) > 1 else 0
        view = SeatView(2, _NO_CARDS, -1, 0, flat, run, observation.plays_needed, int(observation.opening),
                        observation.phase2_actions)
        write_knorri(out, self.offsets, holdings, scores, view)
        return out


_NO_CARDS = np.zeros(0, dtype=np.int64)


class TensorOffsets(NamedTuple):
    """Where each of the tensor's fields starts (``sim.knorri.adapter.OBSERVATION_SLICES``), by name."""

    own_hand: np.int64
    other_hands: np.int64
    table: np.int64
    turned: np.int64
    trick_cards: np.int64
    top_card: np.int64
    bottom_card: np.int64
    trick_order: np.int64
    card_counts: np.int64
    out: np.int64
    present: np.int64
    scores: np.int64
    phase: np.int64
    opening: np.int64
    plays_in_trick: np.int64
    plays_needed: np.int64
    run_cards_in_trick: np.int64
    stock_left: np.int64
    phase2_actions: np.int64


class SeatView(NamedTuple):
    """The phase's own facts the tensor shows: phase 1's table, turned card (-1: none) and stock left, or phase 2's
    trick (its cards in play order), the cards of its opening run (0: none), the plays it needs, whether the
    opening play is still to come and the phase-2 actions so far."""

    phase: int
    table: np.ndarray
    turned: int
    stock_left: int
    trick: np.ndarray
    run: int
    needed: int
    opening: int
    actions: int


@njit(**config.KERNEL)
def write_knorri(out, at, holdings, scores, view):
    """Write Knorri's tensor into ``out`` (zeros) as the compiled batch writes it: ``at`` the fields' offsets
    (``TensorOffsets``), ``holdings`` and ``scores`` by seat from the acting one, then the phase's own facts
    (``SeatView``)."""
    n = holdings.shape[0]
    phase = view.phase
    holding = 0
    for k in range(n):
        start = at.own_hand if k == 0 else at.other_hands + (k - 1) * 52
        count = 0
        for card in range(52):
            if (holdings[k] >> np.uint64(card)) & np.uint64(1):
                out[start + card] = 1.0
                count += 1
        out[at.card_counts + k] = count
        if phase == 2 and count == 0:
            out[at.out + k] = 1.0
        out[at.present + k] = 1.0
        out[at.scores + k] = scores[k]
        if count > 0:
            holding += 1
    out[at.phase + phase - 1] = 1.0
    if phase == 1:
        for card in view.table:
            out[at.table + card] = 1.0
        if view.turned >= 0:
            out[at.turned + view.turned] = 1.0
        out[at.stock_left] = view.stock_left
        out[at.plays_needed] = n
        return
    trick, run = view.trick, view.run
    length = trick.shape[0]
    for i in range(length):
        out[at.trick_cards + trick[i]] = 1.0
        out[at.trick_order + i] = trick[i] + 1
    if length > 0:
        out[at.top_card + trick[length - 1]] = 1.0
        out[at.bottom_card + trick[0]] = 1.0
        out[at.plays_needed] = view.needed
    else:
        out[at.plays_needed] = holding
    out[at.opening] = view.opening
    out[at.plays_in_trick] = length - run + (1 if run > 0 else 0)
    out[at.run_cards_in_trick] = run
    out[at.phase2_actions] = view.actions
