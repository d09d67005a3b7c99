"""One Kort ``mcts`` decision's set-up, compiled once: what the Python agent and the compiled lineup both call.

A decision starts from the seat's tracker rows (``compiled_tracker``) and the match as the seat sees it. The cards
hidden from it are laid out from those (``compiled_tracker.hidden_hands``), one stand-in deal is drawn, the root is
the seat's view completed by that deal (``seat_position``) with the view its playout policy tracks
(``playout.table_view``), and the tree is emptied: ``start_search``. Then ``search.search`` runs the iterations.
The lineup's ``mcts_choice`` does both in one call; the Python agent calls ``start_search`` once and the search
in chunks, so that a time budget can read the clock between them (docs/internals.md, ``agents.kort.decision``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.deal_sampling import BINOMIAL
from agents.kort import sampler
from agents.kort.compiled_tracker import I_SEAT, hidden_hands, rows_of
from agents.kort.playout import table_view
from agents.kort.search import Tree, search
from agents.kort.tracker import KortTracker
from agents.search_tree import STREAM, SearchWork, clear_tree, most_visited_action
from sim import config
from sim.kort.compiled import next_u64, seat_position, seen_rows


def search_work(iters: int) -> SearchWork:
    """The working arrays of ``mcts_choice`` for up to ``iters`` iterations (a tree of ``1 + iters`` nodes, which
    never fills)."""
    return Tree(1 + max(iters, 1)).work(np.zeros(1, dtype=np.uint64))


@njit(**config.KERNEL)
def mcts_choice(cards, ints, settings, known, counts, streams, view, work):
    """``MCTSAgent.act`` for ``settings.seat`` at a decision with a choice: its most visited root action (ties: lower
    id).

    ``known, counts`` are its tracker, ``streams[seat]`` its stream, and ``view`` receives its
    ``playout.table_view``; the match ``cards, ints`` is read only through what the seat sees. ``work`` holds
    the search's arrays (``search_work``).
    """
    work.search_rng[STREAM] = next_u64(streams, settings.seat)
    tables = start_search(known, counts, cards, ints, view, work)
    search(work.root, tables, view, settings, work.tree, work.scratch, work.search_rng)
    return most_visited_action(work.tree)


@njit(**config.KERNEL)
def start_search(known, counts, cards, ints, view, work):
    """Set up the tracking seat's search (module docstring) in ``work`` and its root ``view``, drawing from
    ``work.search_rng``; returns the hidden cards' ``sampler.DealTables``, which every iteration draws its own deal
    from.

    ``cards, ints`` need only be right in what the seat sees (its own cards, the public rows, the other seats'
    card counts): nothing else is read.
    """
    seat, scratch = counts[I_SEAT], work.scratch
    tables = hidden_hands(known, counts, cards, ints, BINOMIAL)
    scratch.hands.fill(0)
    scratch.rest.fill(0)
    sampler.draw_hands(tables, work.search_rng, STREAM, scratch.hands, scratch.rest)
    seat_position(cards, ints, seat, scratch.hands, scratch.rest, work.search_rng[STREAM], work.root)
    table_view(cards, ints, seat, view)
    clear_tree(work.tree)
    return tables


def known_hidden_hands(tracker: KortTracker, observation: Any) -> sampler.HiddenHands:
    """What ``observation``'s seat knows of the cards it cannot see, read by ``hidden_hands`` (as its search reads
    it) from ``tracker``, already updated with ``observation``; stated readably for a test or a look."""
    cards, ints, _, _ = seen_rows(observation)
    known, counts = rows_of(tracker)
    return sampler.HiddenHands.from_tables(hidden_hands(known, counts, cards, ints, BINOMIAL), observation.seat)
