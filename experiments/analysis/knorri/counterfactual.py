"""What a cut-off changes: each hand a run's rules cut off, followed to where it would have gone without the cut.

Two sources answer it: a run continued past its cut-offs (``--continue-past-cutoff``), whose ``continued_*``
columns ``compare_continued`` reads, and a second run of the same config and seed under other options
(``compare_runs``), paired hand by hand; a paired hand answers only if it followed the first hand's path up to the
cut (``path_check``, ``PATH_CHECKS``). For every cut-off hand it says whether it ended, after how many actions, and
whether its result changed; over every hand, each agent's mean score both ways with the paired difference and both
sets of ratings. DuckDB reads one slice of whole deal groups at a time (``experiments.analysis.duck``), so memory
stays bounded. The pairing in full is in docs/internals.md, ``experiments.analysis.knorri.counterfactual``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow.compute as pc

from experiments.analysis.duck import WHERE, ShardIndex, moments_of, moments_sql, quantile_of_counts, sql_list, summed
from experiments.analysis.knorri.cutoff_run import CutoffRun, checked_action_shards, run_slices
from experiments.analysis.ladder import Rater
from experiments.analysis.load import RunFolderError, iter_shard_batches, read_manifest
from experiments.runner.config import PLACE_KEYS, build_config
from experiments.runner.execute import run_experiment
from experiments.runner.moments import mean_ci
from sim.contract import places_from_values

PAIR_KEYS = ("table", "arrangement", "seed", "first_seat")  # the same deal, seated the same way
# config keys that leave the deals be: a run of fewer hands plays the first deals of one of more
NOT_COMPARED = (*PLACE_KEYS, "options", "log_actions", "chunk_hands", "continuation", "hands")
RATING_BATCH = 65_536  # rows of agents and scores read at a time for the ratings
PLAYED_ON = ("end_reason", "phase2_actions", "loser")  # a hand's results a continuation replaces (and each score)

SAME_HAND, ACTION_LOGS, CONTINUATION, DECISION_COUNTS, NO_CHECK = (
    "same hand", "action logs", "continuation", "decision counts", "none")
PATH_CHECKS = {
    SAME_HAND: "the run's own cut-off hands played on from the cut: the same hand by construction",
    ACTION_LOGS: "both runs' action logs: a paired hand is on the path if its first actions equal the cut-off "
                 "hand's, up to the cut",
    CONTINUATION: "the first run played its cut-off hands on under the second run's rules: a paired hand is on the "
                  "path if its decisions and their CRC-32 equal the first hand's continued ones (from the same "
                  "position, under the same rules, the same agents play the same way)",
    DECISION_COUNTS: "decision counts only: a paired hand with fewer decisions than the cut-off one left its path; "
                     "any other is taken to be on it",
    NO_CHECK: "none: the runs have no decision counts, so every paired hand is taken to be on the path",
}
"""How a pairing tells a hand that followed the first run's path up to its cut from one that left it."""
PARTIAL_CHECKS = (DECISION_COUNTS, NO_CHECK)  # some hands that left the path cannot be told
HOW_TO_CHECK = ("log both runs' actions (--log-actions), or continue the first run past its cut-offs under the "
                "second run's options (--continue-past-cutoff)")


@dataclass
class Counterfactual:
    """The first run's cut-off hands followed on (by its own continuation or a second run), and what that does to the
    scores."""

    first_options: dict
    second_options: dict
    hands: int  # hands of the first run
    paired: int  # of them, with a partner in the second run (every hand, for a continuation)
    outcomes: pd.DataFrame  # per table and reason: cut, paired, diverged, ended, never ended, results changed
    extra: pd.DataFrame  # reason, extra (more actions the hands that ended took; negative only if unchecked), hands
    agents: pd.DataFrame  # per seat count and agent: mean scores both ways and the paired difference
    ratings: dict[str, pd.DataFrame] = field(default_factory=dict)  # "first", "second": RATING_COLUMNS
    check: str = SAME_HAND  # how a hand on the first run's path was told (a key of PATH_CHECKS)

    @property
    def continued(self) -> bool:
        """Whether the hands were followed by the run's own continuation, not a second run."""
        return self.check == SAME_HAND

    @property
    def names(self) -> tuple[str, str]:
        """What the two sides are called on the page and the figures."""
        return ("cut off", "played on") if self.continued else ("first run", "second run")

    @property
    def partial(self) -> bool:
        """Whether some paired hands that left the first run's path cannot be told (``PARTIAL_CHECKS``)."""
        return self.check in PARTIAL_CHECKS

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
    counterfactual run ``compare_runs`` pairs with it (``engine``: which engine plays; ``reference`` takes any).
    The replay continues nothing past its cut-offs: it is compared on its own rules."""
    config = dict(read_manifest(Path(run_dir))["config"])
    config.pop("continuation", None)
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


def path_check(first: CutoffRun, second: CutoffRun) -> str:
    """The best check ``PATH_CHECKS`` the two runs allow: both runs' action logs, else the first run's continuation
    when it played on under the second run's rules, else decision counts (partial), else none."""
    if first.actions is not None and second.actions is not None and "decisions" in first.columns:
        return ACTION_LOGS
    if first.continued and _rules(first.continuation) == _rules(second.options):
        return CONTINUATION
    if "decisions" in first.columns and "decisions" in second.columns:
        return DECISION_COUNTS
    return NO_CHECK


def _rules(options: Mapping[str, Any] | None) -> dict[str, int]:
    return {name: int(value) for name, value in (options or {}).items()}


def _diverged_sql(check: str) -> str:
    """Per pair of ``a`` (the cut-off hand) and ``b`` (its partner): whether it certainly left the path (the action
    logs' check is made after the pairing, from the steps)."""
    return {CONTINUATION: "(b.decisions::BIGINT IS DISTINCT FROM a.continued_decisions::BIGINT OR "
                          "b.decisions_crc32::BIGINT IS DISTINCT FROM a.continued_decisions_crc32::BIGINT)",
            DECISION_COUNTS: "b.decisions::BIGINT < a.decisions::BIGINT"}.get(check, "FALSE")


def continued_source(run: CutoffRun) -> str:
    """The run's hands (the view ``hands``) as played on: each cut-off hand's results replaced by its continued ones,
    so the machinery that pairs two runs pairs a continued run with itself."""
    played_on = [*PLAYED_ON, *(f"score_{seat}" for seat in range(run.width))]
    return "(SELECT * REPLACE (" + ", ".join(f"coalesce(continued_{name}, {name}) AS {name}"
                                             for name in played_on) + ") FROM hands)"


def compare_continued(con: duckdb.DuckDBPyConnection, run: CutoffRun) -> Counterfactual:
    """What the run's own continuation made of its cut-off hands (``--continue-past-cutoff``), and every agent's
    scores and ratings with the continued results in place of the cut ones; a run that continued nothing is one
    line."""
    if not run.continued:
        raise RunFolderError(f"the run in {str(run.folder)!r} did not play its cut-off hands on (make it with "
                             "--continue-past-cutoff)")
    ratings = {"first": stream_ratings(run), "second": stream_ratings(run, continued=True)} if _agents_meet(run) else {}
    return _compare(con, run, run.width, run.cut_offs, continued_source(run), {"hands": run.shards}, SAME_HAND,
                    dict(run.continuation or {}), ratings)


def compare_runs(con: duckdb.DuckDBPyConnection, first: CutoffRun, second: CutoffRun,
                 check: str | None = None) -> Counterfactual:
    """Pair ``second`` with ``first`` by seed and seating, in DuckDB, one slice of whole deal groups at a time (both
    runs deal the same hands to the same deal groups; each slice's shards are the views ``hands`` and ``other``, and
    the action logs ``actions`` and ``other_actions``), telling hands that left the first run's path by ``check``
    (``path_check``'s unless given): every count, histogram and cluster moment adds up over the slices, so memory
    does not grow with the runs."""
    check_pairable(first, second)
    check = check or path_check(first, second)
    views = {"hands": first.shards, "other": second.shards}
    if check == ACTION_LOGS:
        views.update(actions=_logs(first), other_actions=_logs(second))
    ratings = {"first": stream_ratings(first), "second": stream_ratings(second)} if _agents_meet(first) else {}
    return _compare(con, first, min(first.width, second.width), second.cut_offs, "other", views, check,
                    second.options, ratings)


def _logs(run: CutoffRun) -> ShardIndex:
    actions = checked_action_shards(run)
    if actions is None:
        raise RunFolderError(f"the run in {str(run.folder)!r} kept no action logs (make it with --log-actions)")
    return actions


def _compare(con: duckdb.DuckDBPyConnection, first: CutoffRun, width: int, second_cut_offs: tuple[str, ...],
             source: str, views: dict[str, ShardIndex], check: str, second_options: dict,
             ratings: dict[str, pd.DataFrame]) -> Counterfactual:
    """Follow the first run's cut-off hands into ``source`` (a view or subquery of the hands as the other rules
    played them) and add up what became of them, and of every agent's scores."""
    keys = ", ".join(f'"{key}"' for key in PAIR_KEYS)
    parts = run_slices(first)
    both = ("a", "b")  # each slice's condition on both sides, so DuckDB reads only the shards that hold it
    cut = _cut_sql(first, width, source, keys, check)
    cut_offs = sql_list(second_cut_offs)
    never_by_reason = ", ".join(f"count(*) FILTER (WHERE kept AND other_reason = '{reason}') AS \"never: {reason}\""
                                for reason in second_cut_offs)
    outcomes = summed(con, f"""{cut}
        SELECT t, reason, count(*) AS cut, count(*) FILTER (WHERE paired) AS paired,
               count(*) FILTER (WHERE diverged) AS diverged,
               count(*) FILTER (WHERE kept AND other_reason NOT IN {cut_offs}) AS ended,
               count(*) FILTER (WHERE kept AND other_reason IN {cut_offs}) AS never_ended,
               {never_by_reason},
               count(*) FILTER (WHERE kept AND loser_changed) AS loser_changed,
               count(*) FILTER (WHERE kept AND scores_changed) AS scores_changed
        FROM cut GROUP BY ALL""", ["t", "reason"], parts, views, both)
    extra_by_table = summed(con, f"""{cut}
        SELECT t, reason, extra, count(*) AS hands FROM cut
        WHERE kept AND other_reason NOT IN {cut_offs} GROUP BY ALL""", ["t", "reason", "extra"], parts, views, both)
    outcomes = outcomes.merge(_extra_quantiles(extra_by_table), on=["t", "reason"], how="left")
    info = first.tables.set_index("table")
    outcomes.insert(1, "label", outcomes["t"].map(info["label"]))
    outcomes = outcomes.rename(columns={"t": "table"})
    extra = (extra_by_table.groupby(["reason", "extra"], as_index=False, sort=True)["hands"].sum()
             if not extra_by_table.empty else pd.DataFrame(columns=["reason", "extra", "hands"]))
    agents, paired = agent_effects(con, width, keys, parts, views, source)
    return Counterfactual(first_options=first.options, second_options=second_options,
                          hands=int(first.shards.rows.sum()), paired=paired, outcomes=outcomes, extra=extra,
                          agents=agents, ratings=ratings, check=check)


def _cut_sql(first: CutoffRun, width: int, source: str, keys: str, check: str) -> str:
    """The CTE ``cut``: a row per hand of the slice the first run cut off, with its partner's (``b``, from ``source``)
    results, whether the pair is known to have left the path (``diverged``) and whether it is kept (paired, not
    diverged). Under ``ACTION_LOGS`` a pair is on the path if the partner's first ``decisions`` actions match."""
    scores_differ = " OR ".join(f"a.score_{s} IS DISTINCT FROM b.score_{s}" for s in range(width))
    steps = "a.hand_index AS first_hand, b.hand_index AS second_hand, a.decisions::BIGINT AS decisions, " \
        if check == ACTION_LOGS else ""
    pairs = f"""
        WITH pairs AS (
            SELECT a."table"::INTEGER AS t, a.end_reason AS reason, b.end_reason AS other_reason,
                   b.phase2_actions::BIGINT - a.phase2_actions::BIGINT AS extra,
                   b.seed IS NOT NULL AS paired, a.loser IS DISTINCT FROM b.loser AS loser_changed,
                   ({scores_differ}) AS scores_changed, {steps}
                   b.seed IS NOT NULL AND coalesce({_diverged_sql(check)}, FALSE) AS diverged
            FROM (SELECT * FROM hands a WHERE {WHERE} AND a.end_reason IN {sql_list(first.cut_offs)}) a
            LEFT JOIN (SELECT * FROM {source} b WHERE {WHERE}) b USING ({keys}))"""
    if check != ACTION_LOGS:
        return pairs + ", cut AS (SELECT *, paired AND NOT diverged AS kept FROM pairs)"
    return pairs + """,
        steps AS (SELECT p.first_hand, count(*) AS same FROM pairs p
                  JOIN actions x ON x.hand_index = p.first_hand AND x.step < p.decisions
                  JOIN other_actions y ON y.hand_index = p.second_hand AND y.step = x.step AND y.action = x.action
                  WHERE p.paired GROUP BY ALL),
        checked AS (SELECT p.* REPLACE (p.paired AND coalesce(s.same, 0) < p.decisions AS diverged)
                    FROM pairs p LEFT JOIN steps s USING (first_hand)),
        cut AS (SELECT *, paired AND NOT diverged AS kept FROM checked)"""


def _extra_quantiles(extra: pd.DataFrame) -> pd.DataFrame:
    """Per table and reason, the fewest, median, 90th percentile and most of the extra actions, from their
    histogram."""
    rows = []
    for (table, reason), part in extra.groupby(["t", "reason"], sort=True):
        values, hands = part["extra"].to_numpy(float), part["hands"].to_numpy()
        rows.append({"t": table, "reason": reason, "extra_min": int(values.min()),
                     "extra_median": quantile_of_counts(values, hands, 0.5),
                     "extra_p90": quantile_of_counts(values, hands, 0.9), "extra_max": int(values.max())})
    return pd.DataFrame(rows, columns=["t", "reason", "extra_min", "extra_median", "extra_p90", "extra_max"])


def agent_effects(con: duckdb.DuckDBPyConnection, width: int, keys: str, parts: list,
                  views: dict, source: str = "other") -> tuple[pd.DataFrame, int]:
    """Per seat count and agent, over every paired seat-hand of the view ``hands`` and ``source`` (the view
    ``other``, or a run's hands as played on): the mean score each way and the paired difference (second minus
    first), each with its 95% half-width over deal groups (cluster moments, ``experiments.runner.moments``); and how
    many hands paired."""
    def seat_list(expression: str) -> str:  # one list of the seats' values, unnested to a row per seat below
        return "[" + ", ".join(expression.format(s=s) for s in range(width)) + "]"

    joined = f"(SELECT * FROM hands a WHERE {WHERE}) a JOIN (SELECT * FROM {source} b WHERE {WHERE}) b USING ({keys})"
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


def stream_ratings(run: CutoffRun, continued: bool = False) -> pd.DataFrame:
    """The run's openskill Plackett-Luce ratings (``ladder.ratings``'s, every hand in run order), read
    ``RATING_BATCH`` rows of agents and scores at a time; ``continued``: each cut-off hand rated by its continued
    scores (a run made with ``--continue-past-cutoff``)."""
    agents_col = [f"agent_{s}" for s in range(run.width)]
    scores_col = [f"score_{s}" for s in range(run.width)]
    later_col = [f"continued_score_{s}" for s in range(run.width)] if continued else []
    names = sorted({spec for table in run.manifest["config"]["tables"] for spec in table["agents"]})
    code = {name: i for i, name in enumerate(names)}  # the shards' dictionary is these specs (runner.schema)
    tally = Rater(names)
    for batch in iter_shard_batches(run.paths, agents_col + scores_col + later_col, RATING_BATCH):
        rows = batch.num_rows
        agent = np.full((rows, run.width), -1, dtype=np.int64)
        value = np.full((rows, run.width), -np.inf)
        for seat in range(run.width):
            column = batch.column(f"agent_{seat}")
            present = column.is_valid().to_numpy(zero_copy_only=False)
            to_ours = np.asarray([code[name] for name in column.dictionary.to_pylist()], dtype=np.int64)
            indices = column.indices.fill_null(0).to_numpy()
            agent[present, seat] = to_ours[indices[present]] if len(to_ours) else -1
            score = batch.column(f"score_{seat}")
            if continued:  # the continued score where the hand was cut off and played on, else its own
                score = pc.coalesce(batch.column(f"continued_score_{seat}"), score)
            value[present, seat] = score.to_numpy(zero_copy_only=False)[present]
        lowest = np.where(agent >= 0, agent, len(names)).min(axis=1)
        mixed = agent.max(axis=1) > lowest  # two different agents at the table: a row alone tells nothing else
        if mixed.any():
            team = np.tile(np.arange(run.width), (int(mixed.sum()), 1))
            tally.rate(agent[mixed], team, places_from_values(value[mixed]))
    return tally.frame()


def _agents_meet(run: CutoffRun) -> bool:
    """Whether any table seats two different agents (else there is nothing to rate)."""
    return any(len(set(table["agents"])) > 1 for table in run.manifest["config"]["tables"])


def _rated_order(frame: pd.DataFrame) -> list[str]:
    return frame.dropna(subset=["rating"])["agent"].tolist()
