"""The bot ladder: head-to-head results between agents and a Bradley-Terry rating for each.

Head to head: in every hand, every pair of seats held by two different agents
is one game between them, won by the seat ranked higher by the run's
``rank_by`` seat column (a tie counts half to each). For Knorri that is the
score, which ranks the seats by when they went out; for Knockout Whist it is
``beaten``, the seats that went out before this one: so this is "who finished
ahead" in both games.

Rating: the Bradley-Terry model says agent ``a`` finishes ahead of agent ``b``
with probability ``p_a / (p_a + p_b)``. The strengths ``p`` are fitted by
maximum likelihood with Hunter's MM iteration (Hunter 2004, "MM algorithms
for generalized Bradley-Terry models"):

    p_a <- W_a / sum_b N_ab / (p_a + p_b)

where ``W_a`` is a's wins and ``N_ab`` the games between a and b. Every pair
that met also gets one pseudo-game split half and half (a weak prior that
keeps the fit finite when one agent never loses to another). The rating is on
the Elo scale, ``400 log10 p``, with ``random`` at 0 when it played (else the
mean at 0): 400 points mean 10:1 odds of finishing ahead. The 95% interval
comes from a bootstrap over deal groups (Poisson weights), so duplicate deals
are resampled whole.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import pandas as pd

from experiments.analysis.stats import cluster_mean_ci, proportion_ci

ANCHOR = "random"
ELO_SCALE = 400.0 / math.log(10.0)


class Run(Protocol):
    """What the ladder reads of a loaded run (Knorri's ``load.Run``, Knockout Whist's ``GameRun``)."""

    agents: list[str]
    seats: pd.DataFrame  # one row per seat: its row's index (column ``row``), seat, agent, cluster and ``rank_by``
    row: str  # what one row of the run is: "hand" (Knorri) or "game" (Knockout Whist)
    rank_by: str

    def memo(self, key: str, compute: Callable[[], Any]) -> Any: ...


def pair_games(run: Run) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every game between two different agents in one hand: (agents, a, b, a's result, cluster).

    ``a`` and ``b`` index ``agents``; the result is 1 if a's seat ranked higher
    (``run.rank_by``: the score for Knorri), 0.5 for equal ranks, 0 otherwise; each unordered
    seat pair appears once, with ``a < b``.
    """
    agents = run.agents
    code = {name: i for i, name in enumerate(agents)}
    seats = run.seats
    width = int(seats["seat"].max()) + 1
    hands = int(seats[run.row].max()) + 1
    agent = np.full((hands, width), -1, dtype=np.int64)
    score = np.zeros((hands, width), dtype=np.int64)
    rows, cols = seats[run.row].to_numpy(), seats["seat"].to_numpy()
    agent[rows, cols] = seats["agent"].map(code).astype(np.int64).to_numpy()
    score[rows, cols] = seats[run.rank_by].to_numpy()
    cluster_of_hand = np.zeros(hands, dtype=np.int64)
    cluster_of_hand[rows] = seats["cluster"].to_numpy()
    parts = []
    for i, j in itertools.combinations(range(width), 2):
        ai, aj = agent[:, i], agent[:, j]
        meet = np.flatnonzero((ai >= 0) & (aj >= 0) & (ai != aj))
        if len(meet) == 0:
            continue
        si, sj = score[meet, i], score[meet, j]
        result_i = np.where(si > sj, 1.0, np.where(si == sj, 0.5, 0.0))
        swap = ai[meet] > aj[meet]
        a = np.where(swap, aj[meet], ai[meet])
        b = np.where(swap, ai[meet], aj[meet])
        result = np.where(swap, 1.0 - result_i, result_i)
        parts.append((a, b, result, cluster_of_hand[meet]))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return agents, empty, empty, np.zeros(0), empty
    a, b, result, cluster = (np.concatenate(p) for p in zip(*parts, strict=True))
    return agents, a, b, result, cluster


def pairwise_results(run: Run) -> pd.DataFrame:
    """For every ordered pair of agents that met: games, share won by ``agent``, both directions.

    ``low`` and ``high`` bound a 95% Wilson interval (on the effective size the duplicate deals leave,
    ``stats.proportion_ci``), which stays inside 0 to 1 and is not empty at a share of 0 or 1;
    ``ci95`` is the normal approximation's half-width.
    """
    agents, a, b, result, cluster = run.memo("pair_games", lambda: pair_games(run))
    rows = []
    for first, second in itertools.combinations(range(len(agents)), 2):
        mask = (a == first) & (b == second)
        if not mask.any():
            continue
        share, half = cluster_mean_ci(result[mask], cluster[mask])
        _, low, high = proportion_ci(result[mask], cluster[mask])
        for hero, villain, hero_share, hero_low, hero_high in ((first, second, share, low, high),
                                                               (second, first, 1.0 - share, 1.0 - high, 1.0 - low)):
            rows.append({"agent": agents[hero], "opponent": agents[villain], "games": int(mask.sum()),
                         "win_share": hero_share, "ci95": half, "low": hero_low, "high": hero_high})
    return pd.DataFrame(rows, columns=["agent", "opponent", "games", "win_share", "ci95", "low", "high"])


def win_matrix(n_agents: int, a: np.ndarray, b: np.ndarray, a_wins: np.ndarray, games: np.ndarray,
               weights: np.ndarray | None = None) -> np.ndarray:
    """``W[x, y]``: (weighted) games agent x won against y, a tie counting half.

    Row ``i`` says that ``a[i]`` won ``a_wins[i]`` of ``games[i]`` games against ``b[i]``.
    """
    weights = np.ones(len(a)) if weights is None else weights
    index = a * n_agents + b
    won = np.bincount(index, weights=weights * a_wins, minlength=n_agents * n_agents)
    lost = np.bincount(index, weights=weights * (games - a_wins), minlength=n_agents * n_agents)
    return won.reshape(n_agents, n_agents) + lost.reshape(n_agents, n_agents).T


def bradley_terry(wins: np.ndarray, prior_games: float = 1.0, iterations: int = 10_000,
                  tolerance: float = 1e-10) -> np.ndarray:
    """Bradley-Terry log-strengths (natural log, mean 0) from a win matrix, by Hunter's MM iteration.

    ``wins[x, y]`` is how often x beat y. Each pair that met gets ``prior_games``
    extra games split evenly. Agents must form one connected comparison graph
    (see ``connected_agents``); strengths of agents that met nobody are NaN.
    """
    wins = np.asarray(wins, dtype=np.float64).copy()
    games = wins + wins.T
    met = games > 0
    wins += np.where(met, prior_games / 2.0, 0.0)
    games = wins + wins.T
    played = met.any(axis=1)
    if not played.any():
        return np.full(len(wins), np.nan)
    strength = np.where(played, 1.0, np.nan)
    total_wins = wins.sum(axis=1)
    for _ in range(iterations):
        p = np.where(played, strength, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            pair = np.where(met, games / (p[:, None] + p[None, :]), 0.0)
            updated = np.where(played, total_wins / pair.sum(axis=1), np.nan)
        updated /= math.exp(np.nanmean(np.log(updated)))
        change = np.nanmax(np.abs(np.log(updated) - np.log(strength)))
        strength = updated
        if change < tolerance:
            break
    return np.log(strength)


def connected_agents(wins: np.ndarray) -> np.ndarray:
    """The largest set of agents linked by games (directly or through others): a bool mask."""
    games = (wins + wins.T) > 0
    n = len(games)
    seen = np.zeros(n, dtype=bool)
    best = np.zeros(n, dtype=bool)
    for start in range(n):
        if seen[start] or not games[start].any():
            continue
        component = np.zeros(n, dtype=bool)
        frontier = [start]
        component[start] = True
        while frontier:
            node = frontier.pop()
            for other in np.flatnonzero(games[node] & ~component):
                component[other] = True
                frontier.append(int(other))
        seen |= component
        if component.sum() > best.sum():
            best = component
    return best


def ratings(run: Run, bootstrap: int = 200, seed: int = 0) -> pd.DataFrame:
    """Each agent's Bradley-Terry rating (Elo scale) with a 95% bootstrap interval over deal groups.

    Agents outside the largest group that played each other, or that met no
    other agent, get no rating (NaN) and are listed with ``games`` 0 or their count.
    """
    return run.memo(f"ratings-{bootstrap}-{seed}", lambda: _ratings(run, bootstrap, seed))


def _ratings(run: Run, bootstrap: int, seed: int) -> pd.DataFrame:
    agents, a, b, result, cluster = run.memo("pair_games", lambda: pair_games(run))
    n = len(agents)
    columns = ["agent", "games", "rating", "low", "high"]
    if n < 2 or len(a) == 0:
        return pd.DataFrame([{"agent": name, "games": 0, "rating": math.nan, "low": math.nan, "high": math.nan}
                             for name in agents], columns=columns)
    # One row per (deal group, pair of agents): the bootstrap reweights deal groups, never single games.
    key = (cluster * n + a) * n + b
    unique, row = np.unique(key, return_inverse=True)
    a_wins = np.bincount(row, weights=result)
    games = np.bincount(row).astype(np.float64)
    a, b, cluster = (unique // n) % n, unique % n, unique // (n * n)
    wins = win_matrix(n, a, b, a_wins, games)
    keep = connected_agents(wins)
    anchor = agents.index(ANCHOR) if ANCHOR in agents and keep[agents.index(ANCHOR)] else None

    def fit(matrix: np.ndarray) -> np.ndarray:
        sub = matrix[np.ix_(keep, keep)]
        log_strength = np.full(n, np.nan)
        log_strength[keep] = bradley_terry(sub)
        zero = log_strength[anchor] if anchor is not None else np.nanmean(log_strength)
        return ELO_SCALE * (log_strength - zero)

    point = fit(wins)
    rng = np.random.default_rng(seed)
    _, dense = np.unique(cluster, return_inverse=True)
    draws = np.empty((bootstrap, n))
    for k in range(bootstrap):
        weights = rng.poisson(1.0, dense.max() + 1)[dense].astype(np.float64)
        draws[k] = fit(win_matrix(n, a, b, a_wins, games, weights))
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    for agent in range(n):
        finite = draws[:, agent][np.isfinite(draws[:, agent])]
        if len(finite):
            low[agent], high[agent] = np.percentile(finite, [2.5, 97.5])
    played = np.bincount(a, weights=games, minlength=n) + np.bincount(b, weights=games, minlength=n)
    frame = pd.DataFrame({"agent": agents, "games": played.astype(np.int64), "rating": point, "low": low, "high": high},
                         columns=columns)
    return frame.sort_values("rating", ascending=False, ignore_index=True, na_position="last")


def predicted_share(rating_a: float, rating_b: float) -> float:
    """The Bradley-Terry chance that an agent rated ``rating_a`` finishes ahead of one rated ``rating_b``."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))
