"""Knockout Whist's statistics for the notebook and the report, each computed once, here.

Every interval is a 95% one over deal groups, as for Knorri
(``experiments.analysis.stats``): games dealt the same cards in another seating
are one cluster. ``by`` names the game columns that split a table of results:
``("n_seats",)`` for one run of several tables, ``("variant",)`` or
``("variant", "n_seats")`` for runs of several variants loaded together.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.knockout_whist.load import GameRun
from experiments.analysis.stats import cluster_mean_ci, proportion_ci
from sim.knockout_whist.adapter import END_REASONS
from sim.knockout_whist.encoding import LAST_HAND

BY = ("n_seats",)


def zero_sum_violations(run: GameRun) -> int:
    """How many games' scores do not add up to zero (the rulings make every game zero-sum)."""
    return int((run.seats.groupby("game")["score"].sum() != 0).sum())


def seat_win_rates(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and seat (0 deals hand 1, 1 leads it): games, wins, win rate with 95% CI, and 1/seats."""
    rows = []
    for key, group in run.seats.groupby([*by, "seat"], sort=True, observed=True):
        share, low, high = proportion_ci(group["won"].to_numpy(), group["cluster"].to_numpy())
        rows.append({**dict(zip([*by, "seat"], key, strict=True)), "games": len(group), "wins": int(group["won"].sum()),
                     "win_rate": share, "low": low, "high": high, "fair": 1.0 / group["n_seats"].iloc[0]})
    return _renamed(pd.DataFrame(rows), run)


def game_lengths(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and hands played (1 to 7): games and their share of the group's games."""
    counts = run.games.groupby([*by, "hands_played"], observed=True).size().rename("games").reset_index()
    counts["share"] = counts["games"] / counts.groupby(list(by), observed=True)["games"].transform("sum")
    return _renamed(counts, run)


def game_length_summary(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: games, hands played (mean with 95% CI, median) and the share of each way a game ends."""
    rows = []
    for key, group in run.games.groupby(list(by), sort=True, observed=True):
        clusters = group["cluster"].to_numpy()
        mean, half = cluster_mean_ci(group["hands_played"].to_numpy(), clusters)
        row = {**_key(by, key), "games": len(group), "mean_hands": mean, "ci95": half,
               "median_hands": float(group["hands_played"].median()),
               "all_7_hands": float((group["hands_played"] == LAST_HAND).mean())}
        for reason in END_REASONS:
            share, low, high = proportion_ci((group["end_reason"] == reason).to_numpy(), clusters)
            row |= {reason: share, f"{reason}_low": low, f"{reason}_high": high}
        rows.append(row)
    return _renamed(pd.DataFrame(rows), run)


def dog_summary(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: games with a dog's life given, dogs per game, dogs saved and dogs that went on to win.

    ``given``: share of games in which some seat got a dog's life. ``saved``:
    share of dogs whose one card took a trick (so they played on). ``won``:
    share of dogs that won the game. Each with its 95% CI; NaN where no dog was given.
    """
    rows = []
    dogs = run.seats[run.seats["dog"]]
    for key, group in run.games.groupby(list(by), sort=True, observed=True):
        clusters = group["cluster"].to_numpy()
        given, given_low, given_high = proportion_ci((group["dogs_given"] > 0).to_numpy(), clusters)
        per_game, per_game_half = cluster_mean_ci(group["dogs_given"].to_numpy(), clusters)
        # one row per dog: saved or not, from each game's counts (the games table says how many were saved)
        count = group["dogs_given"].to_numpy()
        saved_flags = np.concatenate([np.arange(n) < s for n, s in zip(count, group["dogs_saved"], strict=True)]
                                     or [np.zeros(0, dtype=bool)])
        saved = proportion_ci(saved_flags, np.repeat(clusters, count))
        mine = dogs[dogs["game"].isin(group.index)]
        won = proportion_ci(mine["won"].to_numpy(), mine["cluster"].to_numpy())
        rows.append({**_key(by, key), "games": len(group), "given": given, "given_low": given_low,
                     "given_high": given_high, "dogs_per_game": per_game, "dogs_per_game_ci95": per_game_half,
                     "dogs": int(count.sum()), "saved": saved[0], "saved_low": saved[1], "saved_high": saved[2],
                     "won": won[0], "won_low": won[1], "won_high": won[2]})
    return _renamed(pd.DataFrame(rows), run)


def agent_results(run: GameRun, per_table: bool = True) -> pd.DataFrame:
    """Per table (or per ``by`` seat count) and agent: seat-games, mean score and win rate with 95% CIs, mean place.

    The columns ``table``, ``seats``, ``label``, ``agent``, ``mean``, ``ci95`` are those
    ``figures.ladder_means_figure`` draws (mean score: seats - 1 for a win, -1 otherwise).
    """
    keys = ["table", "agent"] if per_table else ["n_seats", "agent"]
    rows = []
    for key, group in run.seats.groupby(keys, sort=True, observed=True):
        clusters = group["cluster"].to_numpy()
        mean, half = cluster_mean_ci(group["score"].to_numpy(), clusters)
        win, win_low, win_high = proportion_ci(group["won"].to_numpy(), clusters)
        rows.append({**dict(zip(keys, key, strict=True)), "seats": int(group["n_seats"].iloc[0]),
                     "seat_games": len(group), "mean": mean, "ci95": half, "win_rate": win, "win_low": win_low,
                     "win_high": win_high, "mean_place": float(group["place"].mean())})
    frame = pd.DataFrame(rows)
    if per_table and not frame.empty:
        frame["label"] = frame["table"].map(run.tables.set_index("table")["label"])
    return frame.drop(columns=["n_seats"], errors="ignore")


# ----- inside --------------------------------------------------------------------------------------


def _key(by: tuple[str, ...], key: object) -> dict[str, object]:
    return dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))


def _renamed(frame: pd.DataFrame, run: GameRun) -> pd.DataFrame:
    """``n_seats`` as ``seats``, and variants in the order of the runs (so colours match from figure to figure)."""
    if "variant" in frame.columns:
        frame["variant"] = pd.Categorical(frame["variant"], categories=run.variants)
    return frame.rename(columns={"n_seats": "seats"})
