"""Compiled search for ``mcts``: the whole tree search runs in numba, through the engine's step API.

A search reads the position once per decision; every iteration copies those rows, applies the tree path's actions
with the engine's own step (so repeats and the cap end lines exactly as in the reference engine), plays the leaf
out with a compiled policy and backs the scores up, never returning to Python. Two searches: ``uct_iterations``
(phase 2, UCT with one value per seat, picked by ``root_pick``) and ``sampled_stock_iterations`` (phase 1, sampled
orders of the unseen stock). ``lookahead_choice`` is ``loginf``'s whole decision. One ``mcts`` decision, which
runs them, is ``agents.knorri.decision``; the version's budgets and stops are ``agents.knorri.search_rules``; the
searches in full are in docs/internals.md, ``agents.knorri.search``. ``TreeSearch`` and ``sampled_stock_search``
run the two searches from Python, for tests and benchmarks of the search alone.

The arrays hold only what the seat may know: the deck row's unturned part is reshuffled from the search's own
stream before any phase-1 playout reads it, and in phase 2 there are no unturned cards.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from agents.knorri.search_rules import (
    BY_BEST_LINE,
    GREEDY_MODEL,
    LOOKAHEAD_MODEL,
    MAXN,
    NEVER,
    RANDOM_MODEL,
    chance_playout_cap,
)
from sim import config
from sim.knorri.compiled import (
    DEAL_STREAM,
    GREEDY,
    RANDOM,
    SEAT_STREAMS,
    Position,
    PositionRows,
    apply_action,
    below,
    copy_position,
    fit_position,
    is_over,
    legal_actions,
    new_position,
    next_u64,
    play_out_result_seats,
    policy_action,
    score,
    scores,
    seat_count,
    stock_turned,
    to_move,
)
from sim.knorri.encoding import NUM_ACTIONS, TABLE_SIZE

POLICY_IDS: dict[str, int] = {"greedy": GREEDY, "random": RANDOM}
"""Playout policies by the name an agent spec gives."""

UNEXPANDED = -1

ONE_SLOT = np.int64(0)
"""The slot of a one-slot stream array such as ``search_rng``: an int64, not a literal 0, since numba compiles a
separate copy of a kernel for each literal int passed to it."""


class Workspace(NamedTuple):
    """A position a search steps, with its scratch: ``legal`` (int64[NUM_ACTIONS]), a playout's ``values``
    (float64[8], one per seat) and ``policies`` (int64[8], one per seat) for a playout with one policy at every
    seat."""

    position: Position
    legal: np.ndarray
    values: np.ndarray
    policies: np.ndarray


class Tree(NamedTuple):
    """A UCT tree as arrays by node (node 0 is the root): where its children start and how many there are
    (``UNEXPANDED`` before they are made), the action into it, the seat choosing there (``-1 - seat`` at a chance
    node), its visits and value totals (a column per seat, then the best line's value), the nodes used (in
    ``used[0]``) and one iteration's ``path``."""

    child_start: np.ndarray
    child_count: np.ndarray
    action: np.ndarray
    mover: np.ndarray
    visits: np.ndarray
    totals: np.ndarray
    used: np.ndarray
    path: np.ndarray


class Scratch:
    """One ``Workspace`` the search steps (a position copied from the root each iteration), sized for the table's
    cut-off rules: ``fit`` resizes it for a root whose rules differ."""

    def __init__(self) -> None:
        self.legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.values = np.zeros(8, dtype=np.float64)
        self.policies = np.zeros(8, dtype=np.int64)
        self._workspace = Workspace(new_position(), self.legal, self.values, self.policies)

    @property
    def position(self) -> Position:
        """The working position."""
        return self._workspace.position

    def fit(self, rows: PositionRows) -> Scratch:
        """Make the history rows the size the root ``rows`` (``compiled.position_rows``) needs under its rules."""
        position = fit_position(self._workspace.position, rows.ints)
        if position is not self._workspace.position:
            self._workspace = Workspace(position, self.legal, self.values, self.policies)
        return self

    def workspace(self) -> Workspace:
        """The scratch as the kernels take it (made once, while its position fits)."""
        return self._workspace


# ----- kernels --------------------------------------------------------------------------------------
@njit(**config.PASTED_KERNEL)
def _seed_streams(rng, search_rng):
    """Fresh playout streams from the search's own stream (only ``random`` playouts draw from them)."""
    for stream in range(rng.shape[0]):
        rng[stream] = next_u64(search_rng, ONE_SLOT)


@njit(**config.PASTED_KERNEL)
def _final_values(ints, values):
    """``values[s]``: seat s's final score scaled to [0, 1] (the worst a seat can score to the best)."""
    n = seat_count(ints)
    low = -n * (n - 1) / 2.0
    high = n - 1.0
    for s in range(n):
        values[s] = (score(ints, s) - low) / (high - low)


@njit(**config.STEP_KERNEL)
def _play_out_seats(work, policies):
    """Play the workspace's position out with seat s playing ``policies[s]``; ``values[s]``: seat s's score in
    [0, 1]."""
    play_out_result_seats(work.position, work.legal, policies)
    _final_values(work.position.ints, work.values)


@njit(**config.PASTED_KERNEL)
def _play_out(work, policy):
    """``_play_out_seats`` with ``policy`` at every seat: one playout kernel compiled for both kinds of caller."""
    for s in range(seat_count(work.position.ints)):
        work.policies[s] = policy
    _play_out_seats(work, work.policies)


@njit(**config.PASTED_KERNEL)
def _copy_position(position, into):
    """Copy a working position (with the positions it remembers and its streams) into a second one."""
    copy_position(position, into)
    for stream in range(position.rng.shape[0]):
        into.rng[stream] = position.rng[stream]


@njit(**config.STEP_KERNEL)
def lookahead_choice(position, legal, n_legal, preferred, aside, policy, streams, stream, local, known):
    """``loginf``'s choice: the legal action whose playout with ``policy`` scores best for the seat to move.

    ``preferred`` (greedy's choice) is tried first and keeps ties, as ``loginf`` does; each candidate is played
    out in the ``aside`` workspace. With a ``RANDOM`` playout, each candidate that does not end the hand draws its
    playout's seed from ``streams[stream]`` (``local`` is a one-slot scratch), as
    ``agents.knorri.playout.CompiledPlayout`` does.

    ``known`` (float64[1 + seats]) carries greedy playouts' values from one decision to the next:
    a greedy playout is a function of its position, and the greedy playout from the current
    position is the one after its greedy choice, ``preferred``. Given ``known[0] > 0``,
    ``known[1:]`` are those values and ``preferred`` is not played out again; on return
    ``known`` holds the chosen action's playout values (valid for a ``GREEDY`` playout only).
    """
    ints = position.ints
    values, trial = aside.values, aside.position
    seat = to_move(ints)
    n = seat_count(ints)
    reuse = policy == GREEDY and known[0] > 0
    best, best_value = preferred, -1.0
    for k in range(-1, n_legal):
        candidate = preferred if k < 0 else legal[k]
        if k >= 0 and candidate == preferred:
            continue
        if k < 0 and reuse:
            for s in range(n):
                values[s] = known[1 + s]
        else:
            _copy_position(position, trial)
            apply_action(trial, candidate)
            if policy != GREEDY and not is_over(trial.ints):
                local[0] = next_u64(streams, stream)
                _seed_streams(trial.rng, local)
            _play_out(aside, policy)
        if values[seat] > best_value:
            best, best_value = candidate, values[seat]
            for s in range(n):
                known[1 + s] = values[s]
    known[0] = 1.0 if policy == GREEDY else 0.0
    return best


@njit(**config.KERNEL)
def lookahead_from_root(root, work, aside, policy, streams):
    """``loginf``'s choice at the ``root`` position (``PositionRows``), its candidates played out with ``policy``
    (a ``random`` playout's seed drawn from ``streams[0]``): the ``loginf`` agent's decision, and (greedy) the
    ``loginf`` opponent model's in the tree."""
    position, legal = work.position, work.legal
    copy_position(root, position)
    n_legal = legal_actions(position.cards, position.ints, legal)
    preferred = policy_action(GREEDY, to_move(position.ints), legal, n_legal, position.cards, position.ints,
                              position.rng)
    return lookahead_choice(position, legal, n_legal, preferred, aside, policy, streams, ONE_SLOT,
                            np.zeros(1, dtype=np.uint64), np.zeros(1 + work.values.shape[0]))


@njit(**config.KERNEL)
def play_out_root(root, work, policy, seed):
    """Play the ``root`` position out once with ``policy`` at every seat (streams from ``seed``); final scores in
    the workspace's ints."""
    copy_position(root, work.position)
    search_rng = np.zeros(1, dtype=np.uint64)
    search_rng[0] = seed
    _seed_streams(work.position.rng, search_rng)
    _play_out(work, policy)


@njit(**config.PASTED_KERNEL)
def _expand(node, work, tree, models, hero, aside, known):
    """Make ``node``'s children (greedy's choice first, then ascending ids); False if the tree is full.

    At another seat's node its model ``models[seat]`` decides: one child (the model's choice) under
    ``greedy`` or ``loginf``, every action under ``maxn``, every action as a chance node under ``random``
    (``mover`` holds ``-1 - seat`` there).
    """
    position, legal = work.position, work.legal
    cards, ints = position.cards, position.ints
    action, used = tree.action, tree.used
    n_legal = legal_actions(cards, ints, legal)
    first = used[0]
    if first + n_legal > action.shape[0]:
        return False
    seat = to_move(ints)
    model = MAXN if seat == hero else models[seat]
    preferred = policy_action(GREEDY, seat, legal, n_legal, cards, ints, position.rng)
    if model == GREEDY_MODEL or model == LOOKAHEAD_MODEL:
        if model == LOOKAHEAD_MODEL and n_legal > 1:
            known[0] = 0.0  # nothing carried over between nodes
            preferred = lookahead_choice(position, legal, n_legal, preferred, aside, GREEDY, position.rng, ONE_SLOT,
                                         position.rng, known)
        n_legal = 1
    action[first] = preferred
    at = first + 1
    for i in range(n_legal):
        if legal[i] != preferred and at < first + n_legal:
            action[at] = legal[i]
            at += 1
    for child in range(first, first + n_legal):
        tree.child_count[child] = UNEXPANDED
    tree.child_start[node] = first
    tree.child_count[node] = n_legal
    tree.mover[node] = -1 - seat if model == RANDOM_MODEL else seat
    used[0] = first + n_legal
    return True


@njit(**config.PASTED_KERNEL)
def _select(node, c, tree, search_rng):
    """The child to follow: at a chance node a uniform draw; else the first one not yet tried, else the best
    UCB1 score for the seat to move."""
    visits, totals = tree.visits, tree.totals
    first = tree.child_start[node]
    stop = first + tree.child_count[node]
    if tree.mover[node] < 0:
        return first + below(search_rng, ONE_SLOT, stop - first)
    for child in range(first, stop):
        if visits[child] == 0:
            return child
    seat = tree.mover[node]
    log_n = math.log(visits[node])
    best, best_score = first, -1e300
    for child in range(first, stop):
        score = totals[child, seat] / visits[child] + c * math.sqrt(log_n / visits[child])
        if score > best_score:
            best, best_score = child, score
    return best


@njit(**config.PASTED_KERNEL)
def _settled(tree, remaining, settle):
    """Whether the root's pick can no longer change within ``remaining`` iterations under rule ``settle``
    (``NEVER``, ``BY_VISITS``, ``BY_BEST_LINE``)."""
    if settle == NEVER or tree.child_count[0] == UNEXPANDED:
        return False
    if settle == BY_BEST_LINE:
        return tree.totals[0, tree.totals.shape[1] - 1] >= 1.0  # a line on which the searching seat goes out first
    first = tree.child_start[0]
    top, second = -1, -1
    for child in range(first, first + tree.child_count[0]):
        if tree.visits[child] > top:
            top, second = tree.visits[child], top
        elif tree.visits[child] > second:
            second = tree.visits[child]
    return top - max(second, 0) > remaining


@njit(**config.STEP_KERNEL)
def uct_iterations(root, work, tree, n_iterations, c, policies, search_rng, models, aside, known, settle, horizon):
    """Run up to ``n_iterations`` more UCT iterations from the ``root`` position (``PositionRows``) into ``tree``;
    return how many ran: fewer once the root's pick has settled under rule ``settle`` (``NEVER``, ``BY_VISITS``,
    ``BY_BEST_LINE``: checked after every iteration, so the count is a function of the tree alone).
    Every playout ends after ``horizon`` phase-2 actions (0: never), as ``chance_playout_cap`` says.

    The seat to move at the root searches in ``work``; another seat s follows ``models[s]`` (``OPPONENT_MODELS``)
    in the tree and plays ``policies[s]`` in playouts. The ``aside`` workspace and ``known``
    (float64[1 + seats]) are scratch for the ``loginf`` model's look-ahead.
    """
    position, values = work.position, work.values
    ints = position.ints
    visits, totals, path = tree.visits, tree.totals, tree.path
    n = seat_count(root.ints)
    hero = to_move(root.ints)
    for done in range(n_iterations):
        if _settled(tree, n_iterations - done, settle):
            return done
        copy_position(root, position)
        _seed_streams(position.rng, search_rng)
        node = np.int64(0)  # not the literal 0: numba would compile a second _expand for it
        path[0] = 0
        depth = 1
        while not is_over(ints):
            if tree.child_count[node] == UNEXPANDED:
                if node != 0 and visits[node] == 0:
                    break  # a new leaf: play it out
                if not _expand(node, work, tree, models, hero, aside, known):
                    break  # the tree is full: play out from here
            node = _select(node, c, tree, search_rng)
            apply_action(position, tree.action[node])
            path[depth] = node
            depth += 1
            if visits[node] == 0:
                break
        chance_playout_cap(ints, horizon)
        _play_out_seats(work, policies)
        for i in range(depth):
            visited = path[i]
            visits[visited] += 1
            for s in range(n):
                totals[visited, s] += values[s]
            if values[hero] > totals[visited, n]:
                totals[visited, n] = values[hero]  # the best line found through the node, for the searching seat
    return n_iterations


@njit(**config.STEP_KERNEL)
def sampled_stock_iterations(root, work, choices, seat, n_samples, policies, search_rng, totals):
    """For each of ``n_samples`` orders of the unturned cards, play every root choice out (seat s playing
    ``policies[s]``); add ``seat``'s values.

    ``root.deck`` is reshuffled in place sample after sample (the caller passes a copy: the
    position's own deck row is never changed).
    """
    position = work.position
    rng, sample = position.rng, root.deck
    first_unseen = TABLE_SIZE + stock_turned(root.ints)
    for _ in range(n_samples):
        for i in range(51, first_unseen, -1):  # Fisher-Yates over the unturned part only
            j = first_unseen + below(search_rng, ONE_SLOT, i - first_unseen + 1)
            sample[i], sample[j] = sample[j], sample[i]
        streams = next_u64(search_rng, ONE_SLOT)
        for k in range(choices.shape[0]):
            copy_position(root, position)
            rng[DEAL_STREAM] = streams
            for s in range(rng.shape[0] - SEAT_STREAMS):
                rng[SEAT_STREAMS + s] = streams + np.uint64(s + 1)
            apply_action(position, choices[k])
            _play_out_seats(work, policies)
            totals[k] += work.values[seat]


@njit(**config.PASTED_KERNEL)
def root_pick(tree, by_best_line):
    """The action a search plays: the root child with the most visits, then the better mean, then the earlier
    child (greedy's first); or, where its values are exact outcomes (``by_best_line``), the child that starts the
    best line found, then more visits, then the earlier child.

    When every other seat follows a deterministic model and the playouts are greedy, each iteration's value is
    the exact outcome of one line of play under the model, so the best line found is one the seat can make happen,
    while a mean would count its own exploring.
    """
    visits, totals = tree.visits, tree.totals
    first = tree.child_start[0]
    seat = tree.mover[0]  # the root's seat searches: never a chance node
    line = totals.shape[1] - 1
    best, best_visits, best_mean, best_line = first, -1, -1.0, -1.0
    for child in range(first, first + tree.child_count[0]):
        mean = totals[child, seat] / visits[child] if visits[child] else 0.0
        if by_best_line:
            better = totals[child, line] > best_line or (totals[child, line] == best_line
                                                         and visits[child] > best_visits)
        else:
            better = visits[child] > best_visits or (visits[child] == best_visits and mean > best_mean)
        if better:
            best, best_visits, best_mean, best_line = child, visits[child], mean, totals[child, line]
    return tree.action[best]


# ----- Python side ----------------------------------------------------------------------------------
class TreeSearch:
    """A UCT tree over one phase-2 position, grown by compiled iterations; reusable across decisions."""

    def __init__(self, capacity: int, n_seats: int) -> None:
        self.capacity = capacity
        self.child_start = np.zeros(capacity, dtype=np.int64)
        self.child_count = np.zeros(capacity, dtype=np.int64)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.mover = np.zeros(capacity, dtype=np.int64)
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.totals = np.zeros((capacity, n_seats + 1), dtype=np.float64)  # per seat, then the best line's value
        self.used = np.zeros(1, dtype=np.int64)
        self.path = np.zeros(capacity + 1, dtype=np.int64)
        self.tree = Tree(self.child_start, self.child_count, self.action, self.mover, self.visits, self.totals,
                         self.used, self.path)
        self.scratch = Scratch()
        self.lookahead = Scratch()
        self.known = np.zeros(n_seats + 1, dtype=np.float64)  # the loginf model's scratch

    def start(self, rows: PositionRows) -> None:
        """Forget the last tree and root the next one at ``rows`` (from ``compiled.position_rows``)."""
        self.rows = rows
        self.scratch.fit(rows)
        self.lookahead.fit(rows)
        used = int(self.used[0])
        self.visits[:used] = 0
        self.totals[:used] = 0.0
        self.child_count[0] = UNEXPANDED
        self.used[0] = 1

    def iterate(self, n_iterations: int, c: float, policies: int | np.ndarray, search_rng: np.ndarray,
                models: int | np.ndarray = MAXN, settle: int = NEVER, horizon: int = 0) -> int:
        """Grow the tree by up to ``n_iterations`` iterations (fewer once the pick settles under rule ``settle``);
        seat s follows ``models[s]`` and plays ``policies[s]`` in playouts (one id for every seat, or one per
        seat), each cut at ``horizon`` phase-2 actions (0: never). Returns the iterations run."""
        n = self.totals.shape[1] - 1
        return uct_iterations(self.rows, self.scratch.workspace(), self.tree, n_iterations, c, per_seat(policies, n),
                              search_rng, per_seat(models, n), self.lookahead.workspace(), self.known,
                              np.int64(settle), np.int64(horizon))

    def pick(self, by_best_line: bool = False) -> int:
        """The action the search plays (``root_pick``): the most visited child, or the start of the best line."""
        return int(root_pick(self.tree, by_best_line))

    def root_children(self) -> list[tuple[int, int, float, float]]:
        """``(action, visits, mean value, best line's value)`` for the seat to move of every root child, greedy's
        choice first."""
        first, count = int(self.child_start[0]), int(self.child_count[0])
        if count == UNEXPANDED:
            return []
        seat = int(self.mover[0])  # the root's seat searches: never a chance node
        return [(int(self.action[child]), int(self.visits[child]),
                 float(self.totals[child, seat] / self.visits[child]) if self.visits[child] else 0.0,
                 float(self.totals[child, -1]))
                for child in range(first, first + count)]


def play_out(rows: PositionRows, policy: int, seed: int, scratch: Scratch) -> list[float]:
    """Every seat's final score after one compiled playout of a position (from ``compiled.position_rows``)."""
    play_out_root(rows, scratch.fit(rows).workspace(), policy, np.uint64(seed))
    return [float(points) for points in scores(scratch.position.ints)]


def lookahead_action(rows: PositionRows, scratch: Scratch, lookahead: Scratch, policy: int = GREEDY,
                     streams: np.ndarray | None = None) -> int:
    """``loginf``'s choice at a phase-2 position (compiled ``loginf``): the opponent model's, or with ``policy``
    and the agent's one-slot ``streams`` (advanced in place by a ``random`` playout's draws) the agent's own."""
    streams = np.zeros(1, dtype=np.uint64) if streams is None else streams
    return int(lookahead_from_root(rows, scratch.fit(rows).workspace(), lookahead.fit(rows).workspace(),
                                   np.int64(policy), streams))


def sampled_stock_search(rows: PositionRows, choices: list[int], seat: int, n_samples: int,
                         policies: int | np.ndarray, search_rng: np.ndarray, scratch: Scratch) -> list[float]:
    """Mean value in [0, 1] for ``seat`` of each phase-1 choice over ``n_samples`` orders of the unturned cards
    (seat s playing ``policies[s]`` in the playouts: one id for every seat, or one per seat)."""
    totals = np.zeros(len(choices), dtype=np.float64)
    sampled_stock_iterations(rows._replace(deck=rows.deck.copy()), scratch.fit(rows).workspace(),
                             np.asarray(choices, dtype=np.int64), seat, n_samples,
                             per_seat(policies, seat_count(rows.ints)), search_rng, totals)
    return (totals / max(1, n_samples)).tolist()


def per_seat(value: int | np.ndarray, n_seats: int) -> np.ndarray:
    """A policy or model id per seat as the kernels take it: one id repeated, or the given ids."""
    if np.ndim(value) == 0:
        return np.full(n_seats, int(value), dtype=np.int64)
    return np.asarray(value, dtype=np.int64)
