"""``knorri-sim run --game kort``: one row per match in hands/, one per round in rounds/, with the runner's guarantees.

Rows follow the documented seeds and equal matches played directly; the rounds
table is each match's round record; the action log replays them; options reach
the rows; a lineup of ``random`` plays on the compiled engine and writes the rows
the reference engine writes; the worker count, a killed and resumed run and a
Dask cluster never change a row; rotations put each agent on both teams; the
schema is documented; bad input is one line.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import count_batches
from test_runner_resume import kill_run_after_shards

from agents.base import make_agent
from experiments.cli import main
from experiments.runner import routes
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment
from experiments.runner.plan import arrangements
from experiments.runner.schema import hand_fields, hands_schema, markdown_table, run_categories
from experiments.runner.summary import summarise
from sim.kort import adapter
from sim.kort.adapter import DECLARATIONS, HAND_COLUMNS, ROUND_COLUMNS, replay
from sim.kort.compiled import batch
from sim.kort.reference import KortMatch
from sim.rng import derive_seed
from sim.seating import play_with_agents

GAME = "kort"
PYTHON_RANDOM = "runner_fixtures.agents:PythonRandom"
LINEUP = ["random", PYTHON_RANDOM, "random", PYTHON_RANDOM]  # random as team 0 against a Python copy as team 1


def config(**changes):
    raw = {"game": GAME, "seats": 4, "agents": LINEUP, "matches": 12, "seed": 3, "chunk_hands": 4, "workers": 1}
    raw.update(changes)
    return build_config(raw)


def read(out, table="hands"):
    frame = pd.read_parquet(out / table)
    keys = ["hand_index", "round"] if table == "rounds" else ["hand_index"]
    return frame.sort_values(keys).reset_index(drop=True)


def seat_values(row, name):
    return [int(row[f"{name}_{seat}"]) for seat in range(4)]


def counted_declarations(record, team):
    """The round row's declaration counters, counted from the round record's declarations."""
    counts = dict.fromkeys(DECLARATIONS, 0)
    for declared in record["declarations"]:
        if declared["seat"] % 2 != team or declared["declaration"] == "alltrump":
            continue
        word = declared["declaration"]
        kind = "sar" if word.startswith("sar") else word
        counts[kind] += 1
        counts["sar_auto"] += word.startswith("sar_auto")
    return counts


# ----- rows -------------------------------------------------------------------------------------


def test_a_row_is_a_match_dealt_from_the_documented_seed_and_played_as_directly(tmp_path):
    run_experiment(config(assign="rotate", log_actions=True), tmp_path / "run")
    matches, actions = read(tmp_path / "run"), read(tmp_path / "run", "actions").sort_values(["hand_index", "step"])
    assert list(matches.hand_index) == list(range(12)) and (matches.hand_in_match == 0).all()
    assert list(matches.match_seed) == [derive_seed(3, 0, int(g)) for g in matches.deal_group]
    assert list(matches.seed) == [derive_seed(int(m), 0) for m in matches.match_seed]
    for _, row in matches.iloc[:4].iterrows():
        specs = [row[f"agent_{seat}"] for seat in range(4)]
        match = play_with_agents(KortMatch({}, seed=int(row.seed)), [make_agent(spec, game=GAME) for spec in specs],
                           int(row.seed))
        assert (match.rounds_played, match.redeals, match.winner_team) == (row.rounds, row.redeals, row.winner_team)
        assert match.wins == [row.wins_team0, row.wins_team1] and match.scores == seat_values(row, "score")
        assert seat_values(row, "won") == [int(score > 0) for score in match.scores]
        assert len(match.decisions) == row.decisions
        steps = actions[actions.hand_index == row.hand_index]
        assert steps.action.tolist() == match.decisions and steps.step.tolist() == list(range(len(match.decisions)))
        again = replay({}, int(row.seed), steps.action.tolist())
        assert again.done and again.record() == match.record()


def test_a_rounds_row_is_a_round_of_the_match_record(tmp_path):
    run_experiment(config(matches=16, options={"target_wins": 3}), tmp_path / "run")
    matches, rounds = read(tmp_path / "run"), read(tmp_path / "run", "rounds")
    assert len(rounds) == matches.rounds.sum()
    assert (rounds.groupby("hand_index").size() == matches.set_index("hand_index").rounds).all()
    ids = ["run_id", "table", "deal_group", "arrangement", "match", "match_seed", "seed", "agent_0", "agent_3"]
    joined = rounds.merge(matches[["hand_index", *ids]], on="hand_index", suffixes=("", "_match"))
    for name in ids:
        assert (joined[name].astype(str) == joined[f"{name}_match"].astype(str)).all(), name
    for hand_index, group in rounds.groupby("hand_index"):
        row = matches.iloc[hand_index]
        match = play_with_agents(KortMatch({"target_wins": 3}, seed=int(row.seed)),
                           [make_agent(row[f"agent_{s}"], game=GAME) for s in range(4)], int(row.seed))
        assert list(group["round"]) == list(range(match.rounds_played))
        for record, (_, round_row) in zip(match.rounds, group.iterrows(), strict=True):
            assert (round_row.holder, round_row.trump, bool(round_row.trump_13), round_row.redeals) == (
                record["holder"], record["trump"], record["trump_13"], record["redeals"])
            assert [round_row.tricks_team0, round_row.tricks_team1] == record["tricks"]
            assert (round_row.result, round_row.result_team, round_row.wins, bool(round_row.bavan)) == (
                record["result"], record["team"], record["wins"], record["bavan"])
            assert [round_row.match_wins_team0, round_row.match_wins_team1] == record["score"]
            for team in (0, 1):
                assert {kind: round_row[f"{kind}_team{team}"] for kind in DECLARATIONS} == counted_declarations(
                    record, team)
        last = group.iloc[-1]
        assert [last.match_wins_team0, last.match_wins_team1] == [row.wins_team0, row.wins_team1]


def test_options_reach_the_matches_and_their_rounds(tmp_path):
    run_experiment(config(matches=20, options={"target_wins": "3", "first_holder": 1}), tmp_path / "run")
    matches, rounds = read(tmp_path / "run"), read(tmp_path / "run", "rounds")
    for frame in (matches, rounds):
        assert (frame.target_wins == 3).all() and (frame.first_holder == 1).all()
    assert (rounds[rounds["round"] == 0].holder == 1).all()
    assert (matches[["wins_team0", "wins_team1"]].max(axis=1) >= 3).all() and (matches.rounds <= 5).all()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["game"] == GAME and manifest["config"]["options"] == {"target_wins": 3, "first_holder": 1}
    assert "derive_seed(match_seed, 0)" in manifest["seed_derivation"] and "Table `rounds`" in manifest["schema"]


def test_the_rounds_record_every_kind_of_result_over_enough_random_matches(tmp_path):
    run_experiment(config(agents=["random"], matches=600), tmp_path / "run")
    rounds = read(tmp_path / "run", "rounds")
    assert set(rounds.result.astype(str)) == set(adapter.RESULTS)
    holder_team = rounds.holder % 2
    kort = rounds[rounds.result == "kort"]
    assert (kort.result_team == kort.holder % 2).all() and (kort.wins == 5).all()
    at_kort = rounds[rounds.result == "at_kort"]
    assert (at_kort.result_team != at_kort.holder % 2).all() and (at_kort.wins == 7).all()
    failed = rounds[rounds.result == "trop_failed"]
    assert (failed.result_team != failed.holder % 2).all()
    assert (rounds.trop_to_end_team0 + rounds.trop_to_end_team1 >= 1)[rounds.result == "trop_failed"].all()
    assert (rounds.sar_auto_team0 <= rounds.sar_team0).all() and (rounds.bavan == rounds.result.isin(
        ["bavan_made", "bavan_failed"])).all()
    assert (holder_team.groupby(rounds.hand_index).nunique() >= 1).all()


def test_the_schema_is_typed_and_documented(tmp_path):
    run = config(agents=["random"], matches=6)
    run_experiment(run, tmp_path / "run")
    categories = run_categories(run.run_id(), ["random"], run.adapter)
    for table in (None, "rounds"):
        path = next((tmp_path / "run" / (table or "hands")).glob("part-*.parquet"))
        schema = pq.read_schema(path)
        assert schema.metadata[b"knorri_sim_game"] == GAME.encode()
        assert schema.remove_metadata() == hands_schema(4, categories, run.adapter, GAME, table).remove_metadata()
        frame = read(tmp_path / "run", table or "hands")
        for spec, name, _ in hand_fields(4, run.adapter, table):
            if spec.categories is not None:
                assert frame[name].dtype == "category", name
            elif not (spec.nullable or spec.per_seat):
                assert frame[name].dtype == np.dtype(spec.dtype), name
    assert list(read(tmp_path / "run", "rounds").result.cat.categories) == list(adapter.RESULTS)
    doc = markdown_table(run.adapter)
    assert all(f"`{spec.name}" in doc for spec in HAND_COLUMNS + ROUND_COLUMNS)
    assert "Table `rounds`" in doc and "`round` | int16" in doc and "a whole Kort match" in doc


def test_the_summary_gives_each_agent_its_teams_mean_result_and_win_rate(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--game", GAME, "--agents", ";".join(LINEUP), "--assign", "rotate", "--matches", "20",
                 "--seed", "2", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "seat-matches" in printed and "win rate" in printed and "20 matches" in printed
    assert f"{out / 'hands'} and {out / 'rounds'}" in printed
    matches = read(out)
    long = pd.concat([pd.DataFrame({"agent": matches[f"agent_{s}"].astype(str), "score": matches[f"score_{s}"],
                                    "won": matches.winner_team == s % 2}) for s in range(4)])
    rows = {row.agent: row for row in summarise(out)}
    for agent, group in long.groupby("agent"):
        assert rows[agent].mean_score == pytest.approx(group.score.mean())
        assert rows[agent].outcome_rate == pytest.approx(group.won.mean())
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0  # the manifest's game, not Knorri's
    assert capsys.readouterr().out.splitlines()[:4] == printed.splitlines()[:4]


def test_rotating_a_lineup_of_two_teams_puts_each_agent_on_both_teams(tmp_path):
    run = config(agents=["greedy", "random", "greedy", "random"], assign="rotate")
    assert arrangements(run.tables[0]) == (("greedy", "random") * 2, ("random", "greedy") * 2)
    run_experiment(config(assign="rotate", matches=8), tmp_path / "run")
    matches = read(tmp_path / "run")
    assert matches.groupby("deal_group").arrangement.nunique().eq(2).all()
    assert set(matches.agent_0.astype(str)) == {"random", PYTHON_RANDOM}
    assert (matches.agent_0.astype(str) == matches.agent_2.astype(str)).all()


# ----- the compiled path -----------------------------------------------------------------------


@pytest.fixture
def compiled_calls(monkeypatch):
    """Counts the matches the compiled engine plays for the runner (the path taken, seen from outside)."""
    return count_batches(monkeypatch, batch)


@pytest.mark.parametrize("options", [{}, {"target_wins": 3, "first_holder": 3}])
def test_a_random_lineup_plays_on_the_compiled_engine_and_writes_the_reference_engines_rows(
        options, tmp_path, compiled_calls):
    # engine "compiled": "auto" would play a first, uncached run on the reference engine (its rows are the same)
    run = config(agents=["random"], matches=150, chunk_hands=40, options=options, engine="compiled")
    run_experiment(run, tmp_path / "compiled")
    assert sum(compiled_calls) == 150 and routes.choose_route(adapter, GAME, [["random"] * 4], False) == routes.ENGINE
    run_experiment(dataclasses.replace(run, engine="reference"), tmp_path / "reference")
    assert sum(compiled_calls) == 150
    for table in ("hands", "rounds"):
        compiled, reference = read(tmp_path / "compiled", table), read(tmp_path / "reference", table)
        pd.testing.assert_frame_equal(compiled, reference)
    rounds = read(tmp_path / "compiled", "rounds")
    assert rounds.result.nunique() >= 4 and rounds.trop_team1.max() >= 1 and rounds.sar_auto_team0.max() >= 1


def test_an_action_log_plays_random_lineups_on_the_reference_engine_with_the_same_rows(tmp_path, compiled_calls):
    run = config(agents=["random"], matches=30, chunk_hands=10, engine="compiled")
    run_experiment(run, tmp_path / "compiled")
    run_experiment(dataclasses.replace(run, log_actions=True, engine="auto"), tmp_path / "logged")
    assert sum(compiled_calls) == 30  # the logged run played no compiled batch: the playouts keep no log
    for table in ("hands", "rounds"):
        compiled, logged = (read(tmp_path / name, table).drop(columns="run_id") for name in ("compiled", "logged"))
        pd.testing.assert_frame_equal(compiled, logged)  # the run id says whether actions were logged
    actions = read(tmp_path / "logged", "actions")
    assert len(actions) == read(tmp_path / "logged").decisions.sum()
    assert set(actions.phase) == {0, 1, 2, 3, 4} and actions["round"].max() >= 6


def test_a_lineup_with_an_agent_by_import_path_is_not_compiled():
    assert routes.choose_route(adapter, GAME, [["random", " random ", "random", "random"]], False) == routes.ENGINE
    python_random = ["random", PYTHON_RANDOM, "random", "random"]
    assert routes.choose_route(adapter, GAME, [python_random], False) == routes.REFERENCE
    with pytest.raises(ValueError, match="the compiled engine plays only lineups of random"):
        routes.play_matches(GAME, 4, [1], [["random", PYTHON_RANDOM, "random", "random"]], engine="compiled")


# ----- reproducibility and faults ---------------------------------------------------------------


def test_rows_are_identical_whatever_the_worker_count(tmp_path):
    one = build_config({"game": GAME, "tables": [{"seats": 4, "agents": ["random"]},
                                                  {"seats": 4, "agents": LINEUP, "assign": "rotate"}],
                        "matches": 10, "seed": 8, "chunk_hands": 3, "workers": 1, "options": {"target_wins": 3}})
    run_experiment(one, tmp_path / "one")
    run_experiment(dataclasses.replace(one, workers=2), tmp_path / "two")
    for table in ("hands", "rounds"):
        pd.testing.assert_frame_equal(read(tmp_path / "one", table), read(tmp_path / "two", table))


def test_a_killed_run_resumes_to_every_match_and_round_exactly_once(tmp_path):
    out = tmp_path / "run"
    options = ["--game", GAME, "--agents", PYTHON_RANDOM, "--matches", "120", "--chunk-hands", "2", "--seed", "5",
               "--option", "target_wins=3", "--workers", "1", "--no-progress"]
    kill_run_after_shards(options, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == GAME and len(manifest["chunks_complete"]) < manifest["chunks_total"]
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["chunks_complete"]) == 60
    # the command took assign = "rotate" from experiments/configs/kort.toml
    whole = build_config({"game": GAME, "agents": [PYTHON_RANDOM], "assign": "rotate", "matches": 120,
                          "chunk_hands": 2, "seed": 5, "workers": 1, "options": {"target_wins": 3}})
    run_experiment(whole, tmp_path / "whole")
    assert list(read(out).hand_index) == list(range(120))
    for table in ("hands", "rounds"):
        pd.testing.assert_frame_equal(read(out, table), read(tmp_path / "whole", table))
    assert not list(out.glob("*/.part-*"))


def test_a_dask_cluster_writes_the_local_runs_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    run = build_config({"game": GAME, "tables": [{"seats": 4, "agents": ["random"]},
                                                  {"seats": 4, "agents": LINEUP, "assign": "rotate"}],
                        "matches": 6, "seed": 99, "chunk_hands": 2, "workers": 1, "log_actions": True,
                        "options": {"target_wins": 3}})
    run_experiment(run, tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        run_experiment(dataclasses.replace(run, scheduler=cluster.scheduler_address), tmp_path / "dask")
    for table in ("hands", "rounds"):
        pd.testing.assert_frame_equal(read(tmp_path / "local", table), read(tmp_path / "dask", table))
    local = read(tmp_path / "local", "actions").sort_values(["hand_index", "step"]).reset_index(drop=True)
    dask = read(tmp_path / "dask", "actions").sort_values(["hand_index", "step"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(local, dask)


# ----- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("options, words", [
    (["--game", GAME, "--seats", "3"], "Kort is always played by 4 seats, not 3"),
    (["--game", GAME, "--agents", "random;random;random"], "3 agent specs for 4 seats"),
    (["--game", GAME, "--option", "target_wins=0"], "option target_wins is a number of wins 1 to 100"),
    (["--game", GAME, "--option", "target_wins=seven"], "option target_wins is a number of wins 1 to 100"),
    (["--game", GAME, "--option", "first_holder=4"], "option first_holder is a seat 0 to 3, not 4"),
    (["--game", GAME, "--option", "jokers=1"], "unknown option 'jokers': Kort's options are target_wins, first_holder"),
    (["--game", GAME, "--option", "target_wins"], "--option is written name=value"),
    (["--game", GAME, "--matches", "4", "--match-hands", "3"], "match_hands (--match-hands) is not for Kort"),
    (["--game", GAME, "--agents", "loginf"], "unknown agent 'loginf' for kort: known agents are"),
])
def test_bad_options_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, options, words):
    out = tmp_path / "out"
    assert main(["run", "--out", str(out), "--no-progress", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:") and words in err, err
    assert not out.exists()


def test_a_failing_agent_stops_the_run_naming_the_match_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--game", GAME, "--agents", "runner_fixtures.agents:Raises", "--matches", "2", "--workers",
                 "1", "--no-progress", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "agent 'runner_fixtures.agents:Raises' at seat 0 failed in the Kort match " \
        "with seed" in err and "--resume" in err, err


def test_the_default_experiment_is_the_kort_config_and_a_match_seed_is_the_documented_derivation(tmp_path, capsys):
    assert main(["run", "--game", GAME, "--matches", "4", "--workers", "1", "--no-progress", "--out",
                 str(tmp_path / "run")]) == 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["name"] == "kort" and manifest["config"]["options"] == {"target_wins": 7,
                                                                                       "first_holder": 0}
    assert derive_seed(12345, 0) == derive_seed(12345, 0)
