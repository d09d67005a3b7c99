"""A seat's observation tensor from its observation, for the learned agent's one-decision ``act``.

The batch route hands ``act_batch`` the compiled batch's tensor rows; on the reference route ``act`` gets the
seat's observation (a frozen dataclass) and must build the very same numbers, or the two routes would choose
differently. Knockout Whist and Kort write that tensor from an observation themselves (``encode_observation``);
Knorri's needs the other seats' piles and hands, which its public log shows card by card, so they are read with
Knorri's tracker and the rest from the observation. Only what the seat may know goes in: the observation and its log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.knorri.tracker import KnorriTracker
from sim import games

Encoder = Callable[[Any], np.ndarray]


def encoder_for(game: str, n_seats: int) -> Encoder:
    """A function from the seat's observation to its ``float32`` observation tensor, for one hand (or game) at a
    time: make a new one at every reset, as it may remember the log it has read."""
    if game == "knorri":
        return KnorriEncoder(n_seats)
    if game == "knockout-whist":
        from sim.knockout_whist.tensor import encode_observation
        return encode_observation
    if game == "kort":
        from sim.kort.tensor import encode_observation
        return encode_observation
    raise ValueError(f"the learned agent reads no observation of {game}: it plays knorri, knockout-whist and kort")


def card_flags(card_sets: list[int]) -> np.ndarray:
    """``float32[len(card_sets), 52]``: one row of flags per card set (an int, bit ``id`` per card)."""
    words = np.array(card_sets, dtype="<u8").view(np.uint8)
    return np.unpackbits(words, bitorder="little").reshape(len(card_sets), 64)[:, :52].astype(np.float32)


class KnorriEncoder:
    """Knorri's tensor from an observation and the piles and hands its public log shows (Knorri's tracker), written
    field by field as the compiled batch writes it (``sim.knorri.adapter.OBSERVATION_SLICES``)."""

    def __init__(self, n_seats: int) -> None:
        self.n_seats = n_seats
        self.tracker = KnorriTracker(n_seats)
        self.size = games.adapter("knorri").LEARNING.observation_size
        from sim.knorri.adapter import OBSERVATION_SLICES  # the tensor's named fields

        self.at = {name: part.start for name, part in OBSERVATION_SLICES.items()}

    def __call__(self, observation: Any) -> np.ndarray:
        """The tensor the compiled batch writes for this seat's decision."""
        self.tracker.update(observation)
        out = np.zeros(self.size, dtype=np.float32)
        if observation.done:
            return out
        n, seat, at = self.n_seats, observation.seat, self.at
        phase = self.tracker.phase
        order = [(seat + k) % n for k in range(n)]  # seats counted from the acting one
        held = card_flags([self.tracker.holdings[other] for other in order])
        out[at["own_hand"]:at["own_hand"] + 52] = held[0]
        out[at["other_hands"]:at["other_hands"] + (n - 1) * 52] = held[1:].ravel()
        counts = held.sum(axis=1)
        out[at["card_counts"]:at["card_counts"] + n] = counts
        if phase == 2:
            out[at["out"]:at["out"] + n] = counts == 0
        out[at["present"]:at["present"] + n] = 1.0
        out[at["scores"]:at["scores"] + n] = [observation.scores[other] for other in order]
        holding = int((counts > 0).sum())
        out[at["phase"] + phase - 1] = 1.0
        if phase == 1:
            out[[at["table"] + card for card in observation.table]] = 1.0
            if observation.turned is not None:
                out[at["turned"] + observation.turned] = 1.0
            out[at["stock_left"]] = observation.stock_left
            out[at["plays_needed"]] = n
            return out
        flat = [card for play in observation.trick for card in play]
        run = len(observation.trick[0]) if observation.trick and len(observation.trick[0]) > 1 else 0
        out[[at["trick_cards"] + card for card in flat]] = 1.0
        out[at["trick_order"]:at["trick_order"] + len(flat)] = [card + 1 for card in flat]
        if flat:
            out[at["top_card"] + flat[-1]] = 1.0
            out[at["bottom_card"] + flat[0]] = 1.0
            out[at["plays_needed"]] = observation.plays_needed
        else:
            out[at["plays_needed"]] = holding
        out[at["opening"]] = float(observation.opening)
        out[at["plays_in_trick"]] = len(flat) - run + (1 if run > 0 else 0)
        out[at["run_cards_in_trick"]] = run
        out[at["phase2_actions"]] = observation.phase2_actions
        return out
