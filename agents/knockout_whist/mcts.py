"""Knockout Whist's ``mcts``: information-set Monte Carlo tree search from what the seat has seen.

At each decision with a choice the seat's ``KnockoutWhistTracker`` says what every other seat cannot hold;
``decision.start_search`` lays out the hidden cards consistent with that and roots the search at what the seat
sees, and ``search.search`` runs single-observer ISMCTS in compiled code, each iteration on its own draw of the
hidden cards (``sampler.draw_deal``); the root's most visited action is played (ties: the lower id). Both steps
are the ones the compiled lineup runs. It reads only the seat's observation, never the engine.

Parameters (spec ``mcts:iters=1000,c=0.7,rollout=greedy``): ``iters``, ``time``, ``c``, ``rollout``, ``horizon``
(``hand``: a playout stops at the hand's end, valued by ``hand_values``; or ``game``) and ``seed``. Without
``time``, whole games also play inside compiled code (``decision.mcts_choice``) with this agent's decisions. The
parameters, values and seeding in full are in docs/internals.md, ``agents.knockout_whist.mcts``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import register
from agents.knockout_whist.compiled_tracker import row_of
from agents.knockout_whist.decision import start_search
from agents.knockout_whist.hand_values import hand_values
from agents.knockout_whist.search import GAME_END, HAND_END, Tree, search
from agents.knockout_whist.tracker import KnockoutWhistTracker
from agents.sampled_search import SampledSearchAgent
from sim.knockout_whist.compiled import POLICY_IDS, seen_rows
from sim.knockout_whist.encoding import Options

GAME = "knockout-whist"
HORIZONS = {"hand": HAND_END, "game": GAME_END}  # a spec's horizon -> where the compiled playouts stop


class MCTSAgent(SampledSearchAgent):
    """SO-ISMCTS over sampled deals of the hidden cards (see the module docstring)."""

    # Its compiled set-up and search (with the sampler, hand values and engine kernels they call), and the CPU
    # seconds compiling them takes on first use (as measured in docs/speed.md).
    COMPILED_CODE: dict[str, float] = {"agents.knockout_whist.decision": 19.0}

    DEFAULTS = {"c": 0.7, "rollout": "greedy", "horizon": "hand"}
    ROLLOUTS = POLICY_IDS
    HORIZONS = HORIZONS  # the module's table
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
        """Set up the search from the seat's tracker and view (``decision.start_search``, the lineup's own set-up);
        the call running n iterations of the compiled search."""
        cards, ints, _, _ = seen_rows(observation)
        work = self._tree.work(self._search_rng)
        tables = start_search(row_of(self.tracker), cards, ints, self.seat, work)
        settings = self.search_settings(hand_values(observation.n_seats, Options(**observation.options).flags()))

        def run(iterations: int) -> None:
            search(work.root, tables, settings.running(iterations), work.tree, work.scratch, work.search_rng)

        return run


register("mcts", game=GAME)(MCTSAgent)
