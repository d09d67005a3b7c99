"""One Knockout Whist ``mcts`` decision's set-up, compiled once: what the Python agent and the compiled lineup call.

A decision starts from the seat's tracker row (``compiled_tracker``) and the position as the seat sees it. The
hidden cards are laid out from those (``hidden_cards``: the pool the seat has not seen, each other seat's count,
the suits it showed it lacks, the rainbow check), one stand-in deal is drawn from them, the root is the seat's
view completed by that deal (``seat_view``), and the tree is emptied: ``start_search``. Then ``search.search`` runs
the iterations. The lineup's ``mcts_choice`` does both in one call; the Python agent calls ``start_search`` once
and the search in chunks, so that a time budget can read the clock between them. Either way the hidden cards, the
draw and the root are this module's, written once (docs/internals.md, ``agents.knockout_whist.decision``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.deal_sampling import BINOMIAL
from agents.knockout_whist import sampler
from agents.knockout_whist.compiled_tracker import T_SHOWN, catch_up, row_of, seen_by, void_suits
from agents.knockout_whist.search import new_scratch, search
from agents.knockout_whist.tracker import KnockoutWhistTracker
from agents.search_tree import STREAM, SearchWork, clear_tree, most_visited_action, new_tree
from sim import config
from sim.knockout_whist.compiled import (
    card_count,
    exchanged,
    hand_number,
    new_position,
    next_u64,
    option_flags,
    popcount,
    seat_count,
    seat_status,
    seat_view,
    seen_rows,
)
from sim.knockout_whist.encoding import FLAG_OPTIONS, MAX_SEATS, RAINBOW_HAND, Status

FULL = np.uint64((1 << 52) - 1)
IN = int(Status.IN)
RAINBOW_ONLY = 1 << FLAG_OPTIONS.index("rainbow")
CARD_EXCHANGE = 1 << FLAG_OPTIONS.index("card_exchange")


@njit(**config.KERNEL)
def new_search_work(capacity):
    """One search's arrays (``SearchWork``): the root position, a tree of ``capacity`` nodes, the scratch its
    iterations step, and its stream."""
    return SearchWork(new_position(), new_tree(capacity), new_scratch(), np.zeros(1, dtype=np.uint64))


@njit(**config.KERNEL)
def mcts_choice(tracker, cards, ints, settings, streams, work):
    """``mcts``'s action for ``settings.seat`` (to move, with a choice), from its tracker row and what it sees.

    The search's seed is the next draw of ``streams[seat]``; then ``start_search``, ``settings.iterations``
    iterations, and the most visited root action (ties: the lower id).
    """
    work.search_rng[STREAM] = next_u64(streams, settings.seat)
    tables = start_search(tracker, cards, ints, settings.seat, work)
    search(work.root, tables, settings, work.tree, work.scratch, work.search_rng)
    return most_visited_action(work.tree)


@njit(**config.KERNEL)
def start_search(tracker, cards, ints, seat, work):
    """Set up ``seat``'s search (module docstring) in ``work``, drawing from ``work.search_rng``; returns the
    hidden cards' ``sampler.DealTables``, which every iteration draws its own deal from.

    ``cards, ints`` need only be right in what ``seat`` sees (its own cards, the public rows, the other seats'
    card counts): nothing else is read.
    """
    scratch = work.scratch
    catch_up(tracker, ints)
    tables = hidden_cards(tracker, cards, ints, seat)
    sampler.draw_deal(tables, work.search_rng, STREAM, scratch.hands, scratch.rest)
    seat_view(cards, ints, seat, scratch.hands, scratch.rest, work.root)
    clear_tree(work.tree)
    return tables


@njit(**config.KERNEL)
def hidden_cards(tracker, cards, ints, seat):
    """What ``seat`` knows of the cards it cannot see, as the ``sampler.DealTables`` a deal is drawn from.

    The pool is every card it has not seen (played this hand, turned, its own and its thrown-away); each other
    seat holds its public card count of them, outside the suits it failed to follow; the stock's cards still to
    draw are the pool past those hands and the others' thrown-away cards. In hand 4 with ``rainbow`` (and no
    exchange) each seat still in carries the cards it played this hand, for the rainbow check.
    """
    n = seat_count(ints)
    pool = FULL & ~seen_by(tracker, cards, seat)
    counts = np.zeros(n, dtype=np.int64)
    voids = np.zeros(n, dtype=np.int64)
    thrown_by_others = 0
    for s in range(n):
        if s != seat:
            counts[s] = card_count(cards, s)
            voids[s] = void_suits(tracker, s)
            thrown_by_others += max(exchanged(ints, s), 0)
    checked = 0
    flags = option_flags(ints)
    if flags & RAINBOW_ONLY and not flags & CARD_EXCHANGE and hand_number(ints) == RAINBOW_HAND:
        for s in range(n):
            if s != seat and seat_status(ints, s) == IN:
                checked |= 1 << s
    stock_left = popcount(pool) - counts.sum() - thrown_by_others
    return sampler.deal_tables(pool, counts, voids, np.int64(stock_left), tracker[T_SHOWN:T_SHOWN + MAX_SEATS].copy(),
                               np.int64(checked), BINOMIAL)


def known_hidden_cards(tracker: KnockoutWhistTracker, observation: Any) -> sampler.HiddenCards:
    """What ``observation``'s seat knows of the cards it cannot see, read by ``hidden_cards`` (as its search reads
    it) from ``tracker``, already updated with ``observation``; stated readably for a test or a look."""
    cards, ints, _, _ = seen_rows(observation)
    tables = hidden_cards(row_of(tracker), cards, ints, observation.seat)
    return sampler.HiddenCards.from_tables(tables, observation.seat, observation.n_seats)
