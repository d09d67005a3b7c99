"""Kort's ``mcts``: information-set Monte Carlo tree search from what the seat has seen, playing for its team.

At each decision with a choice the seat's ``KortTracker`` says what every other seat cannot hold;
``decision.start_search`` lays out the hidden hands consistent with that and roots the search at what the seat
sees, and ``search.search`` runs single-observer ISMCTS in compiled code, each iteration on its own draw of the
hidden hands (``sampler.draw_hands``). Both steps are the ones the compiled lineup runs. Partners share one
value, their team's match result; the root's most visited action is played (ties: the lower id). It reads only
the seat's observation, never the engine.

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
from agents.kort.compiled_tracker import rows_of
from agents.kort.decision import start_search
from agents.kort.search import MATCH_END, ROUND_END, Tree, search
from agents.kort.tracker import KortTracker
from agents.kort.values import match_win_chance
from agents.sampled_search import SampledSearchAgent
from sim.kort.compiled import POLICY_IDS, seen_rows

GAME = "kort"


class MCTSAgent(SampledSearchAgent):
    """SO-ISMCTS over sampled hidden hands with team values (see the module docstring)."""

    # Its compiled set-up and search (with the sampler, playout policies and engine kernels they call), and the CPU
    # seconds compiling them takes on first use (as measured in docs/speed.md).
    COMPILED_CODE: dict[str, float] = {"agents.kort.decision": 22.0}

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
        """Set up the search from the seat's tracker and view (``decision.start_search``, the lineup's own set-up);
        the call running n iterations of the compiled search."""
        cards, ints, _, _ = seen_rows(observation)
        tree, (known, counts) = self._tree, rows_of(self.tracker)
        work = tree.work(self._search_rng)
        tables = start_search(known, counts, cards, ints, tree.root_view, work)
        settings = self.search_settings(match_win_chance(observation.options["target_wins"]))

        def run(iterations: int) -> None:
            search(work.root, tables, tree.root_view, settings.running(iterations), work.tree, work.scratch,
                   work.search_rng)

        return run


register("mcts", game=GAME)(MCTSAgent)
