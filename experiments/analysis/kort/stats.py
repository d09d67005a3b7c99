"""Kort's statistics for the notebook and the report, each computed once, here.

Every interval is a 95% one over deal groups, as for the other games
(``experiments.analysis.stats``): matches dealt the same decks in another seating
are one cluster, and so are all their rounds. ``by`` names the columns that split
a table of results: ``("label",)`` (the default) gives one row per table of the
run (its lineup, and its options when they are not the rules' defaults).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.kort.load import KortRun
from experiments.analysis.stats import cluster_mean_ci, proportion_ci
from sim.kort.adapter import RESULTS

BY = ("label",)
HOLDER_SPLITS: dict[str, tuple[str, str]] = {
    "all rounds": ("", ""),
    "trump named": ("trump_13", "false"),
    "trump 13": ("trump_13", "true"),
    "no redeal": ("redealt", "false"),
    "after a redeal": ("redealt", "true"),
}
"""The rounds ``holder_value`` splits the holder's win rate over: (column, value), or all rounds."""


def zero_sum_violations(run: KortRun) -> int:
    """How many matches' seat results do not add up to zero (each seat of the winners +1, of the others -1)."""
    return int((run.seats.groupby("match")["score"].sum() != 0).sum())


def result_shares(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and round result (ordinary, kort, at_kort, …): rounds, the share ending so, 95% CI."""
    rows = []
    for key, group in run.rounds.groupby(list(by), sort=True, observed=True):
        clusters = group["cluster"].to_numpy()
        for result in RESULTS:
            hits = (group["result"] == result).to_numpy()
            share, low, high = proportion_ci(hits, clusters)
            rows.append({**_key(by, key), "result": result, "rounds": len(group), "count": int(hits.sum()),
                         "share": share, "low": low, "high": high})
    return _ordered(pd.DataFrame(rows), run, by)


def holder_value(run: KortRun, by: tuple[str, ...] = BY + ("holder_agents",)) -> pd.DataFrame:
    """The value of holding the trump: per ``by`` group and split of the rounds (``HOLDER_SPLITS``), the share
    of rounds whose wins went to the holder's team (95% CI) and the match wins per round it and the other team got.

    By default the groups are the tables and, within a table of two different teams, which team held the
    trump (``holder_agents``): there a round's result says as much about the teams as about the trump.
    """
    rows = []
    for key, group in run.rounds.groupby(list(by), sort=True, observed=True):
        for split, (column, value) in HOLDER_SPLITS.items():
            part = group if not column else group[group[column] == (value == "true")]
            won = part["holder_won"].to_numpy()
            share, low, high = proportion_ci(won, part["cluster"].to_numpy())
            gained = part["wins"].to_numpy()
            rows.append({**_key(by, key), "split": split, "rounds": len(part), "holder_won": share, "low": low,
                         "high": high, "holder_wins_per_round": float((gained * won).mean()) if len(part) else np.nan,
                         "other_wins_per_round": float((gained * ~won).mean()) if len(part) else np.nan})
    return _ordered(pd.DataFrame(rows), run, by)


def first_holder_value(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: matches and how often the team holding the trump in round 1 won the match (95% CI)."""
    rows = []
    for key, group in run.matches.groupby(list(by), sort=True, observed=True):
        won = (group["winner_team"] == group["first_holder_team"]).to_numpy()
        share, low, high = proportion_ci(won, group["cluster"].to_numpy())
        rows.append({**_key(by, key), "matches": len(group), "first_holder_won": share, "low": low, "high": high})
    return _ordered(pd.DataFrame(rows), run, by)


def redeal_effect(run: KortRun, by: tuple[str, ...] = BY + ("holder_agents",)) -> pd.DataFrame:
    """Per ``by`` group (by default each table and, at a table of two different teams, each holding team): how
    often a round was redealt, and the holder's team's round wins after a redeal and on a first deal, with 95% CIs.
    """
    rows = []
    for key, group in run.rounds.groupby(list(by), sort=True, observed=True):
        redealt = group["redealt"].to_numpy()
        share, low, high = proportion_ci(redealt, group["cluster"].to_numpy())
        row = {**_key(by, key), "rounds": len(group), "redealt_rounds": int(redealt.sum()), "redealt": share,
               "redealt_low": low, "redealt_high": high}
        for name, part in (("redeal", group[redealt]), ("first_deal", group[~redealt])):
            won, won_low, won_high = proportion_ci(part["holder_won"].to_numpy(), part["cluster"].to_numpy())
            row |= {f"holder_won_{name}": won, f"holder_won_{name}_low": won_low,
                    f"holder_won_{name}_high": won_high}
        rows.append(row)
    return _ordered(pd.DataFrame(rows), run, by)


def rounds_per_match(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and number of rounds: matches and their share of the group's matches."""
    counts = run.matches.groupby([*by, "rounds"], observed=True).size().rename("matches").reset_index()
    counts["share"] = counts["matches"] / counts.groupby(list(by), observed=True)["matches"].transform("sum")
    return _ordered(counts, run, by)


def match_length_summary(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: matches, rounds per match (mean with 95% CI, median, most), redeals per match (mean
    with 95% CI) and decisions per match."""
    rows = []
    for key, group in run.matches.groupby(list(by), sort=True, observed=True):
        clusters = group["cluster"].to_numpy()
        mean, half = cluster_mean_ci(group["rounds"].to_numpy(), clusters)
        redeals, redeals_half = cluster_mean_ci(group["redeals"].to_numpy(), clusters)
        rows.append({**_key(by, key), "matches": len(group), "mean_rounds": mean, "ci95": half,
                     "median_rounds": float(group["rounds"].median()), "max_rounds": int(group["rounds"].max()),
                     "mean_redeals": redeals, "redeals_ci95": redeals_half,
                     "mean_decisions": float(group["decisions"].mean())})
    return _ordered(pd.DataFrame(rows), run, by)


def team_results(run: KortRun) -> pd.DataFrame:
    """The ladder of agents as teams: per table and pairing of two different teams (each team's two agents),
    in both directions, the matches they met in, ``team``'s match win rate and mean result (+1 a win, -1 a
    loss) and the share of the rounds it won, with 95% CIs, and its share of the match wins the rounds gave.
    """
    rows = []
    for table, group in run.matches.groupby("table", sort=True):
        rounds = run.rounds[run.rounds["table"] == table]
        pairs = {tuple(sorted(pair)) for pair in zip(group["team0"], group["team1"], strict=True) if pair[0] != pair[1]}
        for first, second in sorted(pairs):
            for team, opponent in ((first, second), (second, first)):
                rows.append(_pairing_row(group, rounds, team, opponent) | {"table": table})
    columns = ["table", "label", "team", "opponent", "matches", "win_rate", "win_low", "win_high", "mean", "ci95",
               "round_wins", "round_wins_low", "round_wins_high", "wins_share"]
    frame = pd.DataFrame(rows, columns=[c for c in columns if c != "label"])
    frame.insert(1, "label", frame["table"].map(run.tables.set_index("table")["label"]))
    return frame


# ----- inside --------------------------------------------------------------------------------------


def _pairing_row(matches: pd.DataFrame, rounds: pd.DataFrame, team: str, opponent: str) -> dict[str, object]:
    """``team`` against ``opponent`` in the matches where they sat as the two teams, either way round."""
    side = np.where((matches["team0"] == team) & (matches["team1"] == opponent), 0,
                    np.where((matches["team1"] == team) & (matches["team0"] == opponent), 1, -1))
    met = matches[side >= 0]
    side = side[side >= 0]
    won = (met["winner_team"].to_numpy() == side)
    clusters = met["cluster"].to_numpy()
    win, win_low, win_high = proportion_ci(won, clusters)
    mean, half = cluster_mean_ci(np.where(won, 1.0, -1.0), clusters)
    side_of_match = pd.Series(side, index=met.index)
    mine = rounds[rounds["match"].isin(met.index)]
    got = mine["result_team"].to_numpy() == side_of_match.loc[mine["match"]].to_numpy()
    share = (got * mine["wins"].to_numpy()).sum() / max(1, mine["wins"].sum())
    per_round = proportion_ci(got, mine["cluster"].to_numpy())
    return {"team": team, "opponent": opponent, "matches": len(met), "win_rate": win, "win_low": win_low,
            "win_high": win_high, "mean": mean, "ci95": half, "round_wins": per_round[0],
            "round_wins_low": per_round[1], "round_wins_high": per_round[2], "wins_share": share}


def _key(by: tuple[str, ...], key: object) -> dict[str, object]:
    return dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))


def _ordered(frame: pd.DataFrame, run: KortRun, by: tuple[str, ...]) -> pd.DataFrame:
    """Labels in the order of the run's tables (so colours match from figure to figure)."""
    if "label" in by and "label" in frame.columns:
        frame["label"] = pd.Categorical(frame["label"], categories=list(dict.fromkeys(run.tables["label"])))
    return frame
