"""One ``mcts`` decision, compiled once: what the Python agent and the compiled lineup both call.

A decision has two steps. First each other seat gets its model in the tree: the one the spec fixes, or the most
likely on the evidence the seat has gathered in the hand (``opponent_models.most_likely``). Then the search: in
phase 1 every capture choice is played out on the same sampled orders of the unseen cards and the best mean wins;
in phase 2 UCT grows a tree over the public position and the pick is the best line found or the most visited
child. The version's budgets and stops are ``agents.knorri.search_rules``; the searches themselves are
``agents.knorri.search``.

An ``mcts`` seat's parameters are one record, ``SearchParams``: the Python agent builds it from its spec, and the
lineup's seat carries that record as it is. ``decide`` is the whole decision for a budget of playouts; under a
time budget the agent runs the same stages (``start_timed``, ``search_more``, ``timed_pick``) in chunks and reads
the clock between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.knorri import search_rules
from agents.knorri.opponent_models import MODEL_COUNT, most_likely
from agents.knorri.search import UNEXPANDED, Tree, Workspace, root_pick, sampled_stock_iterations, uct_iterations
from sim import config
from sim.knorri.compiled import (
    GREEDY,
    RANDOM,
    Position,
    PositionRows,
    copy_position,
    legal_actions,
    phase_of,
    policy_action,
    stock_turned,
    to_move,
    unseen_cards,
)
from sim.knorri.encoding import NUM_ACTIONS, TABLE_SIZE

POSTERIOR = -1
"""``SearchParams.others`` for an ``mcts`` that learns each other seat's model during the hand."""


class SearchParams(NamedTuple):
    """An ``mcts`` seat's search, as the compiled decision reads it: the one declaration of its parameters.

    ``rollout`` is the playouts' policy id; ``iters``, ``line_iters`` and ``chance_iters`` the playouts of a
    search by kind (``search_rules.phase2_budget``; phase 1 shares ``iters`` out over its choices), a chance
    search's playouts stopping after ``horizon`` phase-2 actions; ``c`` the exploration constant. ``others`` is a
    fixed model id for every other seat, or ``POSTERIOR`` over the first ``n_candidates`` of ``candidates`` with
    their ``log_prior``, each choice scored with smoothing ``eps``. ``auto_pick`` lets the root's pick be the best
    line (``pick=auto``); ``version`` sets when a search may stop (``search_rules.settle_rule``).
    """

    rollout: int
    iters: int
    line_iters: int
    chance_iters: int
    horizon: int
    c: float
    others: int
    n_candidates: int
    candidates: np.ndarray  # int64[MODEL_COUNT]
    log_prior: np.ndarray  # float64[MODEL_COUNT]
    eps: float
    auto_pick: int
    version: int

    def largest_budget(self) -> int:
        """The most playouts one of its phase-2 searches may spend: what its tree is sized for."""
        return int(search_rules.largest_budget(self.iters, self.line_iters, self.chance_iters))


def search_params(*, rollout: int, iters: int, line_iters: int, chance_iters: int, horizon: int, c: float,
                  others: int, candidates: Sequence[int], log_prior: Sequence[float], eps: float, auto_pick: bool,
                  version: int) -> SearchParams:
    """A ``SearchParams`` with the fixed-size arrays and the exact number types the compiled code is built for."""
    padded_candidates = np.zeros(MODEL_COUNT, dtype=np.int64)
    padded_candidates[:len(candidates)] = candidates
    padded_prior = np.zeros(MODEL_COUNT, dtype=np.float64)
    padded_prior[:len(log_prior)] = log_prior
    return SearchParams(int(rollout), int(iters), int(line_iters), int(chance_iters), int(horizon), float(c),
                        int(others), len(candidates), padded_candidates, padded_prior, float(eps), int(auto_pick),
                        int(version))


NO_SEARCH = search_params(rollout=GREEDY, iters=0, line_iters=0, chance_iters=0, horizon=0, c=0.0, others=POSTERIOR,
                          candidates=(), log_prior=(), eps=0.0, auto_pick=False, version=0)
"""The record of a seat that does not search (its entries are never read)."""


def stack_params(records: Sequence[SearchParams]) -> SearchParams:
    """Several records as one, each field an array over them (the lineup's table of its seats' searches)."""
    return SearchParams(*(np.array([record[i] for record in records]) for i in range(len(SearchParams._fields))))


@njit(**config.PASTED_KERNEL)
def params_at(stacked, i):
    """Record ``i`` of ``stack_params``' table."""
    return SearchParams(stacked.rollout[i], stacked.iters[i], stacked.line_iters[i], stacked.chance_iters[i],
                        stacked.horizon[i], stacked.c[i], stacked.others[i], stacked.n_candidates[i],
                        stacked.candidates[i], stacked.log_prior[i], stacked.eps[i], stacked.auto_pick[i],
                        stacked.version[i])


class SearchWork(NamedTuple):
    """Every scratch array a decision needs, made once (``new_search_work``) and reused decision after decision."""

    # the searches' positions: the playouts' and the look-ahead's
    first: Workspace
    second: Workspace
    # the phase-1 search: its deck, the root's choices and their totals
    root_deck: np.ndarray
    choices: np.ndarray
    choice_totals: np.ndarray
    # the phase-2 search: its tree at the largest capacity, and the search's own stream
    tree: Tree
    search_rng: np.ndarray
    # the greedy playout a ``loginf`` seat carries from one decision to the next, and a legal-action buffer
    known: np.ndarray
    legal: np.ndarray
    # what each seat learned of the others (``loglik[seat]``; ``no_evidence`` before phase 2), and the models and
    # playout policies a search gives the seats
    loglik: np.ndarray
    no_evidence: np.ndarray
    models: np.ndarray
    policies: np.ndarray
    # the ``loginf`` model's look-ahead scratch
    look_known: np.ndarray


@njit(**config.PASTED_KERNEL)
def search_work(position, n_seats, capacity):
    """A fresh ``SearchWork`` for a table of ``n_seats`` whose positions are shaped like ``position`` and whose
    largest tree holds ``capacity`` nodes."""
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    values = np.zeros(8, dtype=np.float64)
    first = Workspace(_copy_of(position), legal.copy(), values, np.zeros(8, dtype=np.int64))
    second = Workspace(_copy_of(position), legal.copy(), values, np.zeros(8, dtype=np.int64))
    tree = Tree(np.zeros(capacity + 1, dtype=np.int64), np.zeros(capacity + 1, dtype=np.int64),
                np.zeros(capacity + 1, dtype=np.int64), np.zeros(capacity + 1, dtype=np.int64),
                np.zeros(capacity + 1, dtype=np.int64), np.zeros((capacity, n_seats + 1), dtype=np.float64),
                np.zeros(1, dtype=np.int64), np.zeros(capacity + 1, dtype=np.int64))
    return SearchWork(first, second, position.deck.copy(), legal.copy(), np.zeros(NUM_ACTIONS, dtype=np.float64),
                      tree, np.zeros(1, dtype=np.uint64), np.zeros(1 + n_seats, dtype=np.float64), legal,
                      np.zeros((n_seats, n_seats, MODEL_COUNT), dtype=np.float64), np.zeros((n_seats, MODEL_COUNT)),
                      np.zeros(n_seats, dtype=np.int64), np.zeros(n_seats, dtype=np.int64), np.zeros(1 + n_seats))


@njit(**config.KERNEL)
def new_search_work(position, n_seats, capacity):
    """``search_work`` called from Python (the agent makes its scratch once per table)."""
    return search_work(position, n_seats, capacity)


@njit(**config.PASTED_KERNEL)
def _copy_of(position):
    """New arrays holding a copy of ``position``'s."""
    return Position(position.cards.copy(), position.ints.copy(), position.deck.copy(), position.rng.copy(),
                    position.keys.copy(), position.records.copy(), position.slots.copy())


# ----- the stages of a decision ------------------------------------------------------------------------
@njit(**config.PASTED_KERNEL)
def _choose_models(params, seat, evidence, models, policies):
    """Each seat's model in the tree (fixed, or the most likely on ``evidence``) and its playout policy: a seat
    modelled ``random`` plays random, every other seat the rollout."""
    if params.others != POSTERIOR:
        models[:] = params.others
    else:
        most_likely(evidence, params.log_prior, params.candidates, params.n_candidates, seat, models)
    for s in range(models.shape[0]):
        policies[s] = RANDOM if models[s] == search_rules.RANDOM_MODEL and s != seat else params.rollout


@njit(**config.PASTED_KERNEL)
def _phase1_root(position, legal, n_legal, preferred, work):
    """The phase-1 search's root: the position with the seen part of the deal kept and the unseen cards listed
    ascending (the search shuffles that part from its own stream, so their true order is never read), and the
    choices, greedy's first so that ties go to it. Clears the choices' totals."""
    cards, ints, deck = position.cards, position.ints, position.deck
    root_deck, choices, totals = work.root_deck, work.choices, work.choice_totals
    first_unseen = TABLE_SIZE + stock_turned(ints)
    for i in range(first_unseen):
        root_deck[i] = deck[i]
    rest = unseen_cards(cards, ints)
    at = first_unseen
    for card in range(52):
        if rest >> np.uint64(card) & np.uint64(1):
            root_deck[at] = card
            at += 1
    choices[0] = preferred
    at = 1
    for i in range(n_legal):
        if legal[i] != preferred:
            choices[at] = legal[i]
            at += 1
    for k in range(n_legal):
        totals[k] = 0.0


@njit(**config.PASTED_KERNEL)
def _phase1_samples(position, n_legal, samples, work):
    """Play every root choice out on ``samples`` more sampled stock orders, adding the seat's values to its total."""
    root = PositionRows(position.cards, position.ints, work.root_deck, position.keys, position.records)
    sampled_stock_iterations(root, work.first, work.choices[:n_legal], to_move(position.ints), samples,
                             work.policies, work.search_rng, work.choice_totals[:n_legal])


@njit(**config.PASTED_KERNEL)
def _phase1_pick(work, n_legal, samples):
    """The choice with the best mean over its ``samples`` orders, the earlier one on a tie."""
    totals = work.choice_totals
    best, best_mean = 0, -1.0
    for k in range(n_legal):
        mean = totals[k] / samples
        if mean > best_mean:
            best, best_mean = k, mean
    return work.choices[best]


@njit(**config.PASTED_KERNEL)
def _phase2_tree(work, size):
    """The scratch tree emptied and cut to ``size`` nodes (a tree fills to the capacity its budget gives it)."""
    whole = work.tree
    totals, used = whole.totals, whole.used
    for node in range(used[0]):
        whole.visits[node] = 0
        for s in range(totals.shape[1]):
            totals[node, s] = 0.0
    whole.child_count[0] = UNEXPANDED
    used[0] = 1
    return _first_nodes(whole, size)


@njit(**config.PASTED_KERNEL)
def _first_nodes(whole, size):
    """The scratch tree cut to its first ``size`` nodes."""
    return Tree(whole.child_start[:size], whole.child_count[:size], whole.action[:size], whole.mover[:size],
                whole.visits[:size], whole.totals[:size], whole.used, whole.path[:size + 1])


@njit(**config.PASTED_KERNEL)
def _phase2_rules(params, seat, evidence, models, policies):
    """How a phase-2 search runs here: whether its pick is the best line, its budget, its stopping rule and its
    playouts' horizon (``search_rules``), given the models chosen and the seat's ``evidence`` on the others."""
    by_line = params.auto_pick != 0 and search_rules.lines_are_exact(models, seat, policies[seat])
    chance = search_rules.random_seats_seen(models, seat, evidence, params.others != POSTERIOR)
    budget = search_rules.phase2_budget(params.iters, params.line_iters, params.chance_iters, by_line, chance)
    horizon = search_rules.playout_horizon(params.version, params.horizon, chance, models, seat)
    rule = search_rules.settle_rule(params.version, by_line, search_rules.others_are_greedy(models, seat))
    return by_line, budget, rule, horizon


@njit(**config.PASTED_KERNEL)
def _phase2_iterations(position, params, tree, n_iterations, rule, horizon, work):
    """Grow ``tree`` by up to ``n_iterations`` UCT iterations from ``position``; return how many ran."""
    root = PositionRows(position.cards, position.ints, position.deck, position.keys, position.records)
    return uct_iterations(root, work.first, tree, n_iterations, params.c, work.policies, work.search_rng,
                          work.models, work.second, work.look_known, rule, horizon)


@njit(**config.PASTED_KERNEL)
def _evidence_now(position, evidence, work):
    """The evidence a decision reads: none in phase 1, where the deal is not public yet."""
    return work.no_evidence if phase_of(position.ints) == 1 else evidence


@njit(**config.PASTED_KERNEL)
def mcts_choice(params, position, legal, n_legal, preferred, evidence, work):
    """The action of the seat to move at ``position`` with the search ``params`` (a ``SearchParams``), given its
    ``legal`` actions (two or more), greedy's choice ``preferred``, and its ``evidence`` on the other seats
    (float64[seats, MODEL_COUNT]); ``work.search_rng`` holds the decision's stream."""
    seat = to_move(position.ints)
    evidence = _evidence_now(position, evidence, work)
    _choose_models(params, seat, evidence, work.models, work.policies)
    if phase_of(position.ints) == 1:
        samples = search_rules.phase1_samples(params.iters, n_legal)
        _phase1_root(position, legal, n_legal, preferred, work)
        _phase1_samples(position, n_legal, samples, work)
        return _phase1_pick(work, n_legal, samples)
    by_line, budget, rule, horizon = _phase2_rules(params, seat, evidence, work.models, work.policies)
    size = search_rules.tree_capacity(search_rules.largest_budget(params.iters, params.line_iters,
                                                                  params.chance_iters))
    tree = _phase2_tree(work, size)
    _phase2_iterations(position, params, tree, budget, rule, horizon, work)
    return root_pick(tree, by_line)


# ----- entry points from Python ---------------------------------------------------------------------------
@njit(**config.PASTED_KERNEL)
def _read(rows, position, work):
    """Copy ``rows`` into ``position``; return the legal actions' count (into ``work.legal``) and greedy's choice."""
    copy_position(rows, position)
    legal = work.legal
    n_legal = legal_actions(position.cards, position.ints, legal)
    return n_legal, policy_action(GREEDY, to_move(position.ints), legal, n_legal, position.cards, position.ints,
                                  position.rng)


@njit(**config.KERNEL)
def decide(params, rows, position, evidence, work):
    """``mcts_choice`` at the position ``rows`` (``compiled.position_rows``), read into the scratch ``position``."""
    n_legal, preferred = _read(rows, position, work)
    return mcts_choice(params, position, work.legal, n_legal, preferred, evidence, work)


@njit(**config.KERNEL)
def start_timed(params, rows, position, evidence, work, size):
    """The first stage of a decision under a time budget: read the position, choose the models, and lay out the
    search (phase 1: the root's choices; phase 2: an empty tree of ``size`` nodes). Returns the choices' count
    and the phase-2 rules: whether the pick is the best line, the stopping rule and the playouts' horizon."""
    n_legal, preferred = _read(rows, position, work)
    seat = to_move(position.ints)
    evidence = _evidence_now(position, evidence, work)
    _choose_models(params, seat, evidence, work.models, work.policies)
    if phase_of(position.ints) == 1:
        _phase1_root(position, work.legal, n_legal, preferred, work)
        return n_legal, False, search_rules.NEVER, 0
    by_line, _, rule, horizon = _phase2_rules(params, seat, evidence, work.models, work.policies)
    _phase2_tree(work, size)
    return n_legal, by_line, rule, horizon


@njit(**config.KERNEL)
def search_more(params, position, n_legal, n_iterations, rule, horizon, size, work):
    """Run about ``n_iterations`` more of a timed decision's search; return how many ran (phase 1: the stock
    orders each choice was played on; phase 2: iterations, fewer once the search has settled)."""
    if phase_of(position.ints) == 1:
        samples = n_iterations // n_legal + 1
        _phase1_samples(position, n_legal, samples, work)
        return samples
    return _phase2_iterations(position, params, _first_nodes(work.tree, size), n_iterations, rule, horizon, work)


@njit(**config.KERNEL)
def timed_pick(position, n_legal, samples, by_line, work):
    """A timed decision's pick once its time is up (``samples``: the stock orders a phase-1 search played)."""
    if phase_of(position.ints) == 1:
        return _phase1_pick(work, n_legal, max(samples, 1))
    return root_pick(work.tree, by_line)
