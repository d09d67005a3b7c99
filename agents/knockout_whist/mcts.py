"""Knockout Whist's ``mcts``: information-set Monte Carlo tree search from what the seat has seen.

At each decision with a choice (trumps, a card to throw away or the end of an exchange,
a card to play, a dog's knock) the seat's ``KnockoutWhistTracker`` says what every other
seat cannot hold; ``sampler.DealSampler`` draws the hidden cards uniformly among the
deals consistent with that, and ``search.search`` runs single-observer ISMCTS (SO-ISMCTS:
one tree over action sequences, a fresh determinization every iteration, UCB1 over
availability counts, max-n backups of each seat's own value) in compiled code. The
root's most visited action is played (ties: the lower id). It reads only the seat's
observation: the position it searches is rebuilt from the observation and the sampled
cards, never taken from the engine.

Value: each seat's expected normalised score (1 for the winner, 0 for the others, the
rulings' n - 1 and -1 rescaled). By default (``horizon=hand``) a playout stops at the end
of the hand being played and a seat still in is worth its chance to win from there,
measured once in greedy self-play (``hand_values``): whether it went out, became a dog or
won the trump choice is what a hand decides, and the later deals, fresh each hand, would
only add noise. ``horizon=game`` plays every playout to the game's end instead.

Parameters (spec ``mcts:iters=1000,c=0.7,rollout=greedy``): ``iters`` iterations per
decision; ``time`` seconds per decision instead (0 = use ``iters``); ``c`` the exploration
constant; ``rollout`` the playout policy, ``greedy`` or ``random``; ``horizon`` ``hand`` or
``game``; ``seed`` varies the search's random streams. At each game the streams are
reseeded from the seat's seed for the game mixed with that ``seed`` (0 unless given), so a
game with its agents is a function of its seed and the specs.

Without ``time``, whole games with ``mcts`` seats also play inside compiled code
(``lineup.mcts_choice``: the same stream, deal sampler and search, fed by a compiled
tracker), making exactly this agent's decisions; a time budget is not reproducible, so
``mcts:time=...`` plays only here.
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
    # it takes on first use: a cold `run --game knockout-whist --agents 'mcts:iters=10;random;random;random'
    # --hands 8 --workers 1` took 25.4 s of CPU, 1.7 s once cached.
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
