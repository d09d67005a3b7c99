"""What the search agents share: checking their spec parameters, and the shell of the sampled-deal ISMCTS agents.

Knockout Whist's and Kort's ``mcts`` differ only in how they set up a decision's search (each game's compiled
``decision.start_search``, the one its compiled lineup calls) and which compiled search they run; everything
around that (the parameters, and the search settings and lineup record read from them, one tracker per seat,
random streams reseeded each game from the game's seed for the seat mixed with the spec's ``seed``, playing the
most visited root action, spending a time budget in chunks) lives here once. Knorri's ``mcts`` checks its
parameters the same way.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from agents.lineup import CompiledAgent
from agents.search_tree import RootChild, SearchSettings
from sim.rng import MASK64, SplitMix64, derive_seed

CHUNK = 64  # iterations per compiled call under a time budget: the clock is read between calls
TIMED_CAPACITY = 1 << 18  # tree nodes under a time budget (a full tree plays out from its leaves)


def check_budget(iters: int, time: float, c: float, unit: str = "iteration") -> None:
    """Refuse fewer than one ``unit`` per decision, a time budget or exploration constant that is negative or not
    finite (``time=inf`` would search for ever, ``c=nan`` would rank every move alike)."""
    if iters < 1:
        raise ValueError(f"iters={iters}: give at least 1 {unit} per decision")
    if not math.isfinite(time) or time < 0:
        raise ValueError(f"time={time}: give a finite number of seconds per decision, 0 to use iters")
    if not math.isfinite(c) or c < 0:
        raise ValueError(f"c={c}: the exploration constant is a finite number, 0 or more")


def check_choice(name: str, value: str, choices: Collection[str], joiner: str = " or ") -> None:
    """Refuse a word parameter (``rollout``, ``horizon``...) that is not one of ``choices``, naming them."""
    if value not in choices:
        raise ValueError(f"{name}={value!r} is unknown: use {joiner.join(choices)}")


class SampledSearchAgent:
    """The shell of an ISMCTS agent over sampled deals; a game's agent says how to set up one decision's search.

    A subclass names its ``DEFAULTS`` (``c``, ``rollout`` and ``horizon``; ``iters`` is 1,000 unless it says
    otherwise), the playout policies it may run (``ROLLOUTS``: name -> compiled policy id), its ``HORIZONS``
    and its ``TREE`` (built with a node capacity), and gives ``spec_name()``, ``new_tracker(seat, n_seats)`` and
    ``prepare(observation)``: the latter sets the search up in ``self._tree`` from the tracker and what the seat
    sees (the game's compiled set-up: the hidden cards, a stand-in draw, the root, an empty tree) and returns the
    call that runs that many iterations of the compiled search. ``self._search_rng`` is drawn afresh from the
    agent's stream before each search.
    """

    PARAMETERS: dict[str, type] = {"iters": int, "time": float, "c": float, "rollout": str, "horizon": str,
                                   "seed": int}
    DEFAULTS: ClassVar[dict[str, Any]]
    ROLLOUTS: ClassVar[Mapping[str, int]]
    HORIZONS: ClassVar[Collection[str]]
    TREE: ClassVar[Callable[[int], Any]]

    def __init__(self, seed: int = 0, iters: int | None = None, time: float = 0.0, c: float | None = None,
                 rollout: str | None = None, horizon: str | None = None, spec_seed: int = 0) -> None:
        iters = self.DEFAULTS.get("iters", 1000) if iters is None else iters
        c = self.DEFAULTS["c"] if c is None else c
        rollout = self.DEFAULTS["rollout"] if rollout is None else rollout
        horizon = self.DEFAULTS["horizon"] if horizon is None else horizon
        check_budget(iters, time, c)
        check_choice("rollout", rollout, self.ROLLOUTS)
        check_choice("horizon", horizon, self.HORIZONS)
        self.iters, self.time_budget, self.c, self.rollout, self.horizon = iters, time, c, rollout, horizon
        self.name = self.spec_name()
        self._policy = self.ROLLOUTS[rollout]
        self._spec_seed = spec_seed
        self.seat = 0
        self.tracker = self.new_tracker(0, 2)
        self._tree = self.TREE(1 + (iters if time <= 0 else TIMED_CAPACITY))
        self._search_rng = np.zeros(1, dtype=np.uint64)
        self._stream = SplitMix64(derive_seed(seed, spec_seed))

    def spec_name(self) -> str:
        """The agent's name: its spec with the parameters it plays (the runs' ``agent`` column)."""
        raise NotImplementedError

    def search_settings(self, values: np.ndarray) -> SearchSettings:
        """One search of this seat as the spec sets it, valuing early stops by the game's ``values`` table: what the
        agent searches with, and what a lineup seat builds from ``compiled_record`` at each decision."""
        return SearchSettings(self.seat, self.iters, self.c, self._policy, self.HORIZONS[self.horizon], values)

    def compiled_record(self, kind: int) -> CompiledAgent:
        """This agent as a compiled lineup seat of ``kind``: the parameters of ``search_settings`` that the spec
        fixes, and its seed, read from the agent itself so that the lineup's record is never a second copy."""
        return CompiledAgent(kind, self.iters, self.c, self._policy, self.HORIZONS[self.horizon],
                             self._spec_seed & MASK64)

    def new_tracker(self, seat: int, n_seats: int) -> Any:
        """A fresh tracker for a game at ``seat``."""
        raise NotImplementedError

    def prepare(self, observation: Any) -> Callable[[int], None]:
        """Set up the search of the decision ``observation`` shows; return the call running n iterations."""
        raise NotImplementedError

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new game at ``seat``: a fresh tracker and, given a seed, fresh random streams."""
        self.seat = seat
        self.tracker = self.new_tracker(seat, n_seats)
        if seed is not None:
            self._stream = SplitMix64(derive_seed(seed, self._spec_seed))

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The root's most visited action after the search (the only one when there is no choice)."""
        self.tracker.update(observation)
        if len(legal) == 1:
            return legal[0]
        self.search(observation)
        return self._tree.most_visited()

    def search(self, observation: Any) -> list[RootChild]:
        """Search the decision ``observation`` shows; the root's children (action, visits, mean value)."""
        self.tracker.update(observation)
        self._search_rng[0] = self._stream.next()
        run = self.prepare(observation)
        tree = self._tree
        if self.time_budget <= 0:
            run(self.iters)
        else:
            deadline = time.perf_counter() + self.time_budget
            run(CHUNK)
            while time.perf_counter() < deadline and not tree.is_full():
                run(CHUNK)
        return tree.root_children()
