"""The rules an ``mcts`` search follows, by version: how it models the other seats in its tree, how many playouts a
phase-2 search spends, how far a chance search's playouts run, when a search may stop, and how large its tree is.

They are compiled, and the Python agent (``agents.knorri.mcts``) and the compiled lineup (``agents.knorri.lineup``)
both call them, so the two size their trees, share out their playouts and settle alike; the search itself
(``agents.knorri.search``) applies them inside its loop.
"""

from __future__ import annotations

from numba import njit

from sim import config
from sim.knorri.compiled import GREEDY, cap_after

MAXN, GREEDY_MODEL, LOOKAHEAD_MODEL, RANDOM_MODEL = 0, 1, 2, 3
OPPONENT_MODELS: dict[str, int] = {"maxn": MAXN, "greedy": GREEDY_MODEL, "loginf": LOOKAHEAD_MODEL,
                                   "random": RANDOM_MODEL}
"""How another seat chooses inside the tree: ``maxn`` it searches for itself (a node per legal action,
UCB1 on its own value), ``greedy`` it plays greedy's choice, ``loginf`` it plays ``loginf``'s choice
(greedy with a one-decision look-ahead), ``random`` a uniform choice (a chance node: every legal
action, one drawn at random per visit). Under ``greedy`` and ``loginf`` its nodes do not branch."""

NEVER, BY_VISITS, BY_BEST_LINE = 0, 1, 2
"""When a phase-2 search may stop before its budget (``uct_iterations``' ``settle``): ``NEVER`` (the first
``mcts``, every iteration spent); ``BY_VISITS``, once the most visited root child leads the next by more
visits than the iterations left, so that no budget could change ``root_pick``'s most visited child;
``BY_BEST_LINE``, once a line found wins the hand outright for the searching seat (it goes out first: the best
score there is), which no other line can beat when ``root_pick`` takes the best line. A won line is final only
where every other seat is modelled ``greedy``: the playouts play each seat greedy, so under ``loginf`` models the
part of a line past the tree is not what the seats would play (stopping there lost 0.48 points a hand against
three ``loginf`` seats)."""


@njit(**config.PASTED_KERNEL)
def settle_rule(version, by_best_line, others_greedy):
    """The stopping rule of an ``mcts`` of ``version`` whose pick is the best line (else the most visited), given
    whether every other seat is modelled ``greedy`` (``others_greedy``: the playouts then play the model)."""
    if version < 2:
        return NEVER
    if by_best_line:
        return BY_BEST_LINE if others_greedy else NEVER
    return BY_VISITS


@njit(**config.PASTED_KERNEL)
def phase2_budget(iters, line_iters, chance_iters, by_best_line, has_chance):
    """The playouts of a phase-2 search: ``line_iters`` where its pick is the best line (the values are exact
    outcomes, and the search mostly stops at the first won line), ``chance_iters`` where another seat is modelled
    ``random`` on evidence (``has_chance``: ``random_seats_seen``; its nodes are chance nodes, each visit one draw,
    so the values are means of noisy samples and need more of them), else ``iters``."""
    if by_best_line:
        return line_iters
    if has_chance:
        return chance_iters
    return iters


CUT_FROM_VERSION = 5
"""The first version that cuts a chance search's playouts only where ``CUT_WITH_RANDOM_SEATS`` or more other seats
are modelled ``random``."""
CUT_WITH_RANDOM_SEATS = 2
CUT_BY_MAJORITY_FROM_VERSION = 6
"""The first version that cuts them only where most of the other seats are modelled ``random``: the same rule as
version 5's at 3 and 4 seats, fewer cut searches at 5 and 6."""


@njit(**config.PASTED_KERNEL)
def playout_horizon(version, horizon, has_chance, models, hero):
    """The phase-2 actions each playout of a search plays before ``chance_playout_cap`` cuts it (0: to the end):
    the seat's ``horizon`` in a search with chance nodes (``has_chance``: ``random_seats_seen``), else 0.

    From ``CUT_FROM_VERSION`` on, a search where only one other seat is modelled ``random`` plays its playouts to
    the end: every other seat plays the rollout there, so a hand ends soon and a whole playout costs little more
    than a cut one, while its value is the hand's real outcome rather than the cap's ranking. At a table of
    searchers, every other seat modelled ``random``, random play runs long and the cut is what the budget buys
    (docs/agents.md, "Version 5"). From ``CUT_BY_MAJORITY_FROM_VERSION`` on the cut waits for most of the other
    seats: at 5 and 6 seats, two random seats among greedy and loginf ones end a hand soon too ("Version 6")."""
    if not has_chance:
        return 0
    if version >= CUT_FROM_VERSION:
        modelled_random = 0
        for seat in range(models.shape[0]):
            if seat != hero and models[seat] == RANDOM_MODEL:
                modelled_random += 1
        if version >= CUT_BY_MAJORITY_FROM_VERSION:
            if 2 * modelled_random <= models.shape[0] - 1:
                return 0
        elif modelled_random < CUT_WITH_RANDOM_SEATS:
            return 0
    return horizon


@njit(**config.PASTED_KERNEL)
def chance_playout_cap(ints, horizon):
    """Cut a playout off ``horizon`` phase-2 actions on (0: play it to the end), by lowering the scratch
    position's cap: a hand the cap ends is scored by the rules' own cut-off ranking (cards held).

    Used where another seat is modelled ``random``. Those playouts are the costly ones (random play runs long
    before a seat goes out) and the noisy ones (a value is a mean of random draws), and many more of them
    shorter bought more than fewer to the end: against ``greedy`` with the other three seats random, playouts
    cut at 40 actions won about as clearly as as many to the end, and four ``mcts`` with 600 cut ones play more
    hands per CPU second than with 200 whole ones (docs/agents.md, "How ``mcts`` saves playouts, and the first
    ``mcts``", has the measurements)."""
    if horizon > 0:
        cap_after(ints, horizon)


@njit(**config.PASTED_KERNEL)
def largest_budget(iters, line_iters, chance_iters):
    """The most playouts any phase-2 search of an ``mcts`` may spend: what its one tree is sized for."""
    return max(iters, max(line_iters, chance_iters))


@njit(**config.PASTED_KERNEL)
def others_are_greedy(models, hero):
    """Whether every seat but ``hero`` is modelled ``greedy`` (so a greedy playout plays each as its model does)."""
    for seat in range(models.shape[0]):
        if seat != hero and models[seat] != GREEDY_MODEL:
            return False
    return True


@njit(**config.PASTED_KERNEL)
def random_seats_seen(models, hero, loglik, fixed):
    """Whether some seat but ``hero`` is modelled ``random`` and each such seat is so on evidence (``fixed``: the
    models were given, not learnt): it has been seen choosing, so ``loglik[seat]`` is no longer all 0.

    Only such a search spends ``chance_iters`` cut playouts (``phase2_budget``, ``chance_playout_cap``). A seat
    not seen choosing yet is ``random`` only because an empty posterior ties and ``random`` is the first
    candidate; there the search plays ``iters`` whole playouts, as version 2 did, since cut ones lost strength
    early in phase 2 against ``loginf`` seats not yet told from random ones."""
    found = False
    for seat in range(models.shape[0]):
        if seat != hero and models[seat] == RANDOM_MODEL:
            if not fixed and loglik[seat, RANDOM_MODEL] == 0.0:
                return False
            found = True
    return found


@njit(**config.PASTED_KERNEL)
def lines_are_exact(models, hero, rollout):
    """Whether the tree's values are exact outcomes: greedy playouts, and each other seat greedy or ``loginf``."""
    if rollout != GREEDY:
        return False
    for seat in range(models.shape[0]):
        if seat != hero and models[seat] != GREEDY_MODEL and models[seat] != LOOKAHEAD_MODEL:
            return False
    return True


NODES_PER_ITERATION = 24
"""Tree capacity per iteration; a full tree stops growing and plays out from its leaves."""


@njit(**config.PASTED_KERNEL)
def tree_capacity(iterations):
    """The nodes a phase-2 tree of ``iterations`` UCT iterations may hold, its root included: the one size the
    Python agent's ``TreeSearch`` and the compiled lineup's tree are cut to, so the two grow alike."""
    return 1 + NODES_PER_ITERATION * iterations


@njit(**config.PASTED_KERNEL)
def phase1_samples(iterations, n_choices):
    """How many stock orders a phase-1 search of ``iterations`` plays each of its ``n_choices`` root choices on
    (at least one): the budget shared evenly, in the Python agent and the compiled lineup alike."""
    return max(1, iterations // n_choices)
