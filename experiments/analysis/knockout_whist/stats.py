"""Knockout Whist's statistics for the notebook and the report, each computed once, here.

Every interval is a 95% one over deal groups, as for Knorri
(``experiments.analysis.stats``): games dealt the same cards in another seating
are one cluster. ``by`` names the game columns that split a table of results:
``("n_seats",)`` for one run of several tables, ``("variant",)`` or
``("variant", "n_seats")`` for runs of several variants loaded together.

Each statistic is read from sufficient statistics that add up chunk by chunk (``experiments.analysis.stats``
says how); ``report_partials`` lists those the report reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis import stats as shared
from experiments.analysis.knockout_whist.load import GameRun
from experiments.analysis.load import Partial, additive
from experiments.runner.moments import MOMENTS, grouped_moments, mean_ci
from sim.knockout_whist.adapter import END_REASONS
from sim.knockout_whist.encoding import LAST_HAND

BY = ("n_seats",)
_partial = shared.PartialsBySplit()


ZERO_SUM = shared.seat_zero_sum("game")


def zero_sum_violations(run: GameRun) -> int:
    """How many games' scores do not add up to zero (the rulings make every game zero-sum)."""
    return shared.bad_count(run, ZERO_SUM)


def _seat_wins(by: tuple[str, ...]) -> Partial:
    keys = list(dict.fromkeys([*by, "seat", "n_seats"]))
    return additive(f"seat wins by {', '.join(by)}", keys, lambda run: grouped_moments(
        shared.plain_keys(run.seats, keys).assign(won=run.seats["won"].to_numpy()), keys, "won"))


def seat_win_rates(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and seat (0 deals hand 1, 1 leads it): games, wins, win rate with 95% CI, and 1/seats."""
    moments = run.partial(_partial("seat wins", by, _seat_wins))
    rows = []
    for key, group in moments.groupby([*by, "seat"], sort=True):
        m = group[list(MOMENTS)].sum()
        share, low, high = shared.proportion_from_moments(m)
        rows.append({**dict(zip([*by, "seat"], key, strict=True)), "games": int(m["n"]), "wins": int(m["total"]),
                     "win_rate": share, "low": low, "high": high, "fair": 1.0 / group["n_seats"].iloc[0]})
    return _renamed(pd.DataFrame(rows), run, [*by, "seat"])


def _length_counts(by: tuple[str, ...]) -> Partial:
    return shared.length_counts(by, "game lengths", lambda run: run.games, "hands_played", "games")


def game_lengths(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and hands played (1 to 7): games and their share of the group's games."""
    counts = run.partial(_partial("game lengths", by, _length_counts))
    return _renamed(shared.length_shares(counts, by, "hands_played", "games"), run, [*by, "hands_played"])


def _length_moments(by: tuple[str, ...]) -> Partial:
    def compute(run: GameRun) -> pd.DataFrame:
        games = run.games
        values = {"hands": games["hands_played"].to_numpy()}
        values |= {reason: (games["end_reason"] == reason).to_numpy() for reason in END_REASONS}
        return shared.tagged_moments(games, by, values, "measure")

    return additive(f"game length moments by {', '.join(by)}", [*by, "measure"], compute)


def game_length_summary(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: games, hands played (mean with 95% CI, median) and the share of each way a game ends."""
    moments = shared.by_keys(run.partial(_partial("game length moments", by, _length_moments)), [*by, "measure"])
    counts = run.partial(_partial("game lengths", by, _length_counts))
    rows = []
    for key, group in counts.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        group = group.sort_values("hands_played")
        lengths, games = group["hands_played"].to_numpy(np.int64), group["games"].to_numpy(np.int64)
        mean, half = mean_ci(moments[(*key, "hands")])
        row = {**dict(zip(by, key, strict=True)), "games": int(games.sum()), "mean_hands": mean, "ci95": half,
               "median_hands": shared.histogram_percentile(lengths, games, 50),
               "all_7_hands": float(games[lengths == LAST_HAND].sum() / games.sum())}
        for reason in END_REASONS:
            share, low, high = shared.proportion_from_moments(moments[(*key, reason)])
            row |= {reason: share, f"{reason}_low": low, f"{reason}_high": high}
        rows.append(row)
    return _renamed(pd.DataFrame(rows), run, list(by))


def _dog_moments(by: tuple[str, ...]) -> Partial:
    def compute(run: GameRun) -> pd.DataFrame:
        games = run.games
        count = games["dogs_given"].to_numpy().astype(np.int64)
        parts = [shared.tagged_moments(games, by, {"given": count > 0, "per_game": count}, "measure")]
        # one row per dog: saved or not, from each game's counts (the games table says how many were saved)
        saved = np.concatenate([np.arange(n) < s for n, s in zip(count, games["dogs_saved"], strict=True)]
                               or [np.zeros(0, dtype=bool)])
        dogs = shared.plain_keys(games, by).loc[games.index.repeat(count)]
        parts.append(shared.tagged_moments(dogs, by, {"saved": saved}, "measure"))
        mine = run.seats[run.seats["dog"]]
        parts.append(shared.tagged_moments(mine, by, {"won": mine["won"].to_numpy()}, "measure"))
        return shared.stacked(parts)

    return additive(f"dog moments by {', '.join(by)}", [*by, "measure"], compute)


def dog_summary(run: GameRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: games with a dog's life given, dogs per game, dogs saved and dogs that went on to win.

    ``given``: share of games in which some seat got a dog's life. ``saved``:
    share of dogs whose one card took a trick (so they played on). ``won``:
    share of dogs that won the game. Each with its 95% CI; NaN where no dog was given.
    """
    moments = run.partial(_partial("dog moments", by, _dog_moments))
    found = shared.by_keys(moments, [*by, "measure"])
    rows = []
    for _, group in moments[moments["measure"] == "given"].iterrows():
        key = tuple(group[name] for name in by)
        given = shared.proportion_from_moments(group)
        per_game, per_game_half = mean_ci(found[(*key, "per_game")])
        saved = shared.proportion_from_moments(found.get((*key, "saved"), shared.ZERO_MOMENTS))
        won = shared.proportion_from_moments(found.get((*key, "won"), shared.ZERO_MOMENTS))
        rows.append({**dict(zip(by, key, strict=True)), "games": int(group["n"]), "given": given[0],
                     "given_low": given[1], "given_high": given[2], "dogs_per_game": per_game,
                     "dogs_per_game_ci95": per_game_half, "dogs": int(found[(*key, "per_game")]["total"]),
                     "saved": saved[0], "saved_low": saved[1], "saved_high": saved[2],
                     "won": won[0], "won_low": won[1], "won_high": won[2]})
    return _renamed(pd.DataFrame(rows), run, list(by))


def _agent_moments(keys: tuple[str, ...]) -> Partial:
    groups = list(dict.fromkeys([*keys, "n_seats"]))

    def compute(run: GameRun) -> pd.DataFrame:
        seats = run.seats
        frame = shared.tagged_moments(seats, groups,
                                      {"score": seats["score"].to_numpy(), "won": seats["won"].to_numpy()}, "measure")
        places = shared.grouped_sums(seats, groups, ["place"]).assign(measure="place")
        return shared.with_sums(frame, places, [*groups, "measure"])

    return additive(f"agent results by {', '.join(keys)}", [*groups, "measure"], compute)


def agent_results(run: GameRun, per_table: bool = True) -> pd.DataFrame:
    """Per table (or per ``by`` seat count) and agent: seat-games, mean score and win rate with 95% CIs, mean place.

    The columns ``table``, ``seats``, ``label``, ``agent``, ``mean``, ``ci95`` are those
    ``figures.ladder_means_figure`` draws (mean score: seats - 1 for a win, -1 otherwise).
    """
    keys = ("table", "agent") if per_table else ("n_seats", "agent")
    groups = list(dict.fromkeys([*keys, "n_seats"]))
    moments = run.partial(_partial("agent results", keys, _agent_moments))
    found = shared.by_keys(moments, [*groups, "measure"])
    rows = []
    for _, m in moments[moments["measure"] == "score"].sort_values(list(keys), kind="stable").iterrows():
        key = tuple(m[name] for name in groups)
        mean, half = mean_ci(m)
        win, win_low, win_high = shared.proportion_from_moments(found[(*key, "won")])
        place = found[(*key, "place")]
        rows.append({**{name: m[name] for name in keys}, "seats": int(m["n_seats"]), "seat_games": int(m["n"]),
                     "mean": mean, "ci95": half, "win_rate": win, "win_low": win_low, "win_high": win_high,
                     "mean_place": int(place["place"]) / int(m["n"])})
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame = frame.astype({keys[0]: np.int64})
    if per_table and not frame.empty:
        frame["label"] = frame["table"].map(run.tables.set_index("table")["label"])
    return frame.drop(columns=["n_seats"], errors="ignore")


def report_partials() -> list[Partial]:
    """Every partial the report reads (one run, split by seat count): what ``stream.stream_run`` gathers."""
    from experiments.analysis import ladder

    return [ZERO_SUM, _partial("seat wins", BY, _seat_wins), _partial("game lengths", BY, _length_counts),
            _partial("game length moments", BY, _length_moments), _partial("dog moments", BY, _dog_moments),
            _partial("agent results", ("table", "agent"), _agent_moments), ladder.PAIR_MOMENTS, ladder.RATINGS]


def variant_partials(by: tuple[str, ...] = ("variant",)) -> list[Partial]:
    """The partials of the statistics split by ``by`` (the variant, by default) that add up from run to run:
    what ``stream.stream_runs`` gathers for runs of several variants read together."""
    return [ZERO_SUM, _partial("seat wins", by, _seat_wins), _partial("game lengths", by, _length_counts),
            _partial("game length moments", by, _length_moments), _partial("dog moments", by, _dog_moments)]


# ----- inside --------------------------------------------------------------------------------------


def _renamed(frame: pd.DataFrame, run: GameRun, keys: list[str]) -> pd.DataFrame:
    """Rows in the order of ``keys`` (variants in the order of the runs, so colours match from figure to figure),
    ``n_seats`` as ``seats``."""
    if frame.empty:
        return frame
    if "variant" in frame.columns:
        frame["variant"] = pd.Categorical(frame["variant"], categories=run.variants)
    for key in keys:
        if key != "variant":
            frame[key] = frame[key].astype(np.int64)
    frame = frame.sort_values(keys, kind="stable", ignore_index=True)
    return frame.rename(columns={"n_seats": "seats"})
