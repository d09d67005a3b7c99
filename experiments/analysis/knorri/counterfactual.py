"""What a cut-off changes: a run paired hand by hand with the same config and seed played under other options.

Two runs of one config and master seed deal the same hands (``derive_seed``), whatever their options, so a hand
of the first run is paired with the hand of the second that has its table, seating (arrangement), seed and
first seat. For every hand the first run cut off this says whether the second ended it, after how many more
actions, how many it never ended, and whether its result changed (the loser, each seat's score); then, over
every paired hand, each agent's mean score in both runs with the paired difference's 95% interval over deal
groups, and the openskill ratings of both runs (``experiments.analysis.ladder``, streamed batch by batch):
does the rule change the ranking? DuckDB does the pairing one slice of whole deal groups at a time
(``experiments.analysis.duck``), so memory stays bounded however large the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from experiments.analysis.duck import WHERE, moments_of, moments_sql, quantile_of_counts, sql_list, summed
from experiments.analysis.knorri.cutoffs import CutoffRun, run_slices
from experiments.analysis.ladder import Rater
from experiments.analysis.load import RunFolderError, iter_shard_batches, read_manifest
from experiments.runner.config import PLACE_KEYS, build_config
from experiments.runner.execute import run_experiment
from experiments.runner.moments import mean_ci
from sim.contract import places_from_values

PAIR_KEYS = ("table", "arrangement", "seed", "first_seat")  # the same deal, seated the same way
NOT_COMPARED = (*PLACE_KEYS, "options", "log_actions", "chunk_hands")  # config keys that do not change the deals
RATING_BATCH = 65_536  # rows of agents and scores read at a time for the ratings


@dataclass
class Counterfactual:
    """The first run's cut-off hands replayed under the second run's options, and what that does to the scores."""

    first_options: dict
    second_options: dict
    hands: int  # hands of the first run
    paired: int  # of them, with a partner in the second run
    outcomes: pd.DataFrame  # per table and first-run reason: cut, paired, ended, never ended, results changed
    extra: pd.DataFrame  # reason, extra (more actions the second run took to end it), hands
    agents: pd.DataFrame  # per seat count and agent: mean scores in both runs and the paired difference
    ratings: dict[str, pd.DataFrame] = field(default_factory=dict)  # "first", "second": RATING_COLUMNS

    @property
    def ranking_changed(self) -> bool | None:
        """Whether the ratings order the agents differently in the two runs (None: nothing was rated)."""
        orders = [_rated_order(frame) for frame in self.ratings.values()]
        if len(orders) < 2 or not orders[0]:
            return None
        return orders[0] != orders[1]


def replay_with_options(run_dir: str | Path, options: Mapping[str, Any], folder: str | Path, engine: str = "auto",
                        progress: bool = False) -> Path:
    """Play the config and master seed of the run in ``run_dir`` again under ``options`` into ``folder``: the
    counterfactual run ``compare_runs`` pairs with it (``engine``: which engine plays; ``reference`` takes any)."""
    config = dict(read_manifest(Path(run_dir))["config"])
    config.update(options=dict(options), out=str(folder), engine=engine)
    run_experiment(build_config(config, f"the run in {str(run_dir)!r} under other options"), Path(folder),
                   progress=progress)
    return Path(folder)


def check_pairable(first: CutoffRun, second: CutoffRun) -> None:
    """Refuse, in one line, a second run that is not the first's config and seed under other options."""
    if first.game != second.game:
        raise RunFolderError(f"--counterfactual {str(second.folder)!r} is a {second.title} run, the first a "
                             f"{first.title} one: give the same config and seed under other options")
    a, b = (_compared(run.manifest["config"]) for run in (first, second))
    differ = sorted(key for key in set(a) | set(b) if a.get(key) != b.get(key))
    if differ:
        raise RunFolderError(f"--counterfactual {str(second.folder)!r} is not the same config as "
                             f"{str(first.folder)!r} apart from options: {', '.join(differ)} differ "
                             "(rerun it with only --option changed)")


def _compared(config: dict) -> dict:
    return {key: value for key, value in config.items() if key not in NOT_COMPARED}


def compare_runs(con: duckdb.DuckDBPyConnection, first: CutoffRun, second: CutoffRun) -> Counterfactual:
    """Pair ``second`` with ``first`` by seed and seating, in DuckDB, one slice of whole deal groups at a time (both
    runs deal the same hands to the same deal groups; each slice's shards are the views ``hands`` and ``other``):
    every count, histogram and cluster moment below adds up over the slices, so memory does not grow with the runs."""
    check_pairable(first, second)
    keys = ", ".join(f'"{key}"' for key in PAIR_KEYS)
    width = min(first.width, second.width)
    parts = run_slices(first)
    views = {"hands": first.shards, "other": second.shards}  # each slice reads only the shards that hold it
    both = ("a", "b")  # each slice's condition on both runs, so DuckDB reads only the shards that hold it
    scores_differ = " OR ".join(f"a.score_{s} IS DISTINCT FROM b.score_{s}" for s in range(width))
    cut = f"""
        WITH cut AS (
            SELECT a."table"::INTEGER AS t, a.end_reason AS reason, b.end_reason AS other_reason,
                   b.phase2_actions::BIGINT - a.phase2_actions::BIGINT AS extra,
                   b.seed IS NOT NULL AS paired, a.loser IS DISTINCT FROM b.loser AS loser_changed,
                   ({scores_differ}) AS scores_changed
            FROM (SELECT * FROM hands a WHERE {WHERE} AND a.end_reason IN {sql_list(first.cut_offs)}) a
            LEFT JOIN (SELECT * FROM other b WHERE {WHERE}) b USING ({keys}))"""
    cut_offs = sql_list(second.cut_offs)
    never_by_reason = ", ".join(f"count(*) FILTER (WHERE paired AND other_reason = '{reason}') AS \"never: {reason}\""
                                for reason in second.cut_offs)
    outcomes = summed(con, f"""{cut}
        SELECT t, reason, count(*) AS cut, count(*) FILTER (WHERE paired) AS paired,
               count(*) FILTER (WHERE paired AND other_reason NOT IN {cut_offs}) AS ended,
               count(*) FILTER (WHERE paired AND other_reason IN {cut_offs}) AS never_ended,
               {never_by_reason},
               count(*) FILTER (WHERE paired AND loser_changed) AS loser_changed,
               count(*) FILTER (WHERE paired AND scores_changed) AS scores_changed
        FROM cut GROUP BY ALL""", ["t", "reason"], parts, views, both)
    extra_by_table = summed(con, f"""{cut}
        SELECT t, reason, extra, count(*) AS hands FROM cut
        WHERE paired AND other_reason NOT IN {cut_offs} GROUP BY ALL""", ["t", "reason", "extra"], parts, views, both)
    outcomes = outcomes.merge(_extra_quantiles(extra_by_table), on=["t", "reason"], how="left")
    info = first.tables.set_index("table")
    outcomes.insert(1, "label", outcomes["t"].map(info["label"]))
    outcomes = outcomes.rename(columns={"t": "table"})
    extra = (extra_by_table.groupby(["reason", "extra"], as_index=False, sort=True)["hands"].sum()
             if not extra_by_table.empty else pd.DataFrame(columns=["reason", "extra", "hands"]))
    agents, paired = agent_effects(con, width, keys, parts, views)
    hands = int(first.shards.rows.sum())
    return Counterfactual(first_options=first.options, second_options=second.options, hands=hands, paired=paired,
                          outcomes=outcomes, extra=extra, agents=agents, ratings=_both_ratings(first, second))


def _extra_quantiles(extra: pd.DataFrame) -> pd.DataFrame:
    """Per table and reason, the median, 90th percentile and largest of the extra actions, from their histogram."""
    rows = []
    for (table, reason), part in extra.groupby(["t", "reason"], sort=True):
        values, hands = part["extra"].to_numpy(float), part["hands"].to_numpy()
        rows.append({"t": table, "reason": reason, "extra_median": quantile_of_counts(values, hands, 0.5),
                     "extra_p90": quantile_of_counts(values, hands, 0.9), "extra_max": int(values.max())})
    return pd.DataFrame(rows, columns=["t", "reason", "extra_median", "extra_p90", "extra_max"])


def agent_effects(con: duckdb.DuckDBPyConnection, width: int, keys: str, parts: list,
                  views: dict) -> tuple[pd.DataFrame, int]:
    """Per seat count and agent, over every paired seat-hand of the views ``hands`` and ``other``: the mean score in
    each run and the paired difference (second minus first), each with its 95% half-width over deal groups
    (cluster moments, ``experiments.runner.moments``); and how many hands paired."""
    def seat_list(expression: str) -> str:  # one list of the seats' values, unnested to a row per seat below
        return "[" + ", ".join(expression.format(s=s) for s in range(width)) + "]"

    joined = f"(SELECT * FROM hands a WHERE {WHERE}) a JOIN (SELECT * FROM other b WHERE {WHERE}) b USING ({keys})"
    pairs = f"""(SELECT a.n_seats::INTEGER AS seats, a."table" AS t, a.deal_group AS g,
                        unnest({seat_list("a.agent_{s}::VARCHAR")}) AS agent,
                        unnest({seat_list("a.score_{s}::BIGINT")}) AS first,
                        unnest({seat_list("b.score_{s}::BIGINT")}) AS second
                 FROM {joined})"""
    both = ("a", "b")
    counted = summed(con, f"SELECT count(*) AS paired FROM {joined}", [], parts, views, both)
    paired = int(counted["paired"].iloc[0])
    frame = summed(con, f"""
        WITH per AS (SELECT seats, agent, t, g, count(*) AS n, sum(first) AS first, sum(second) AS second,
                            sum(second - first) AS diff FROM {pairs} WHERE agent IS NOT NULL GROUP BY ALL)
        SELECT seats, agent, count(*) AS groups, sum(n)::BIGINT AS rows, sum(n * n)::BIGINT AS rows_sq,
               {moments_sql("first", "first")}, {moments_sql("second", "second")}, {moments_sql("diff", "diff")}
        FROM per GROUP BY ALL""", ["seats", "agent"], parts, views, both)
    rows = []
    for _, row in frame.iterrows():
        entry = {"seats": int(row["seats"]), "agent": row["agent"], "seat_hands": int(row["rows"])}
        for key in ("first", "second", "diff"):
            mean, half = mean_ci(moments_of(row, key))
            entry[key], entry[f"{key}_ci95"] = mean, half
        rows.append(entry)
    columns = ["seats", "agent", "seat_hands", "first", "first_ci95", "second", "second_ci95", "diff", "diff_ci95"]
    return pd.DataFrame(rows, columns=columns), paired


def stream_ratings(run: CutoffRun) -> pd.DataFrame:
    """The run's openskill Plackett-Luce ratings (``ladder.ratings``'s, every hand in run order), read
    ``RATING_BATCH`` rows of agents and scores at a time."""
    agents_col = [f"agent_{s}" for s in range(run.width)]
    scores_col = [f"score_{s}" for s in range(run.width)]
    names = sorted({spec for table in run.manifest["config"]["tables"] for spec in table["agents"]})
    code = {name: i for i, name in enumerate(names)}  # the shards' dictionary is these specs (runner.schema)
    tally = Rater(names)
    for batch in iter_shard_batches(run.paths, agents_col + scores_col, RATING_BATCH):
        rows = batch.num_rows
        agent = np.full((rows, run.width), -1, dtype=np.int64)
        value = np.full((rows, run.width), -np.inf)
        for seat in range(run.width):
            column = batch.column(f"agent_{seat}")
            present = column.is_valid().to_numpy(zero_copy_only=False)
            to_ours = np.asarray([code[name] for name in column.dictionary.to_pylist()], dtype=np.int64)
            indices = column.indices.fill_null(0).to_numpy()
            agent[present, seat] = to_ours[indices[present]] if len(to_ours) else -1
            value[present, seat] = batch.column(f"score_{seat}").to_numpy(zero_copy_only=False)[present]
        lowest = np.where(agent >= 0, agent, len(names)).min(axis=1)
        mixed = agent.max(axis=1) > lowest  # two different agents at the table: a row alone tells nothing else
        if mixed.any():
            team = np.tile(np.arange(run.width), (int(mixed.sum()), 1))
            tally.rate(agent[mixed], team, places_from_values(value[mixed]))
    return tally.frame()


def _both_ratings(first: CutoffRun, second: CutoffRun) -> dict[str, pd.DataFrame]:
    if not _agents_meet(first):
        return {}
    return {"first": stream_ratings(first), "second": stream_ratings(second)}


def _agents_meet(run: CutoffRun) -> bool:
    """Whether any table seats two different agents (else there is nothing to rate)."""
    return any(len(set(table["agents"])) > 1 for table in run.manifest["config"]["tables"])


def _rated_order(frame: pd.DataFrame) -> list[str]:
    return frame.dropna(subset=["rating"])["agent"].tolist()
