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
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import register
from agents.knockout_whist.hand_values import hand_values
from agents.knockout_whist.sampler import DealSampler, HiddenCards
from agents.knockout_whist.search import GAME_END, HAND_END, Tree, search
from agents.knockout_whist.tracker import KnockoutWhistTracker
from sim.knockout_whist.compiled import POLICY_IDS, position_rows
from sim.knockout_whist.encoding import Options
from sim.rng import SplitMix64, derive_seed

GAME = "knockout-whist"
DEFAULT_ITERS = 1000
DEFAULT_C = 0.7
DEFAULT_ROLLOUT = "greedy"
HORIZONS = {"hand": HAND_END, "game": GAME_END}
DEFAULT_HORIZON = "hand"
CHUNK = 64  # iterations per compiled call under a time budget: the clock is read between calls
TIMED_CAPACITY = 1 << 18  # tree nodes under a time budget (a full tree plays out from its leaves)


class MCTSAgent:
    """SO-ISMCTS over sampled deals of the hidden cards (see the module docstring)."""

    PARAMETERS: dict[str, type] = {"iters": int, "time": float, "c": float, "rollout": str, "horizon": str,
                                   "seed": int}

    def __init__(self, seed: int = 0, iters: int = DEFAULT_ITERS, time: float = 0.0, c: float = DEFAULT_C,
                 rollout: str = DEFAULT_ROLLOUT, horizon: str = DEFAULT_HORIZON, spec_seed: int = 0) -> None:
        if iters < 1:
            raise ValueError(f"iters={iters}: give at least 1 iteration per decision")
        if time < 0:
            raise ValueError(f"time={time}: give seconds per decision, 0 to use iters")
        if c < 0:
            raise ValueError(f"c={c}: the exploration constant is 0 or more")
        if rollout not in POLICY_IDS:
            raise ValueError(f"rollout={rollout!r} is unknown: use {' or '.join(POLICY_IDS)}")
        if horizon not in HORIZONS:
            raise ValueError(f"horizon={horizon!r} is unknown: use {' or '.join(HORIZONS)}")
        self.name = (f"mcts:iters={iters},c={c},rollout={rollout}" + (f",time={time}" if time else "")
                     + (f",horizon={horizon}" if horizon != DEFAULT_HORIZON else ""))
        self.iters, self.time_budget, self.c, self.rollout, self.horizon = iters, time, c, rollout, horizon
        self._policy, self._horizon = POLICY_IDS[rollout], HORIZONS[horizon]
        self._spec_seed = spec_seed
        self.seat = 0
        self.tracker = KnockoutWhistTracker(2, 0)
        self._tree = Tree(1 + (iters if time <= 0 else TIMED_CAPACITY))
        self._search_rng = np.zeros(1, dtype=np.uint64)
        self._stream = SplitMix64(derive_seed(seed, spec_seed))

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new game at ``seat``: a fresh tracker and, given a seed, fresh random streams."""
        self.seat = seat
        self.tracker = KnockoutWhistTracker(n_seats, seat)
        if seed is not None:
            self._stream = SplitMix64(derive_seed(seed, self._spec_seed))

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The root's most visited action after the search (the only one when there is no choice)."""
        self.tracker.update(observation)
        if len(legal) == 1:
            return legal[0]
        children = self.search(observation)
        return max(children, key=lambda child: (child[1], -child[0]))[0]

    def search(self, observation: Any) -> list[tuple[int, float, float]]:
        """Search the decision ``observation`` shows; the root's children as (action, visits, mean value)."""
        self.tracker.update(observation)
        self._search_rng[0] = self._stream.next()
        deal = DealSampler(HiddenCards.from_tracker(self.tracker, observation))
        hands, stock = deal.sample(self._search_rng)  # stand-ins: every iteration deals its own
        root = position_rows(observation, hands, stock)
        table = hand_values(observation.n_seats, Options(**observation.options).flags())
        tree = self._tree
        tree.reset()

        def run(iterations: int) -> None:
            search(root, deal.arrays, self.seat, iterations, self.c, self._policy, self._horizon, table,
                   self._search_rng, *tree.scratch())

        if self.time_budget <= 0:
            run(self.iters)
        else:
            deadline = time.perf_counter() + self.time_budget
            run(CHUNK)
            while time.perf_counter() < deadline and tree.size[0] < tree.capacity:
                run(CHUNK)
        return tree.root_children()


register("mcts", game=GAME)(MCTSAgent)
