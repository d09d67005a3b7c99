"""The biggest parts of Knorri's lineup kernels, compiled on their own so that a first run can compile them beside
the kernel that calls them (``KnorriLineups.compile_parts``).

Each part compiles one search kernel for the argument types the lineup kernels pass it, built here from the same
constructors (``sim.compile_cache.compile_ahead``); the values do not matter, as nothing is run. The parts are
module functions, so a worker process can be handed them by name. ``tests/test_compile_parts.py`` checks
that each compiles the very signature the lineup uses: one that differed would compile twice and help nobody.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.knorri.search import Scratch, TreeSearch, lookahead_choice, sampled_stock_iterations, uct_iterations
from sim.compile_cache import compile_ahead
from sim.knorri.compiled import ENGINE_PARTS, PositionRows, position_rows
from sim.knorri.reference import KnorriHand

SEATS = 4  # any seat count: the kernels take it from the position, not from their types


def _root() -> PositionRows:
    return position_rows(KnorriHand.from_seed(SEATS, 0))


def _ids() -> np.ndarray:
    return np.zeros(SEATS, dtype=np.int64)


def _stream() -> np.ndarray:
    return np.zeros(1, dtype=np.uint64)


def compile_lookahead() -> None:
    """``lookahead_choice``: ``loginf``'s decision, and the ``loginf`` opponent model's inside a search."""
    trial, aside = Scratch(), Scratch()
    compile_ahead(lookahead_choice, (trial.position, trial.legal, 0, 0, aside.workspace(), 0, _stream(), 0,
                                     _stream(), np.zeros(SEATS + 1)))


def compile_tree_search() -> None:
    """``uct_iterations``: the phase-2 tree search of ``mcts``."""
    search = TreeSearch(8, SEATS)
    compile_ahead(uct_iterations, (_root(), search.scratch.workspace(), search.tree, 0, 0.0, _ids(), _stream(),
                                   _ids(), search.lookahead.workspace(), search.known, 0, 0))


def compile_stock_search() -> None:
    """``sampled_stock_iterations``: the phase-1 search of ``mcts`` over orders of the unseen stock."""
    compile_ahead(sampled_stock_iterations, (_root(), Scratch().workspace(), _ids(), 0, 0, _ids(), _stream(),
                                             np.zeros(SEATS)))


PLAIN_PARTS: tuple[Callable[[], None], ...] = (*ENGINE_PARTS, compile_lookahead)
"""The parts of the lineup kernel without ``mcts``: the engine's kernels a search calls (the step, in two halves
compiled at once, and the greedy playout), then its ``loginf`` seats' look-ahead, which calls them."""

SEARCHING_PARTS: tuple[Callable[[], None], ...] = (*ENGINE_PARTS, compile_lookahead, compile_tree_search,
                                                   compile_stock_search)
"""The parts of the lineup kernel with ``mcts``: the workers take them in this order while the run compiles the
rest of the kernel, which reaches them after the engine's own kernels. The engine's come first, as everything after
them calls them; then the biggest search first."""
