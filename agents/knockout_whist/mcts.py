"""Knockout Whist's ``mcts``: information-set Monte Carlo tree search from what the seat has seen.

At each decision with a choice the seat's ``KnockoutWhistTracker`` says what every other seat cannot hold,
``sampler.DealSampler`` draws the hidden cards among the deals consistent with that, and ``search.search`` runs
single-observer ISMCTS in compiled code; the root's most visited action is played (ties: the lower id). It reads
only the seat's observation, never the engine.

Parameters (spec ``mcts:iters=1000,c=0.7,rollout=greedy``): ``iters``, ``time``, ``c``, ``rollout``, ``horizon``
(``hand``: a playout stops at the hand's end, valued by ``hand_values``; or ``game``) and ``seed``. Without
``time``, whole games also play inside compiled code (``lineup.mcts_choice``) with this agent's decisions. The
parameters, values and seeding in full are in docs/internals.md, ``agents.knockout_whist.mcts``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import register
from agents.knockout_whist.hand_values import hand_values
from agents.knockout_whist.sampler import DealSampler, HiddenCards
from agents.knockout_whist.search import GAME_END, HAND_END, Tree, search
from agents.knockout_whist.tracker import KnockoutWhistTracker
from agents.sampled_search import SampledSearchAgent
from agents.search_tree import SearchSettings
from sim.knockout_whist.compiled import POLICY_IDS, position_rows
from sim.knockout_whist.encoding import Options

GAME = "knockout-whist"
HORIZONS = {"hand": HAND_END, "game": GAME_END}  # a spec's horizon -> where the compiled playouts stop


class MCTSAgent(SampledSearchAgent):
    """SO-ISMCTS over sampled deals of the hidden cards (see the module docstring)."""

    # Its compiled search (with the sampler, hand values and engine kernels it calls), and the CPU seconds compiling
    # it takes on first use (as measured in docs/speed.md).
    COMPILED_CODE: dict[str, float] = {"agents.knockout_whist.search": 24.0}

    DEFAULTS = {"c": 0.7, "rollout": "greedy", "horizon": "hand"}
    ROLLOUTS = POLICY_IDS
    HORIZONS = HORIZONS  # the module's table: the compiled lineup reads it too
    TREE = Tree

    def spec_name(self) -> str:
        """``mcts:iters=…,c=…,rollout=…``, then ``,time=…`` under a time budget and ``,horizon=…`` off the default."""
        return (f"mcts:iters={self.iters},c={self.c},rollout={self.rollout}"
                + (f",time={self.time_budget}" if self.time_budget else "")
                + (f",horizon={self.horizon}" if self.horizon != self.DEFAULTS["horizon"] else ""))

    def new_tracker(self, seat: int, n_seats: int) -> KnockoutWhistTracker:
        """A fresh tracker for a game of ``n_seats`` at ``seat``."""
        return KnockoutWhistTracker(n_seats, seat)

    def prepare(self, observation: Any) -> Callable[[int], None]:
        """Sample the hidden cards and the position; the call running n iterations of the compiled search."""
        deal = DealSampler(HiddenCards.from_tracker(self.tracker, observation))
        hands, stock = deal.sample(self._search_rng)  # stand-ins: every iteration deals its own
        root = position_rows(observation, hands, stock)
        settings = SearchSettings(self.seat, self.iters, self.c, self._policy, HORIZONS[self.horizon],
                                  hand_values(observation.n_seats, Options(**observation.options).flags()))
        tree = self._tree
        tree.reset()

        def run(iterations: int) -> None:
            search(root, deal.tables, settings.running(iterations), tree.rows, tree.scratch,
                   self._search_rng)

        return run


register("mcts", game=GAME)(MCTSAgent)
