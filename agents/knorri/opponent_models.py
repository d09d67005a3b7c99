"""What ``mcts`` learns during a hand about how each other seat plays: a posterior over candidate policies.

Once phase 2 starts the whole deal is public, so every choice a seat has been seen to make in the deal can be
scored against what each candidate policy (``random``, ``greedy``, ``loginf``, and ``maxn``, a searcher) would have
chosen in that exact position; the stock order is never read. Only decisions with two or more legal actions
count. The log-likelihoods add up over the hand, and the seat's model inside the tree is the candidate with the
highest log-likelihood plus log prior (``most_likely``). Each candidate's likelihood is in docs/internals.md,
``agents.knorri.opponent_models``.

Both the Python agent and the compiled lineup kernels call ``observe_decisions`` on the same inputs, so they reach
the same floats in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from agents.knorri.search import ONE_SLOT, Scratch, lookahead_choice
from agents.knorri.search_rules import GREEDY_MODEL, LOOKAHEAD_MODEL, MAXN, OPPONENT_MODELS, RANDOM_MODEL
from sim import config
from sim.knorri.compiled import (
    GREEDY,
    PositionRows,
    apply_action,
    copy_position,
    is_over,
    legal_actions,
    phase_of,
    policy_action,
    to_move,
)

MODEL_COUNT = len(OPPONENT_MODELS)
SEARCHER_AGREEMENT = 0.8
"""The chance a searcher's choice is greedy's or loginf's (measured agreement of ``mcts`` with them is higher
still; this leaves room for its own ideas)."""
DEFAULT_EPS = 0.05


@njit(**config.KERNEL)
def add_choice_evidence(loglik, seat, action, n_legal, greedy_choice, lookahead, eps):
    """Add to ``loglik[seat, model]`` the log-probability of ``action`` among ``n_legal`` under each model."""
    n = float(n_legal)
    loglik[seat, RANDOM_MODEL] += -math.log(n)
    hit, miss = math.log(1.0 - eps), math.log(eps / (n - 1.0))
    loglik[seat, GREEDY_MODEL] += hit if action == greedy_choice else miss
    loglik[seat, LOOKAHEAD_MODEL] += hit if action == lookahead else miss
    heuristic = 1 if greedy_choice == lookahead else 2
    if heuristic >= n_legal:
        loglik[seat, MAXN] += -math.log(n)
    elif action == greedy_choice or action == lookahead:
        loglik[seat, MAXN] += math.log(SEARCHER_AGREEMENT / heuristic)
    else:
        loglik[seat, MAXN] += math.log((1.0 - SEARCHER_AGREEMENT) / (n - heuristic))


@njit(**config.KERNEL)
def observe_decisions(mirror, aside, decisions, start, stop, hero, loglik, eps, known):
    """Step the ``mirror`` workspace through ``decisions[start:stop]``, scoring every other seat's choice first.

    The mirror must stand where ``decisions[start]`` is taken; it is left after ``decisions[stop - 1]``. The
    ``aside`` workspace and ``known`` (float64[1 + seats]) are scratch for ``loginf``'s look-ahead.
    """
    position, legal = mirror.position, mirror.legal
    cards, ints, rng = position.cards, position.ints, position.rng
    for i in range(start, stop):
        if is_over(ints):
            return
        action = decisions[i]
        seat = to_move(ints)
        if seat != hero:
            n_legal = legal_actions(cards, ints, legal)
            if n_legal > 1:
                greedy_choice = policy_action(GREEDY, seat, legal, n_legal, cards, ints, rng)
                lookahead = greedy_choice  # loginf captures as greedy does in phase 1
                if phase_of(ints) == 2:
                    known[0] = 0.0
                    lookahead = lookahead_choice(position, legal, n_legal, greedy_choice, aside, GREEDY, rng,
                                                 ONE_SLOT, rng, known)
                add_choice_evidence(loglik, seat, action, n_legal, greedy_choice, lookahead, eps)
        apply_action(position, action)


@njit(**config.KERNEL)
def most_likely(loglik, log_prior, candidates, n_candidates, hero, models):
    """Every other seat's most likely candidate model into ``models`` (ties to the earlier candidate)."""
    for seat in range(models.shape[0]):
        if seat == hero:
            models[seat] = MAXN
            continue
        best, best_score = candidates[0], -1e300
        for k in range(n_candidates):
            model = candidates[k]
            value = loglik[seat, model] + log_prior[k]
            if value > best_score:
                best, best_score = model, value
        models[seat] = best


@njit(**config.KERNEL)
def start_mirror(rows, mirror):
    """Place the ``mirror`` position at ``rows``, read by ``compiled.position_rows`` (the deal, before its first
    decision)."""
    copy_position(rows, mirror)


def parse_models(text: str) -> tuple[str, ...]:
    """Candidate model names from a spec value such as ``random+greedy+loginf+maxn``; one line if unknown."""
    names = tuple(part.strip() for part in text.split("+") if part.strip())
    unknown = [name for name in names if name not in OPPONENT_MODELS]
    if not names or unknown:
        raise ValueError(f"models={text!r}: give candidates joined by '+' from {', '.join(OPPONENT_MODELS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"models={text!r} names a candidate twice")
    return names


def parse_prior(text: str, count: int) -> np.ndarray:
    """Prior weights (one per candidate, joined by '+', any positive numbers) as normalised log-probabilities."""
    try:
        weights = [float(part) for part in text.split("+")] if text else [1.0] * count
    except ValueError:
        raise ValueError(f"prior={text!r}: give {count} positive weights joined by '+'") from None
    if len(weights) != count or not all(math.isfinite(w) and w > 0 for w in weights):
        raise ValueError(f"prior={text!r}: give {count} positive weights joined by '+', one per model")
    total = sum(weights)
    return np.array([math.log(w / total) for w in weights], dtype=np.float64)


class Belief:
    """One seat's posterior over the other seats' models through a hand (the Python agent's side)."""

    def __init__(self, n_seats: int, hero: int, candidates: Sequence[str], log_prior: np.ndarray,
                 eps: float) -> None:
        self.hero = hero
        self.eps = eps
        self.candidates = np.array([OPPONENT_MODELS[name] for name in candidates], dtype=np.int64)
        self.log_prior = log_prior
        self.loglik = np.zeros((n_seats, MODEL_COUNT), dtype=np.float64)
        self.models = np.zeros(n_seats, dtype=np.int64)
        self._mirror = Scratch()
        self._look = Scratch()
        self._known = np.zeros(1 + n_seats, dtype=np.float64)
        self._seen = -1  # the deal's decisions read so far; -1 until the mirror is placed

    @property
    def seen(self) -> int:
        """How many of the deal's decisions have been scored (0 before the mirror is placed)."""
        return max(self._seen, 0)

    def observe(self, deal_rows: PositionRows | None, decisions: Sequence[int]) -> None:
        """Score the deal's ``decisions`` not read yet; ``deal_rows`` (the deal before any decision, known once
        phase 2 starts) places the mirror on the first call, and ``None`` means not yet known."""
        if self._seen < 0:
            if deal_rows is None:
                return
            self._mirror.fit(deal_rows)  # the table's cut-off rules, which the deal's rows carry
            self._look.fit(deal_rows)
            start_mirror(deal_rows, self._mirror.position)
            self._seen = 0
        if len(decisions) > self._seen:
            observe_decisions(self._mirror.workspace(), self._look.workspace(), np.asarray(decisions, dtype=np.int64),
                              self._seen, len(decisions), self.hero, self.loglik, self.eps, self._known)
            self._seen = len(decisions)

    def current_models(self) -> np.ndarray:
        """Each seat's most likely model now (the hero's entry is ``maxn``, unused)."""
        most_likely(self.loglik, self.log_prior, self.candidates, len(self.candidates), self.hero, self.models)
        return self.models
