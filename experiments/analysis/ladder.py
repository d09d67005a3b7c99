"""The bot ladder: head-to-head results between agents and a rating for each from whole finishing orders.

Head to head: in every row, every pair of seats held by two different agents is one game between them, won by the
seat ranked higher by the run's ``rank_by`` seat column (a tie counts half to each): "who finished ahead".

Rating: ``openskill``'s Plackett-Luce model (Weng and Lin 2011), which rates a whole finishing order at once, every
row one ranked game between its teams, rated in run order with no drift between rows (``tau = 0``). The interval
is mu ± 2 sigma, the model's own; it does not widen for duplicate deals, so compare it with the clustered score
intervals beside it. The model's settings and the case of an agent at several seats are in docs/internals.md,
``experiments.analysis.ladder``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd
from openskill.models import PlackettLuce

from experiments.analysis.load import Partial, additive
from experiments.analysis.stats import proportion_from_moments
from experiments.runner.moments import grouped_moments, mean_ci
from sim.contract import places_from_values

INTERVAL_SIGMAS = 2.0  # the rating's interval: mu ± 2 sigma
RATING_NAME = "openskill Plackett-Luce rating (mu ± 2 sigma)"
RATING_COLUMNS = ["agent", "rated", "rating", "sigma", "low", "high"]


class Run(Protocol):
    """What the ladder reads of a loaded run (every game's: ``load.LoadedRun`` and its subclasses)."""

    agents: list[str]
    seats: pd.DataFrame  # one row per seat: its row's index (column ``row``), seat, agent, cluster and ``rank_by``
    row: str  # what one row of the run is: "hand" (Knorri), "game" (Knockout Whist), "match" (Kort)
    rank_by: str

    def memo(self, key: str, compute: Callable[[], Any]) -> Any: ...

    def partial(self, partial: Partial) -> Any: ...


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


def _pair_moments(run: Run) -> pd.DataFrame:
    """The cluster moments of every pair of agents' games, results doubled (0, 1, 2) so they are integers."""
    agents, a, b, result, cluster = pair_games(run)
    names = np.asarray(agents, dtype=object)
    games = pd.DataFrame({"agent_a": names[a], "agent_b": names[b], "result": np.rint(2 * result).astype(np.int64),
                          "cluster": cluster})
    return grouped_moments(games, ["agent_a", "agent_b"], "result")


PAIR_MOMENTS = additive("pair games", ["agent_a", "agent_b"], _pair_moments)


def pairwise_results(run: Run) -> pd.DataFrame:
    """For every ordered pair of agents that met: games, share won by ``agent``, both directions.

    ``low`` and ``high`` bound a 95% Wilson interval (on the effective size the duplicate deals leave,
    ``stats.proportion_ci``), which stays inside 0 to 1 and is not empty at a share of 0 or 1;
    ``ci95`` is the normal approximation's half-width.
    """
    moments = run.partial(PAIR_MOMENTS)
    rows = []
    order = {name: i for i, name in enumerate(run.agents)}
    records = sorted(moments.to_dict("records"), key=lambda m: (order[m["agent_a"]], order[m["agent_b"]]))
    for m in records:
        share, half = mean_ci(m, scale=2)
        _, low, high = proportion_from_moments(m, scale=2)
        first, second = m["agent_a"], m["agent_b"]
        for hero, villain, hero_share, hero_low, hero_high in ((first, second, share, low, high),
                                                               (second, first, 1.0 - share, 1.0 - high, 1.0 - low)):
            rows.append({"agent": hero, "opponent": villain, "games": int(m["n"]),
                         "win_share": hero_share, "ci95": half, "low": hero_low, "high": hero_high})
    return pd.DataFrame(rows, columns=["agent", "opponent", "games", "win_share", "ci95", "low", "high"])


def rating_model() -> PlackettLuce:
    """openskill's Plackett-Luce model as the ladder uses it: the default prior, no drift between rows."""
    return PlackettLuce(tau=0.0)


def rate_finishing_orders(agents: Sequence[str], agent: np.ndarray, team: np.ndarray,
                          place: np.ndarray) -> pd.DataFrame:
    """Each agent's openskill Plackett-Luce rating from rows of finishing orders, rated in row order.

    ``agent``, ``team`` and ``place`` are ``[rows, seats]`` int arrays: the agent code (an index into
    ``agents``; -1 for a seat the row does not have), the seat's team and its place (1 first; equal
    places tie). Returns ``RATING_COLUMNS``: rows rated, mu, sigma and mu ± 2 sigma, best first.
    """
    rater = Rater(agents)
    rater.rate(agent, team, place)
    return rater.frame()


class Rater:
    """openskill ratings carried from batch to batch of rows: rating a run chunk by chunk, in run order, gives
    exactly the ratings of all its rows at once."""

    def __init__(self, agents: Sequence[str]) -> None:
        self.agents = list(agents)
        self.model = rating_model()
        self.mu = np.full(len(self.agents), self.model.mu)
        self.sigma = np.full(len(self.agents), self.model.sigma)
        self.rated = np.zeros(len(self.agents), dtype=np.int64)

    def rate(self, agent: np.ndarray, team: np.ndarray, place: np.ndarray) -> None:
        """Rate rows of finishing orders (``rate_finishing_orders``' arrays), one after another."""
        agent, team, place = np.asarray(agent), np.asarray(team), np.asarray(place)
        seated = np.where(agent >= 0, agent, np.iinfo(np.int64).max)
        mixed = np.flatnonzero(seated.min(axis=1, initial=np.iinfo(np.int64).max)
                               != agent.max(axis=1, initial=-1))  # rows of one agent teach nothing: skipped at once
        for codes, teams, places in zip(agent[mixed].tolist(), team[mixed].tolist(), place[mixed].tolist(),
                                        strict=True):
            members: dict[int, list[int]] = {}
            rank: dict[int, int] = {}
            for code, side, at in zip(codes, teams, places, strict=True):
                if code < 0:
                    continue
                if code not in members.setdefault(side, []):
                    members[side].append(code)
                rank[side] = min(rank.get(side, at), at)
            present = {code for codes_of_team in members.values() for code in codes_of_team}
            if len(members) < 2 or len(present) < 2:
                continue  # one team, or one agent against itself: nothing to learn
            sides = sorted(members)
            _rate_row(self.model, self.mu, self.sigma, [members[side] for side in sides],
                      [rank[side] for side in sides])
            self.rated[list(present)] += 1

    def frame(self) -> pd.DataFrame:
        """The ratings so far: ``RATING_COLUMNS``, best first, NaN for an agent never rated."""
        mu, sigma = self.mu, self.sigma
        frame = pd.DataFrame({"agent": self.agents, "rated": self.rated.copy(), "rating": mu.copy(),
                              "sigma": sigma.copy(), "low": mu - INTERVAL_SIGMAS * sigma,
                              "high": mu + INTERVAL_SIGMAS * sigma}, columns=RATING_COLUMNS)
        unrated = frame["rated"] == 0
        frame.loc[unrated, ["rating", "sigma", "low", "high"]] = math.nan
        return frame.sort_values("rating", ascending=False, ignore_index=True, na_position="last")


def _rate_row(model: PlackettLuce, mu: np.ndarray, sigma: np.ndarray, teams: list[list[int]],
              ranks: list[int]) -> None:
    """One ranked row: openskill's update of every team, an agent on several teams getting their sum."""
    before = [[model.rating(mu=float(mu[code]), sigma=float(sigma[code])) for code in members] for members in teams]
    after = model.rate(before, ranks=ranks)
    shift: dict[int, float] = {}
    shrink: dict[int, float] = {}
    for members, new_team in zip(teams, after, strict=True):
        for code, new in zip(members, new_team, strict=True):
            shift[code] = shift.get(code, 0.0) + new.mu - mu[code]
            shrink[code] = shrink.get(code, 0.0) + 1.0 - (new.sigma / sigma[code]) ** 2
    for code, delta in shift.items():
        mu[code] += delta
        sigma[code] *= math.sqrt(max(1.0 - shrink[code], model.kappa))


def ratings(run: Run) -> pd.DataFrame:
    """Each agent's openskill Plackett-Luce rating over the run's rows (``rate_finishing_orders``).

    Seats are ranked by ``run.rank_by`` (higher finished ahead); a ``team`` column of ``run.seats``,
    if there is one, groups partners into one team.
    """
    return run.partial(RATINGS)


def _rate_chunk(rater: Rater, run: Run) -> Rater:
    """Rate a run's (or a chunk's) rows, in order, into ``rater``."""
    seats = run.seats
    code = {name: i for i, name in enumerate(rater.agents)}
    width = int(seats["seat"].max()) + 1 if len(seats) else 0
    rows = int(seats[run.row].max()) + 1 if len(seats) else 0
    agent = np.full((rows, width), -1, dtype=np.int64)
    value = np.full((rows, width), -np.inf)
    team = np.tile(np.arange(width), (rows, 1))
    row, seat = seats[run.row].to_numpy(), seats["seat"].to_numpy()
    agent[row, seat] = seats["agent"].map(code).astype(np.int64).to_numpy()
    value[row, seat] = seats[run.rank_by].to_numpy()
    if "team" in seats.columns:
        team[row, seat] = seats["team"].to_numpy()
    rater.rate(agent, team, places_from_values(value))
    return rater


RATINGS = Partial("ratings", lambda run: Rater(run.agents), _rate_chunk, lambda rater: rater.frame())
