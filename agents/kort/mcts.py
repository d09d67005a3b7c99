"""Kort's ``mcts``: information-set Monte Carlo tree search from what the seat has seen, playing for its team.

At each decision with a choice (trumps, a lead or a redeal, a declaration, a card to
follow with, a Bavan vote) the seat's ``KortTracker`` says what every other seat cannot
hold; ``sampler.HandSampler`` then draws the hidden hands uniformly among the deals
consistent with that, and ``search.search`` runs single-observer ISMCTS in compiled
code on the engine's compiled step API. Partners share one value, their team's match
result, and each team maximises its own; the root's most visited action is played
(ties: the lower id). It reads only the seat's observation: the position it searches
is rebuilt from the observation and the sampled cards, never from the engine. Where the
observation hides the partner's first Bavan vote, the search takes it as yes: the only
vote under which the seat's own decides anything.

Parameters (spec ``mcts:iters=1000,c=0.25,rollout=random``): ``iters`` iterations per
decision; ``time`` seconds per decision instead (0 = use ``iters``); ``c`` the
exploration constant; ``rollout`` the playout policy, ``greedy`` or ``random``;
``horizon`` where playouts stop, ``round`` (valued by the team's chance to win the
match from the score it leaves, ``values.match_win_chance``) or ``match``; ``seed``
varies the search's random streams. At each match the streams are reseeded from the
match's seed for the seat mixed with that ``seed`` (0 unless given), so a match with
its agents is a function of its seed and the specs.

The defaults were measured as team results over duplicate matches to 7 (200 unless
said, 95% intervals): ``c`` 0.25 beat 0.7 head to head by +0.16 +- 0.14 (the values are
match-win chances, which one decision moves by little); random playouts were as strong
as greedy's at 400 iterations against greedy (+0.36 +- 0.14 and +0.37 +- 0.13) and, at
about equal time (600 iterations against 400), beat them by +0.16 +- 0.13; 1,600
iterations did better than 400 against ``tracker`` (+0.18 +- 0.14 against -0.03 +- 0.15).
Whole-match playouts (``horizon=match``) lost to greedy by -0.48 +- 0.19 (100 matches):
one match result per playout is too noisy to tell one card from another.
On the runner's compiled path (``agents.kort.lineup``) the same decisions are made inside
numba: the seat's tracker, its stream, the sampled deals and the search are the same, the
root rebuilt by ``sim.kort.compiled.seat_position`` from what the seat sees. A ``time``
budget keeps the reference path (a clock makes decisions that no seed repeats).
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
    # compiling it takes on first use: a cold `run --game kort --agents 'mcts:iters=10;random;random;random'
    # --matches 4 --workers 1` took 28.7 s of CPU, 1.9 s once cached.
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
