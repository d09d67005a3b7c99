"""The table of cut-offs under three rule sets (``experiments.analysis.knorri.rules_table``) says what the cut-off
analysis says of each run, a row per table and rule set: a continued run's own continuation, or a plain run's pairing
with the run without a repeat rule and the share of pairs that diverged; it refuses a wrong number of runs in one
line."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis.duck import connect
from experiments.analysis.knorri import rules_table
from experiments.analysis.knorri.counterfactual import compare_continued, compare_runs
from experiments.analysis.knorri.cutoffs import cutoff_shares, open_cutoff_run
from experiments.analysis.knorri.sample import SMALL_RUN_TABLES, make_small_run

RULES = {"default": {}, "repeat=3": {"repeat": 3}, "repeat=0 cap=20000": {"repeat": 0, "cap": 20000}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The small sample run under each rule set: the same config and seed, so the same deals."""
    folder = tmp_path_factory.mktemp("rules")
    return [make_small_run(folder / str(i), hands=120, seed=5, options=options)
            for i, options in enumerate(RULES.values())]


@pytest.fixture(scope="module")
def table(runs):
    return rules_table.rules_table([tuple(runs)])


def test_every_table_has_a_row_under_each_rule_set(table):
    assert len(table) == 3 * len(SMALL_RUN_TABLES)
    for _, rows in table.groupby(["lineup", "seats"]):
        assert rows["rules"].tolist() == list(RULES)


def test_the_shares_are_the_cut_off_analysis_shares(runs, table):
    for folder, rules in zip(runs, RULES, strict=True):
        run = open_cutoff_run(folder)
        with connect() as con:
            shares = cutoff_shares(con, run)
        for _, row in shares[shares["reason"] == "repeat"].iterrows():
            line = table[(table["lineup"] == row["lineup"]) & (table["seats"] == row["seats"])
                         & (table["rules"] == rules)]
            assert line["repeat %"].item() == rules_table.share_text(row)
            assert line["hands"].item() == f"{int(row['hands']):,}"


def test_the_median_log2_paths_is_each_tables_own(runs, table):
    hands = pd.read_parquet(runs[0] / "hands", columns=["table", "end_reason", "cycle_log2_paths"])
    repeats = hands[hands["end_reason"] == "repeat"]
    labels = open_cutoff_run(runs[0]).tables.set_index("table")
    for table_index, part in repeats.groupby("table"):
        line = table[(table["lineup"] == labels.loc[table_index, "lineup"])
                     & (table["seats"] == labels.loc[table_index, "seats"]) & (table["rules"] == "default")]
        assert line["median log2 paths"].item() == f"{part['cycle_log2_paths'].astype(float).median():.1f}"


def test_the_last_column_pairs_the_cut_off_hands_with_the_no_repeat_run(runs, table):
    first, norepeat = open_cutoff_run(runs[0]), open_cutoff_run(runs[2])
    with connect() as con:
        outcomes = compare_runs(con, first, norepeat).outcomes
    assert int(outcomes["cut"].sum()) > 0  # random play at 5 and 6 seats reaches the cap under the default rules
    labels = first.tables.set_index("table")
    for table_index, outcome in outcomes.groupby("table"):
        line = table[(table["lineup"] == labels.loc[table_index, "lineup"])
                     & (table["seats"] == labels.loc[table_index, "seats"]) & (table["rules"] == "default")]
        cut, ended = int(outcome["cut"].sum()), int(outcome["ended"].sum())
        assert line["cut-off hands that ended with no repeat rule"].item() == f"{100 * ended / cut:.1f}% of {cut:,}"
    assert (table[table["rules"] == "repeat=0 cap=20000"]["cut-off hands that ended with no repeat rule"]
            == "n/a").all()


def test_runs_not_in_groups_of_three_are_refused_in_one_line(runs, capsys):
    assert rules_table.main([str(runs[0]), str(runs[1])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "groups of three" in err[0]


def test_the_command_prints_the_table_as_markdown(runs, capsys):
    assert rules_table.main([str(folder) for folder in runs]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("| lineup | seats | rules |")
    assert len(lines) == 2 + 3 * len(SMALL_RUN_TABLES)


def test_a_paired_run_gives_the_share_that_diverged_and_how_it_was_told(runs, table):
    first, norepeat = open_cutoff_run(runs[0]), open_cutoff_run(runs[2])
    with connect() as con:
        outcomes = compare_runs(con, first, norepeat).outcomes
    labels = first.tables.set_index("table")
    for table_index, outcome in outcomes.groupby("table"):
        line = table[(table["lineup"] == labels.loc[table_index, "lineup"])
                     & (table["seats"] == labels.loc[table_index, "seats"]) & (table["rules"] == "default")]
        paired = int(outcome["paired"].sum())  # random and greedy play ignore the rules: no pair leaves the path
        assert line[rules_table.DIVERGED].item() == f"at least 0.0% of {paired:,} (decision counts)"
    assert (table[table["rules"] == "repeat=0 cap=20000"][rules_table.DIVERGED] == "n/a").all()


def test_a_continued_run_says_itself_which_cut_off_hands_ended(tmp_path):
    folder = tmp_path / "continued"
    runs = [make_small_run(folder / str(i), hands=60, seed=5, options=options,
                           continuation={"repeat": 0, "cap": 20000} if i < 2 else None)
            for i, options in enumerate(RULES.values())]
    table = rules_table.rules_table([tuple(runs)])
    first = open_cutoff_run(runs[0])
    with connect() as con:
        outcomes = compare_continued(con, first).outcomes
    assert int(outcomes["cut"].sum()) > 0
    labels = first.tables.set_index("table")
    for table_index, outcome in outcomes.groupby("table"):
        line = table[(table["lineup"] == labels.loc[table_index, "lineup"])
                     & (table["seats"] == labels.loc[table_index, "seats"]) & (table["rules"] == "default")]
        cut, ended = int(outcome["cut"].sum()), int(outcome["ended"].sum())
        assert line[rules_table.ENDED].item() == f"{100 * ended / cut:.1f}% of {cut:,}"
    # beside its own continuation, a continued run still says what pairing alone would have counted: for random
    # and greedy play, which ignore the rules, no paired hand leaves the path (checked by the continuation)
    diverged = table[table["rules"] != "repeat=0 cap=20000"][rules_table.DIVERGED]
    assert diverged.str.match(r"^(0\.0% of [0-9,]+ \(continuation\)|n/a \(none paired\))$").all(), diverged.tolist()
