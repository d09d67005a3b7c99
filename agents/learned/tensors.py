"""A seat's observation tensor from its observation, for the learned agent's one-decision ``act``.

The batch route hands ``act_batch`` the compiled batch's tensor rows; on the reference route ``act`` gets the
seat's observation (a frozen dataclass) and must build the very same numbers, or the two routes would choose
differently. Knockout Whist and Kort write that tensor from an observation themselves (``encode_observation``);
Knorri's needs the other seats' piles and hands, which its public log shows card by card, so it is read with
Knorri's tracker. Only what the seat may know goes in: the observation and its log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.knorri.tracker import KnorriTracker
from sim import games
from sim.cards import card_list

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


class KnorriEncoder:
    """Knorri's tensor from an observation: phase 1 from the observation and the piles the log shows, phase 2
    from the exact position the log gives (``KnorriTracker.position``) through the game's own tensor writer."""

    def __init__(self, n_seats: int) -> None:
        self.n_seats = n_seats
        self.tracker = KnorriTracker(n_seats)
        learning = games.adapter("knorri").LEARNING
        self.acting_tensor = learning.acting_tensor
        self.size = learning.observation_size
        from sim.knorri.adapter import OBSERVATION_SLICES  # the tensor's named fields
        self.slices = OBSERVATION_SLICES

    def __call__(self, observation: Any) -> np.ndarray:
        """The tensor the compiled batch writes for this seat's decision."""
        self.tracker.update(observation)
        out = np.zeros(self.size, dtype=np.float32)
        if observation.done:
            return out
        if self.tracker.phase == 2:
            return np.asarray(self.acting_tensor(self.tracker.position()), dtype=np.float32)
        n, seat, at = self.n_seats, observation.seat, self.slices
        for k in range(n):
            other = (seat + k) % n
            pile = card_list(self.tracker.holdings[other])
            start = at["own_hand"].start if k == 0 else at["other_hands"].start + (k - 1) * 52
            out[[start + card for card in pile]] = 1.0
            out[at["card_counts"].start + k] = len(pile)
            out[at["present"].start + k] = 1.0
            out[at["scores"].start + k] = observation.scores[other]
        out[at["phase"].start] = 1.0
        out[[at["table"].start + card for card in observation.table]] = 1.0
        if observation.turned is not None:
            out[at["turned"].start + observation.turned] = 1.0
        out[at["stock_left"].start] = observation.stock_left
        out[at["plays_needed"].start] = n
        return out
