"""``loginf``: log inference. It works out every seat's hand from the public log and plays on that.

From phase 2 on every hand is known exactly (``KnorriTracker``), so for each legal action ``loginf`` plays the
known position out to the end with every seat following ``greedy`` (under the table's cut-off options) and takes
the action that leaves it the best score (ties go to greedy's choice). In phase 1 the stock order is unknown,
and it takes what greedy takes. Why a look-ahead rather than a fixed rule is in docs/internals.md,
``agents.knorri.loginf``.

The look-ahead is one compiled call a decision (``agents.knorri.playout``'s ``best_action_at``: the Python loop
``best_by_playouts`` states it), and a lineup of built-in specs through ``knorri-sim run`` plays the same
compiled look-ahead (``agents.knorri.search.lookahead_choice``) from the same streams, so the rows are this agent's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.knorri.greedy import greedy_action
from agents.knorri.playout import LOOKAHEAD_CODE, PLAYOUT_POLICIES, CompiledPlayout
from agents.knorri.tracker import STEPPED_CODE, KnorriTracker

GAME = "knorri"  # the game this agent is registered for


class LogInfAgent:
    """Greedy plus a one-decision look-ahead over the hands the log reveals."""

    PARAMETERS: dict[str, type] = {"rollout": str}
    COMPILED_CODE: dict[str, float] = {**LOOKAHEAD_CODE, **STEPPED_CODE,
                                       "agents.knorri.search:lookahead_from_root": 6.0}

    def __init__(self, seed: int = 0, rollout: str = "greedy") -> None:
        if rollout not in PLAYOUT_POLICIES:
            raise ValueError(f"rollout={rollout!r} is unknown: use {' or '.join(PLAYOUT_POLICIES)}")
        self.name = "loginf" if rollout == "greedy" else f"loginf:rollout={rollout}"
        self.rollout = rollout
        self.seat = 0
        self.tracker = KnorriTracker(3)
        self._playout = CompiledPlayout(rollout, seed)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Start a new hand: a fresh tracker; reseed the playouts if a seed is given."""
        self.seat = seat
        self.tracker = KnorriTracker(n_seats)
        if seed is not None:
            self._playout = CompiledPlayout(self.rollout, seed)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The legal action whose greedy continuation scores best for this seat."""
        self.tracker.update(observation)
        own = self.tracker.holdings[self.seat]
        default = greedy_action(observation.phase, own, observation.top_card, observation.opening, legal)
        if observation.phase == 1 or len(legal) == 1:
            return default
        return self._playout.best_action_at(self.tracker.position_rows())


register("loginf", game=GAME)(LogInfAgent)
