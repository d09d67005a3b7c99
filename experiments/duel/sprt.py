"""A sequential probability ratio test on paired differences: Wald's SPRT under a normal approximation, with the
variance estimated as it goes (a generalised SPRT).

Deal ``i`` of a duel gives one paired difference ``x_i`` (A's mean score in the tested seat minus B's); the test
asks whether their mean ``mu`` is at most ``delta0`` (H0) or at least ``delta1`` (H1). With the ``x_i`` modelled
as normal, the log-likelihood ratio after ``n`` deals of mean ``m`` is
``n (delta1 - delta0) (2 m - delta0 - delta1) / (2 s^2)``, ``s^2`` the sample variance so far, and Wald's bounds
``log((1 - beta) / alpha)`` and ``log(beta / (1 - alpha))`` stop it. The mean difference is reported with the
fixed-sample interval, a guide after a sequential stop. Why the normal approximation holds, what looking in
batches does, the degenerate samples and the interval are in docs/internals.md, ``experiments.duel.sprt``;
docs/comparing.md gives the error rates measured on simulated duels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959964
H0, H1, CONTINUE = "H0", "H1", "continue"


@dataclass(frozen=True)
class Sprt:
    """The test's parameters: H0 ``mu <= delta0``, H1 ``mu >= delta1``, error rates ``alpha`` and ``beta``.

    A bad parameter is one ``ValueError`` line that starts with the parameter's name.
    """

    delta0: float = 0.0
    delta1: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("delta0", "delta1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, not {value!r}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be above 0 and below 0.5, not {getattr(self, name)}")
        if self.delta1 <= self.delta0:
            raise ValueError(f"delta1 must be above delta0 (H1: A better by at least delta1; H0: by at most delta0), "
                             f"not {self.delta1} with delta0 {self.delta0}")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds on the LLR: below the first accept H0, above the second accept H1."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, n: np.ndarray | float, mean: np.ndarray | float, variance: np.ndarray | float) -> np.ndarray:
        """The LLR after ``n`` deals with this mean and sample variance (element-wise; infinite at variance 0 from
        two deals on, 0 for a single deal, which says nothing of the spread)."""
        n, mean, variance = np.asarray(n, float), np.asarray(mean, float), np.asarray(variance, float)
        drift = n * (self.delta1 - self.delta0) * (2 * mean - self.delta0 - self.delta1)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = drift / (2 * variance)
        value = np.where(variance > 0, value, np.where(drift == 0, 0.0, np.copysign(np.inf, drift)))
        return np.where(n >= 2, value, 0.0)

    def decision(self, llr: float) -> str:
        """``H1``, ``H0`` or ``continue`` for an LLR."""
        lower, upper = self.bounds
        return H1 if llr >= upper else H0 if llr <= lower else CONTINUE

    def expected_deals(self, mu: float, sigma: float) -> float:
        """Wald's approximation of the deals the test takes when the differences have mean ``mu`` and standard
        deviation ``sigma`` (looking after every deal, the overshoot ignored).

        Each deal adds ``z = (delta1 - delta0) (2 x - delta0 - delta1) / (2 sigma^2)`` to the LLR, of mean ``d`` and
        variance ``v = (delta1 - delta0)^2 / sigma^2``; the test accepts H0 with probability
        ``L = (e^(h B) - 1) / (e^(h B) - e^(h A))``, ``h = -2 d / v``, and takes ``(L A + (1 - L) B) / d`` deals
        (``-A B / v`` where ``d = 0``, halfway between the hypotheses).
        """
        if not sigma > 0:
            raise ValueError(f"sigma must be above 0, not {sigma}")
        lower, upper = self.bounds
        width = self.delta1 - self.delta0
        d = width * (2 * mu - self.delta0 - self.delta1) / (2 * sigma**2)
        v = width**2 / sigma**2
        if abs(d) < 1e-12 * v:
            return -lower * upper / v
        h = -2 * d / v
        accept_h0 = math.expm1(h * upper) / (math.exp(h * upper) - math.exp(h * lower))
        return (accept_h0 * lower + (1 - accept_h0) * upper) / d


def running_moments(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deals, mean and sample variance (divisor ``n - 1``; 0 for one deal) of every prefix along the last axis.

    Sums are taken of the differences less the first one, so equal differences give a variance of exactly 0.
    """
    diffs = np.asarray(diffs, dtype=np.float64)
    shifted = diffs - diffs[..., :1]
    n = np.arange(1, diffs.shape[-1] + 1, dtype=np.float64)
    total = np.cumsum(shifted, axis=-1)
    squares = np.cumsum(shifted**2, axis=-1)
    mean = total / n
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = np.where(n > 1, (squares - total * mean) / (n - 1), 0.0)
    return n, mean + diffs[..., :1], np.maximum(variance, 0.0)


def first_crossings(llr: np.ndarray, bounds: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Where each row of LLRs (one per look, along the last axis) first leaves the bounds, and which way.

    Returns the look's index (-1 if none) and the decision there: 1 for H1, -1 for H0, 0 for none.
    """
    lower, upper = bounds
    crossed = (llr >= upper) | (llr <= lower)
    hit = crossed.any(axis=-1)
    index = np.where(hit, crossed.argmax(axis=-1), -1)
    at = np.take_along_axis(llr, np.maximum(index, 0)[..., None], axis=-1)[..., 0]
    return index, np.where(hit, np.where(at >= upper, 1, -1), 0)


def interval(n: float, mean: float, variance: float) -> tuple[float, float]:
    """The mean's fixed-sample 95% interval, ``mean +- 1.96 s / sqrt(n)`` (nan for a single deal)."""
    if n < 2:
        return math.nan, math.nan
    half = Z95 * math.sqrt(variance / n)
    return mean - half, mean + half


@dataclass(frozen=True)
class Verdict:
    """Where a sequence of paired differences leaves the test."""

    decision: str  # H0, H1, or continue (no bound crossed at any look so far)
    deals: int  # deals up to the look that decided, or up to the last look
    mean: float
    ci95: tuple[float, float]
    llr: float
    sd: float  # the differences' sample standard deviation


def sequential_test(diffs: Sequence[float] | np.ndarray, test: Sprt, looks: Sequence[int]) -> Verdict:
    """Run ``test`` over ``diffs`` (one per deal, in deal order), looking after each count of deals in ``looks``
    (increasing) that the differences reach: the first look past a bound decides; with none, the last look counts.

    Before the first look the verdict is ``continue`` at 0 deals.
    """
    diffs = np.asarray(diffs, dtype=np.float64)
    reached = np.asarray([look for look in looks if 0 < look <= len(diffs)], dtype=np.int64)
    if len(reached) == 0:
        return Verdict(CONTINUE, 0, math.nan, (math.nan, math.nan), 0.0, math.nan)
    n, mean, variance = (values[reached - 1] for values in running_moments(diffs))
    llr = test.llr(n, mean, variance)
    index, way = first_crossings(llr[None, :], test.bounds)
    at = int(index[0]) if index[0] >= 0 else len(reached) - 1
    decision = {1: H1, -1: H0, 0: CONTINUE}[int(way[0])]
    return Verdict(decision, int(n[at]), float(mean[at]), interval(n[at], mean[at], variance[at]), float(llr[at]),
                   math.sqrt(variance[at]))


UNDECIDED = "undecided"  # no bound crossed by the last deal a duel may play


def signed(value: float, places: int = 3) -> str:
    """A signed number as the duel prints it, or +inf/-inf (the LLR of differences that are all equal)."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.{places}f}"


def _edge(delta: float, first: bool = False) -> str:
    """A difference the test asks about, in words: an edge of 0.05, a deficit of 0.05, none (no edge, said first)."""
    if delta == 0:
        return "no edge" if first else "none"
    return f"an edge of {delta:g}" if delta > 0 else f"a deficit of {-delta:g}"


def _sign(low: float, high: float, decided: bool = True) -> str:
    """What the interval says of the sign of the difference alone (an interval of a single deal says nothing);
    before the test has decided, only where the interval lies, which is a guide and not the test's answer."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "too few deals to tell"
    if not decided:
        where = "below 0" if high < 0 else "above 0" if low > 0 else "across 0"
        return f"the interval lies {where} (a guide, not the test's answer)"
    if high < 0:
        return "A is worse"
    if low > 0:
        return "A is better"
    return "the interval holds 0: no difference either way is shown"


def verdict_words(decision: str, verdict: Verdict, test: Sprt, a: str = "A", b: str = "B",
                  row: str = "hand") -> str:
    """A duel's verdict in plain words: what the test favoured, the LLR against the bound it crossed, and the
    estimate with its interval; for H0 and no decision, what the interval says of the sign. Every printed verdict
    (the duel's, the report's, the docs') is written here, so the words always match the numbers.

    ``decision`` is ``H1``, ``H0``, ``undecided`` or ``continue``; ``row`` the unit a difference is per.
    H1 says the test favours an edge of ``delta1`` over ``delta0``, not that the edge is at least ``delta1``; H0
    that it favours ``delta0`` over ``delta1``, not that A is worse: the interval's sign says that."""
    lower, upper = test.bounds
    low, high = verdict.ci95
    estimate = f"estimate {signed(verdict.mean)} a {row} (95% CI {signed(low)} to {signed(high)})"
    a_is, big = f"A ({a})", f"{test.delta1:g}"
    if decision == H1:
        said = f"{a_is} is better than B ({b})" if test.delta1 > 0 else \
            f"{a_is} is worse than B ({b}) by no more than {-test.delta1:g}"
        note = "" if low > 0 else f": {_sign(low, high)}"
        return (f"H1: {said}: the test favours {_edge(test.delta1)} over {_edge(test.delta0)} "
                f"(LLR {signed(verdict.llr, 2)} ≥ {upper:.2f}); {estimate}{note}")
    if decision == H0:
        said = f"{a_is} is not better than B ({b}) by {big}" if test.delta1 > 0 else \
            f"{a_is} is worse than B ({b}) by more than {-test.delta1:g}"
        return (f"H0: {said}: the test favours {_edge(test.delta0, True)} over {_edge(test.delta1)} "
                f"(LLR {signed(verdict.llr, 2)} ≤ {lower:.2f}); {estimate}: {_sign(low, high)}")
    state = "undecided" if decision == UNDECIDED else "not decided yet"
    return (f"{state}: the test favours neither {_edge(test.delta1)} nor {_edge(test.delta0)} (LLR "
            f"{signed(verdict.llr, 2)} between {lower:.2f} and {upper:+.2f}); {estimate}: {_sign(low, high, False)}")


def test_words(test: Sprt, row: str = "hand") -> str:
    """What the test weighs, in one line: H1 and H0 with their edges, and the error rates."""
    return (f"the test weighs H1, A better by {test.delta1:g} points per {row} or more, against H0, by "
            f"{test.delta0:g} or less (alpha {test.alpha:g}, beta {test.beta:g})")


def llr_against_bounds(llr: float, test: Sprt) -> str:
    """The LLR beside the bound it crossed (``LLR -3.28 ≤ -2.94: H0``), or between its bounds: the progress line's
    words."""
    lower, upper = test.bounds
    decision = test.decision(llr)
    if decision == H1:
        return f"LLR {signed(llr, 2)} ≥ {upper:+.2f}: H1"
    if decision == H0:
        return f"LLR {signed(llr, 2)} ≤ {lower:+.2f}: H0"
    return f"LLR {signed(llr, 2)} in [{lower:+.2f}, {upper:+.2f}]"
