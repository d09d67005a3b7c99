"""Knorri's observation tensor from a seat's observation, for the learned agent's one-decision ``act``.

The batch route hands ``act_batch`` the compiled batch's tensor rows; on the reference route ``act`` gets the
seat's observation and must build the very same numbers, or the two routes would choose differently. The tensor
needs the other seats' piles and hands, which Knorri's public log shows card by card, so they are read with
Knorri's tracker and the rest from the observation. Only what the seat may know goes in: the observation and its log.
"""

from __future__ import annotations

from typing import Any

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

        self.offsets = np.array([OBSERVATION_SLICES[name].start for name in _FIELDS], dtype=np.int64)

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
            write_knorri(out, self.offsets, holdings, scores, 1, table, turned, observation.stock_left, _NO_CARDS, 0,
                         0, 0, 0)
            return out
        flat = np.array([card for play in observation.trick for card in play], dtype=np.int64)
        run = len(observation.trick[0]) if observation.trick and len(observation.trick[0]) > 1 else 0
        write_knorri(out, self.offsets, holdings, scores, 2, _NO_CARDS, -1, 0, flat, run, observation.plays_needed,
                     int(observation.opening), observation.phase2_actions)
        return out


_NO_CARDS = np.zeros(0, dtype=np.int64)
_FIELDS = ("own_hand", "other_hands", "table", "turned", "trick_cards", "top_card", "bottom_card", "trick_order",
           "card_counts", "out", "present", "scores", "phase", "opening", "plays_in_trick", "plays_needed",
           "run_cards_in_trick", "stock_left", "phase2_actions")
"""The fields of Knorri's tensor, in the order ``write_knorri`` takes their offsets."""


@njit(**config.KERNEL)
def write_knorri(out, at, holdings, scores, phase, table, turned, stock_left, trick, run, needed, opening, actions):
    """Write Knorri's tensor into ``out`` (zeros) as the compiled batch writes it: ``at`` the fields' offsets in
    ``_FIELDS`` order, ``holdings`` and ``scores`` by seat from the acting one, then the phase's own facts."""
    n = holdings.shape[0]
    holding = 0
    for k in range(n):
        start = at[0] if k == 0 else at[1] + (k - 1) * 52
        count = 0
        for card in range(52):
            if (holdings[k] >> np.uint64(card)) & np.uint64(1):
                out[start + card] = 1.0
                count += 1
        out[at[8] + k] = count
        if phase == 2 and count == 0:
            out[at[9] + k] = 1.0
        out[at[10] + k] = 1.0
        out[at[11] + k] = scores[k]
        if count > 0:
            holding += 1
    out[at[12] + phase - 1] = 1.0
    if phase == 1:
        for card in table:
            out[at[2] + card] = 1.0
        if turned >= 0:
            out[at[3] + turned] = 1.0
        out[at[17]] = stock_left
        out[at[15]] = n
        return
    length = trick.shape[0]
    for i in range(length):
        out[at[4] + trick[i]] = 1.0
        out[at[7] + i] = trick[i] + 1
    if length > 0:
        out[at[5] + trick[length - 1]] = 1.0
        out[at[6] + trick[0]] = 1.0
        out[at[15]] = needed
    else:
        out[at[15]] = holding
    out[at[13]] = opening
    out[at[14]] = length - run + (1 if run > 0 else 0)
    out[at[16]] = run
    out[at[18]] = actions
