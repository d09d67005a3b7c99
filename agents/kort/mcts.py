"""Kort's ``mcts``: information-set Monte Carlo tree search from what the seat has seen, playing for its team.

At each decision with a choice the seat's ``KortTracker`` says what every other seat cannot hold,
``sampler.HandSampler`` draws the hidden hands among the deals consistent with that, and ``search.search`` runs
single-observer ISMCTS in compiled code. Partners share one value, their team's match result; the root's most
visited action is played (ties: the lower id). It reads only the seat's observation, never the engine.

Parameters (spec ``mcts:iters=1000,c=0.25,rollout=random``): ``iters``, ``time``, ``c``, ``rollout``, ``horizon``
(``round``, valued by ``values.match_win_chance``, or ``match``) and ``seed``. How the defaults were chosen is in
docs/kort.md, "Kort's agents and the ladder of teams"; the design in full in docs/internals.md,
``agents.kort.mcts``. On the runner's compiled path (``agents.kort.lineup``) the same decisions are made inside
numba; a ``time`` budget keeps the reference path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import register
from agents.kort.playout import view_of
from agents.kort.sampler import HandSampler, HiddenHands
from agents.kort.search import MATCH_END, ROUND_END, Tree, search
from agents.kort.tracker import KortTracker
from agents.kort.values import match_win_chance
from agents.sampled_search import SampledSearchAgent
from agents.search_tree import SearchSettings
from sim.kort.compiled import POLICY_IDS, position_rows

GAME = "kort"


class MCTSAgent(SampledSearchAgent):
    """SO-ISMCTS over sampled hidden hands with team values (see the module docstring)."""

    # Its compiled search (with the sampler, playout policies and engine kernels it calls), and the CPU seconds
    # compiling it takes on first use (as measured in docs/speed.md).
    COMPILED_CODE: dict[str, float] = {"agents.kort.search": 27.0}

    DEFAULTS = {"c": 0.25, "rollout": "random", "horizon": "round"}
    ROLLOUTS = POLICY_IDS
    HORIZONS = {"round": ROUND_END, "match": MATCH_END}  # a spec's horizon -> where the compiled playouts stop
    TREE = Tree

    def spec_name(self) -> str:
        """``mcts:iters=…,c=…,rollout=…,horizon=…``, then ``,time=…`` under a time budget."""
        return (f"mcts:iters={self.iters},c={self.c},rollout={self.rollout},horizon={self.horizon}"
                + (f",time={self.time_budget}" if self.time_budget else ""))

    def new_tracker(self, seat: int, n_seats: int) -> KortTracker:
        """A fresh tracker for a match at ``seat`` (always four seats)."""
        return KortTracker(seat)

    def prepare(self, observation: Any) -> Callable[[int], None]:
        """Sample the hidden hands and the position; the call running n iterations of the compiled search."""
        deal = HandSampler(HiddenHands.from_tracker(self.tracker, observation))
        hands, undealt = deal.sample(self._search_rng)  # stand-ins: every iteration deals its own
        root = position_rows(observation, hands, undealt, deal_seed=int(self._search_rng[0]))
        root_view = view_of(observation)
        settings = SearchSettings(observation.seat, self.iters, self.c, self._policy, self.HORIZONS[self.horizon],
                                  match_win_chance(observation.options["target_wins"]))
        tree = self._tree
        tree.reset()

        def run(iterations: int) -> None:
            search(root, deal.tables, root_view, settings.running(iterations), tree.rows, tree.scratch,
                   self._search_rng)

        return run


register("mcts", game=GAME)(MCTSAgent)
