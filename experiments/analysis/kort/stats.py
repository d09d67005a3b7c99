"""Kort's statistics for the notebook and the report, each computed once, here.

Every interval is a 95% one over deal groups, as for the other games
(``experiments.analysis.stats``): matches dealt the same decks in another seating
are one cluster, and so are all their rounds. ``by`` names the columns that split
a table of results: ``("label",)`` (the default) gives one row per table of the
run (its lineup, and its options when they are not the rules' defaults).

Each statistic is read from sufficient statistics that add up chunk by chunk (``experiments.analysis.stats``
says how); ``report_partials`` lists those the report reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis import stats as shared
from experiments.analysis.kort.load import KortRun
from experiments.analysis.load import Partial, additive
from experiments.runner.moments import mean_ci
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

_partial = shared.PartialsBySplit()


ZERO_SUM = shared.seat_zero_sum("match")
ROUND_COUNT = additive("round count", [], lambda run: pd.DataFrame({"rounds": [len(run.rounds)]}))


def zero_sum_violations(run: KortRun) -> int:
    """How many matches' seat results do not add up to zero (each seat of the winners +1, of the others -1)."""
    return shared.bad_count(run, ZERO_SUM)


def round_count(run: KortRun) -> int:
    """How many rounds the run's matches played."""
    frame = run.partial(ROUND_COUNT)
    return int(frame["rounds"].sum()) if not frame.empty else 0


def _result_moments(by: tuple[str, ...]) -> Partial:
    return additive(f"round results by {', '.join(by)}", [*by, "result"], lambda run: shared.tagged_moments(
        run.rounds, by, {result: (run.rounds["result"] == result).to_numpy() for result in RESULTS}, "result"))


def result_shares(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and round result (ordinary, kort, at_kort, …): rounds, the share ending so, 95% CI."""
    moments = run.partial(_partial("round results", by, _result_moments))
    found = shared.by_keys(moments, [*by, "result"])
    rows = []
    for key in _groups(moments, by, run):
        for result in RESULTS:
            m = found[(*key, result)]
            share, low, high = shared.proportion_from_moments(m)
            rows.append({**dict(zip(by, key, strict=True)), "result": result, "rounds": int(m["n"]),
                         "count": int(m["total"]), "share": share, "low": low, "high": high})
    return _ordered(pd.DataFrame(rows), run, by)


def _holder_moments(by: tuple[str, ...]) -> Partial:
    keys = [*by, "split"]

    def compute(run: KortRun) -> pd.DataFrame:
        parts = []
        for split, (column, value) in HOLDER_SPLITS.items():
            part = run.rounds if not column else run.rounds[run.rounds[column] == (value == "true")]
            won = part["holder_won"].to_numpy()
            gained = part["wins"].to_numpy().astype(np.int64)
            moments = shared.tagged_moments(part, by, {split: won}, "split")
            sums = shared.grouped_sums(part.assign(holder_wins=gained * won, other_wins=gained * ~won), by,
                                       ["holder_wins", "other_wins"]).assign(split=split)
            parts.append(shared.with_sums(moments, sums, keys))
        return shared.stacked(parts)

    return additive(f"holder value by {', '.join(by)}", keys, compute)


def holder_value(run: KortRun, by: tuple[str, ...] = BY + ("holder_agents",)) -> pd.DataFrame:
    """The value of holding the trump: per ``by`` group and split of the rounds (``HOLDER_SPLITS``), the share
    of rounds whose wins went to the holder's team (95% CI) and the match wins per round it and the other team got.

    By default the groups are the tables and, within a table of two different teams, which team held the
    trump (``holder_agents``): there a round's result says as much about the teams as about the trump.
    """
    moments = run.partial(_partial("holder value", by, _holder_moments))
    found = shared.by_keys(moments, [*by, "split"])
    rows = []
    for key in _groups(moments[moments["split"] == "all rounds"], by, run):
        for split in HOLDER_SPLITS:
            m = found.get((*key, split), {**shared.ZERO_MOMENTS, "holder_wins": 0, "other_wins": 0})
            share, low, high = shared.proportion_from_moments(m)
            n = int(m["n"])
            rows.append({**dict(zip(by, key, strict=True)), "split": split, "rounds": n, "holder_won": share,
                         "low": low, "high": high,
                         "holder_wins_per_round": int(m["holder_wins"]) / n if n else np.nan,
                         "other_wins_per_round": int(m["other_wins"]) / n if n else np.nan})
    return _ordered(pd.DataFrame(rows), run, by)


def _first_holder_moments(by: tuple[str, ...]) -> Partial:
    return additive(f"first holder by {', '.join(by)}", [*by, "measure"], lambda run: shared.tagged_moments(
        run.matches, by, {"won": (run.matches["winner_team"] == run.matches["first_holder_team"]).to_numpy()},
        "measure"))


def first_holder_value(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: matches and how often the team holding the trump in round 1 won the match (95% CI)."""
    moments = run.partial(_partial("first holder", by, _first_holder_moments))
    found = shared.by_keys(moments, [*by, "measure"])
    rows = []
    for key in _groups(moments, by, run):
        m = found[(*key, "won")]
        share, low, high = shared.proportion_from_moments(m)
        rows.append({**dict(zip(by, key, strict=True)), "matches": int(m["n"]), "first_holder_won": share,
                     "low": low, "high": high})
    return _ordered(pd.DataFrame(rows), run, by)


def _redeal_moments(by: tuple[str, ...]) -> Partial:
    def compute(run: KortRun) -> pd.DataFrame:
        rounds = run.rounds
        redealt = rounds["redealt"].to_numpy()
        holder_won = rounds["holder_won"].to_numpy()
        parts = [shared.tagged_moments(rounds, by, {"redealt": redealt}, "measure"),
                 shared.tagged_moments(rounds[redealt], by, {"redeal": holder_won[redealt]}, "measure"),
                 shared.tagged_moments(rounds[~redealt], by, {"first_deal": holder_won[~redealt]}, "measure")]
        return shared.stacked(parts)

    return additive(f"redeals by {', '.join(by)}", [*by, "measure"], compute)


def redeal_effect(run: KortRun, by: tuple[str, ...] = BY + ("holder_agents",)) -> pd.DataFrame:
    """Per ``by`` group (by default each table and, at a table of two different teams, each holding team): how
    often a round was redealt, and the holder's team's round wins after a redeal and on a first deal, with 95% CIs.
    """
    moments = run.partial(_partial("redeals", by, _redeal_moments))
    found = shared.by_keys(moments, [*by, "measure"])
    rows = []
    for key in _groups(moments[moments["measure"] == "redealt"], by, run):
        m = found[(*key, "redealt")]
        share, low, high = shared.proportion_from_moments(m)
        row = {**dict(zip(by, key, strict=True)), "rounds": int(m["n"]), "redealt_rounds": int(m["total"]),
               "redealt": share, "redealt_low": low, "redealt_high": high}
        for name in ("redeal", "first_deal"):
            won, won_low, won_high = shared.proportion_from_moments(found.get((*key, name), shared.ZERO_MOMENTS))
            row |= {f"holder_won_{name}": won, f"holder_won_{name}_low": won_low,
                    f"holder_won_{name}_high": won_high}
        rows.append(row)
    return _ordered(pd.DataFrame(rows), run, by)


def _round_counts(by: tuple[str, ...]) -> Partial:
    return shared.length_counts(by, "rounds per match", lambda run: run.matches, "rounds", "matches")


def rounds_per_match(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group and number of rounds: matches and their share of the group's matches."""
    counts = run.partial(_partial("rounds per match", by, _round_counts))
    return _ordered(shared.length_shares(counts, by, "rounds", "matches"), run, by, ["rounds"])


def _length_moments(by: tuple[str, ...]) -> Partial:
    def compute(run: KortRun) -> pd.DataFrame:
        matches = run.matches
        moments = shared.tagged_moments(matches, by, {"rounds": matches["rounds"].to_numpy(),
                                                      "redeals": matches["redeals"].to_numpy()}, "measure")
        sums = shared.grouped_sums(matches, by, ["decisions"]).assign(measure="decisions")
        return shared.with_sums(moments, sums, [*by, "measure"])

    return additive(f"match length by {', '.join(by)}", [*by, "measure"], compute)


def match_length_summary(run: KortRun, by: tuple[str, ...] = BY) -> pd.DataFrame:
    """Per ``by`` group: matches, rounds per match (mean with 95% CI, median, most), redeals per match (mean
    with 95% CI) and decisions per match."""
    moments = run.partial(_partial("match length", by, _length_moments))
    found = shared.by_keys(moments, [*by, "measure"])
    counts = run.partial(_partial("rounds per match", by, _round_counts))
    histograms = {key if isinstance(key, tuple) else (key,): group.sort_values("rounds")
                  for key, group in counts.groupby(list(by))}
    rows = []
    for key in _groups(moments, by, run):
        m = found[(*key, "rounds")]
        mean, half = mean_ci(m)
        redeals, redeals_half = mean_ci(found[(*key, "redeals")])
        lengths = histograms[key]["rounds"].to_numpy(np.int64)
        matches = histograms[key]["matches"].to_numpy(np.int64)
        rows.append({**dict(zip(by, key, strict=True)), "matches": int(m["n"]), "mean_rounds": mean, "ci95": half,
                     "median_rounds": shared.histogram_percentile(lengths, matches, 50),
                     "max_rounds": int(lengths.max()),
                     "mean_redeals": redeals, "redeals_ci95": redeals_half,
                     "mean_decisions": int(found[(*key, "decisions")]["decisions"]) / int(m["n"])})
    return _ordered(pd.DataFrame(rows), run, by)


def _directed(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row of a table of two different teams twice, once for each team: ``team``, ``opponent``, and ``side``
    (the team's index, 0 for seats 0 and 2); rows of one team against itself are left out."""
    mixed = frame[frame["team0"].to_numpy() != frame["team1"].to_numpy()]
    sides = [mixed.assign(team=mixed["team0"], opponent=mixed["team1"], side=0),
             mixed.assign(team=mixed["team1"], opponent=mixed["team0"], side=1)]
    return pd.concat(sides, ignore_index=True)


def _team_moments(run: KortRun) -> pd.DataFrame:
    keys = ["table", "team", "opponent"]
    matches = _directed(run.matches)
    won = matches["winner_team"].to_numpy() == matches["side"].to_numpy()
    rounds = _directed(run.rounds)
    got = rounds["result_team"].to_numpy() == rounds["side"].to_numpy()
    wins = rounds["wins"].to_numpy().astype(np.int64)
    moments = shared.tagged_moments(matches, keys, {"won": won, "result": np.where(won, 1, -1)}, "measure")
    moments = shared.stacked([moments, shared.tagged_moments(rounds, keys, {"round_won": got}, "measure")])
    sums = shared.grouped_sums(rounds.assign(got_wins=got * wins), keys, ["got_wins", "wins"]).assign(measure="wins")
    return shared.with_sums(moments, sums, [*keys, "measure"])


TEAM_MOMENTS = additive("team results", ["table", "team", "opponent", "measure"], _team_moments)


def team_results(run: KortRun) -> pd.DataFrame:
    """The ladder of agents as teams: per table and pairing of two different teams (each team's two agents),
    in both directions, the matches they met in, ``team``'s match win rate and mean result (+1 a win, -1 a
    loss) and the share of the rounds it won, with 95% CIs, and its share of the match wins the rounds gave.
    """
    moments = run.partial(TEAM_MOMENTS)
    found = shared.by_keys(moments, ["table", "team", "opponent", "measure"])
    rows = []
    for table in sorted({int(t) for t in moments["table"]}):
        pairs = {tuple(sorted((key[1], key[2]))) for key in found if key[0] == table}
        for first, second in sorted(pairs):
            for team, opponent in ((first, second), (second, first)):
                key = (table, team, opponent)
                win, win_low, win_high = shared.proportion_from_moments(found[(*key, "won")])
                mean, half = mean_ci(found[(*key, "result")])
                per_round = shared.proportion_from_moments(found.get((*key, "round_won"), shared.ZERO_MOMENTS))
                wins = found.get((*key, "wins"), {"got_wins": 0, "wins": 0})
                rows.append({"table": table, "team": team, "opponent": opponent,
                             "matches": int(found[(*key, "won")]["n"]), "win_rate": win, "win_low": win_low,
                             "win_high": win_high, "mean": mean, "ci95": half, "round_wins": per_round[0],
                             "round_wins_low": per_round[1], "round_wins_high": per_round[2],
                             "wins_share": int(wins["got_wins"]) / max(1, int(wins["wins"]))})
    columns = ["table", "label", "team", "opponent", "matches", "win_rate", "win_low", "win_high", "mean", "ci95",
               "round_wins", "round_wins_low", "round_wins_high", "wins_share"]
    frame = pd.DataFrame(rows, columns=[c for c in columns if c != "label"])
    frame.insert(1, "label", frame["table"].map(run.tables.set_index("table")["label"]))
    return frame


def report_partials() -> list[Partial]:
    """Every partial the report reads (one row per table): what ``stream.stream_run`` gathers chunk by chunk."""
    from experiments.analysis import ladder

    holders = BY + ("holder_agents",)
    return [ZERO_SUM, ROUND_COUNT, _partial("round results", BY, _result_moments),
            _partial("holder value", holders, _holder_moments), _partial("first holder", BY, _first_holder_moments),
            _partial("redeals", holders, _redeal_moments), _partial("rounds per match", BY, _round_counts),
            _partial("match length", BY, _length_moments), TEAM_MOMENTS, ladder.PAIR_MOMENTS, ladder.RATINGS]


# ----- inside --------------------------------------------------------------------------------------


def _groups(moments: pd.DataFrame, by: tuple[str, ...], run: KortRun) -> list[tuple]:
    """The ``by`` groups a partial has rows for, in the order a groupby of the rows gives (labels in the order of
    the run's tables, other keys sorted)."""
    keys = moments[list(by)].drop_duplicates()
    if "label" in by:
        keys["label"] = pd.Categorical(keys["label"], categories=list(dict.fromkeys(run.tables["label"])))
    keys = keys.sort_values(list(by), kind="stable")
    return [tuple(row) for row in keys.astype(object).itertuples(index=False, name=None)]


def _ordered(frame: pd.DataFrame, run: KortRun, by: tuple[str, ...], then: list[str] | None = None) -> pd.DataFrame:
    """Labels in the order of the run's tables (so colours match from figure to figure), rows in that order."""
    if "label" in by and "label" in frame.columns:
        frame["label"] = pd.Categorical(frame["label"], categories=list(dict.fromkeys(run.tables["label"])))
    if then:
        frame = frame.sort_values([*by, *then], kind="stable", ignore_index=True)
    return frame
