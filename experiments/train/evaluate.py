"""A training's evaluation: the network against ``greedy`` on fixed duplicate deals, as a duel pairs them.

The deals are the same at every evaluation of a training (their seeds come from the training's seed alone), and
each is played as the duel plays a deal (``experiments.runner.plan.duel_design``): the tested seat takes every
rotation round the table, once held by the network and once by ``greedy``, the other seats the same. A deal's
paired difference is the network's mean score per row there minus greedy's; the evaluation reports their mean
with the fixed-sample 95% interval (``experiments.duel.sprt``'s), so points on a learning curve are comparable
within a training and across trainings of the same game and seat count. A training at several seat counts is
evaluated at each, on the same deal seeds, and chooses its best weights by the mean of the counts' scores
(``evaluate_tables``). Choosing the best of many evaluations
on the same deals flatters it (the winner's curse), so each new best is also played on other fixed deals, which
no choice uses (``CONFIRM_STREAM``): that score is the one to believe.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from experiments.duel.play import deal_differences
from experiments.duel.sprt import Z95, interval
from experiments.runner.plan import duel_design
from experiments.runner.routes import play_matches
from experiments.train.tables import EVAL_OTHERS
from sim import games
from sim.rng import derive_seed, derive_seeds

EVAL_STREAM = 0x5EED_E7A1
"""The stream the evaluation deals' seeds are drawn from (apart from the training's own)."""
CONFIRM_STREAM = 0xC0F1_4A11
"""The stream of the deals that confirm a new best: never used to choose weights, so their score is unbiased."""


def evaluate(game: str, n_seats: int, weights: str, seed: int, deals: int, options: Mapping[str, Any],
             opponent: str = "greedy", stream: int = EVAL_STREAM, others: str = EVAL_OTHERS) -> dict[str, Any]:
    """The network in ``weights`` against ``opponent`` on ``deals`` fixed duplicate deals of ``stream``
    (``EVAL_STREAM``, or ``CONFIRM_STREAM``'s other deals), ``others`` at the untested seats: the mean paired
    difference (points per row at the tested seat), its 95% interval, the deals and the rows played."""
    differences, rows = deal_scores(game, n_seats, weights, seed, deals, options, opponent, stream, others)
    return summary(differences, opponent, others, rows)


def evaluate_tables(game: str, seat_counts: Sequence[int], weights: str, seed: int, deals: int,
                    options: Mapping[str, Any], opponent: str = "greedy", stream: int = EVAL_STREAM,
                    others: str = EVAL_OTHERS) -> dict[str, Any]:
    """The network at every seat count it is trained for. One count gives ``evaluate``'s result. Several give each
    count's score under ``by_seats`` and, at the top, the mean of their means with its 95% interval (the counts'
    deals taken as independent: the same seeds deal other hands at another count): a network meant for every
    count is judged at every count, not the first."""
    if len(seat_counts) == 1:
        return evaluate(game, seat_counts[0], weights, seed, deals, options, opponent, stream, others)
    parts = {n: deal_scores(game, n, weights, seed, deals, options, opponent, stream, others) for n in seat_counts}
    by_seats = {}
    for n, (differences, rows) in parts.items():
        part = summary(differences, opponent, others, rows)
        by_seats[str(n)] = {key: part[key] for key in ("deals", "rows", "mean", "low", "high")}
    mean = float(np.mean([part["mean"] for part in by_seats.values()]))
    variance = sum(float(differences.var(ddof=1)) / len(differences) if len(differences) > 1 else math.nan
                   for differences, _ in parts.values()) / len(parts) ** 2
    half = Z95 * math.sqrt(variance)
    return {"opponent": opponent, "others": others, "deals": deals, "rows": sum(rows for _, rows in parts.values()),
            "mean": mean, "low": mean - half, "high": mean + half, "by_seats": by_seats}


def deal_scores(game: str, n_seats: int, weights: str, seed: int, deals: int, options: Mapping[str, Any],
                opponent: str, stream: int, others: str) -> tuple[np.ndarray, int]:
    """Each fixed deal's paired difference (the network's mean score per row at the tested seat minus the
    opponent's) at ``n_seats`` seats, and the rows played."""
    teams = games.adapter(game).seat_teams(n_seats)
    n_others = sum(1 for team in teams if team != teams[0])
    design = duel_design((f"learned:weights={weights}", opponent, *([others] * n_others)), teams)
    deal_seeds = derive_seeds(np.full(deals, derive_seed(seed, stream), dtype=np.uint64),
                              np.arange(deals, dtype=np.uint64))
    match_seeds = np.repeat(deal_seeds, len(design))
    seatings = [seating.seating for seating in design] * deals
    hands = play_matches(game, n_seats, match_seeds, seatings, options=dict(options)).hands
    scores = np.asarray(hands["score"]).reshape(deals * len(design), n_seats)
    arrangement = np.tile(np.arange(len(design)), deals)
    differences = deal_differences(scores, arrangement, np.repeat(np.arange(deals), len(design)), design)
    return differences, len(design) * deals


def summary(differences: np.ndarray, opponent: str, others: str, rows: int) -> dict[str, Any]:
    """The mean of paired differences with its fixed-sample 95% interval (``m +- 1.96 s / sqrt(n)``)."""
    n = len(differences)
    mean = float(differences.mean()) if n else math.nan
    low, high = interval(n, mean, float(differences.var(ddof=1)) if n > 1 else math.nan)
    return {"opponent": opponent, "others": others, "deals": n, "rows": rows, "mean": mean, "low": low, "high": high}
