"""``knorri-sim run --game knockout-whist``: one row per game, with the runner's guarantees for Knorri.

Rows follow the documented seeds and equal games played directly; the action log
replays them; options reach the rows; a lineup of ``random`` plays on the compiled
engine and writes the rows the reference engine writes (other built-in lineups:
``tests/knockout_whist/test_compiled_agents.py``); the worker count, a
killed and resumed run and a Dask cluster never change a row; the schema is
documented; bad input is one line.
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
from experiments.runner.config import ConfigError, build_config, load_file
from experiments.runner.execute import run_experiment
from experiments.runner.schema import hand_fields, hands_schema, markdown_table, run_categories
from experiments.runner.summary import summarise
from sim.knockout_whist import adapter
from sim.knockout_whist.adapter import HAND_COLUMNS, replay
from sim.knockout_whist.compiled import batch
from sim.knockout_whist.encoding import FLAG_OPTIONS
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import derive_seed
from sim.seating import play_with_agents

GAME = "knockout-whist"
LINEUP = ["random", "runner_fixtures.agents:PythonRandom", "random", "runner_fixtures.agents:PythonRandom"]


def config(**changes):
    raw = {"game": GAME, "seats": 4, "agents": LINEUP, "hands": 24, "seed": 3, "chunk_hands": 8, "workers": 1}
    raw.update(changes)
    return build_config(raw)


def read_hands(out):
    return pd.read_parquet(out / "hands").sort_values("hand_index").reset_index(drop=True)


def seat_values(row, name, seats):
    return [int(row[f"{name}_{seat}"]) for seat in range(seats)]


# ----- rows -------------------------------------------------------------------------------------


def test_a_row_is_a_game_dealt_from_the_documented_seed_and_played_as_directly(tmp_path):
    run_experiment(config(assign="rotate", log_actions=True), tmp_path / "run")
    games = read_hands(tmp_path / "run")
    actions = pd.read_parquet(tmp_path / "run" / "actions")
    assert list(games.hand_index) == list(range(24)) and (games.hand_in_match == 0).all()
    assert list(games.match_seed) == [derive_seed(3, 0, int(g)) for g in games.deal_group]
    assert list(games.seed) == [derive_seed(int(m), 0) for m in games.match_seed]
    assert (games.groupby("deal_group").seed.nunique() == 1).all()
    for _, row in games.iloc[:6].iterrows():
        specs = [row[f"agent_{seat}"] for seat in range(4)]
        game = play_with_agents(KnockoutWhistGame({"players": 4}, seed=int(row.seed)),
                         [make_agent(spec, game=GAME) for spec in specs], int(row.seed))
        assert (game.winner, game.hands_played, game.end_reason.value) == (row.winner, row.hands_played,
                                                                            row.end_reason)
        assert game.scores == seat_values(row, "score", 4) and len(game.decisions) == row.decisions
        steps = actions[actions.hand_index == row.hand_index].sort_values("step")
        assert steps.action.tolist() == game.decisions
        again = replay({"players": 4}, int(row.seed), steps.action.tolist())
        assert again.done and again.scores == game.scores


def test_rows_record_the_knockout_order_and_the_dogs_lives(tmp_path):
    run_experiment(config(hands=40), tmp_path / "run")
    for _, row in read_hands(tmp_path / "run").iterrows():
        places, out = seat_values(row, "place", 4), [row[f"out_hand_{seat}"] for seat in range(4)]
        assert places[row.winner] == 1 and pd.isna(out[row.winner]) and sum(seat_values(row, "score", 4)) == 0
        for seat in range(4):
            if seat != row.winner:
                assert places[seat] == 1 + sum(pd.isna(o) or o > out[seat] for o in out)
        dogs = [row[f"dog_hand_{seat}"] for seat in range(4)]
        assert row.dogs_given == sum(not pd.isna(d) for d in dogs) and row.dogs_saved <= row.dogs_given
        assert row.seats_left == 1 + sum(pd.isna(o) for seat, o in enumerate(out) if seat != row.winner)


def test_options_reach_the_games_and_their_rows(tmp_path):
    run_experiment(config(hands=60, options={"dogs_life": False, "rainbow": "on"}), tmp_path / "run")
    games = read_hands(tmp_path / "run")
    assert (~games.dogs_life).all() and games.rainbow.all() and (~games.card_exchange).all()
    assert (games.dogs_given == 0).all()
    rainbows = games[games.end_reason == "rainbow"]
    assert len(rainbows) > 0 and (rainbows.hands_played == 4).all()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["game"] == GAME and manifest["config"]["options"]["rainbow"] is True
    assert "derive_seed(match_seed, 0)" in manifest["seed_derivation"]


def test_the_schema_is_typed_and_documented(tmp_path):
    run = build_config({"game": GAME, "tables": [{"seats": 2, "agents": ["random"]},
                                                  {"seats": 7, "agents": ["random"]}], "hands": 3, "workers": 1})
    run_experiment(run, tmp_path / "run")
    path = next((tmp_path / "run" / "hands").glob("part-*.parquet"))
    schema = pq.read_schema(path)
    assert schema.metadata[b"knorri_sim_game"] == GAME.encode()
    categories = run_categories(run.run_id(), ["random"], run.adapter)
    assert schema.remove_metadata() == hands_schema(7, categories, run.adapter, GAME).remove_metadata()
    frame = read_hands(tmp_path / "run")
    for spec, name, _ in hand_fields(7, run.adapter):
        if spec.categories is not None:
            assert frame[name].dtype == "category", name
        elif not (spec.nullable or spec.per_seat):
            assert frame[name].dtype == np.dtype(spec.dtype), name
    assert frame.loc[frame.n_seats == 2, "score_6"].isna().all()
    assert set(frame.end_reason.cat.categories) == {"last_trick", "last_standing", "rainbow"}
    doc = markdown_table(run.adapter)
    assert all(f"`{spec.name}" in doc for spec in HAND_COLUMNS) and all(f"`{name}`" in doc for name in FLAG_OPTIONS)
    assert "a match is one game" in doc and "`hand` | int16" in doc


def test_the_summary_gives_each_agents_mean_score_and_win_rate(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--game", GAME, "--seats", "3", "--agents", "random;runner_fixtures.agents:PythonRandom;random",
                 "--assign", "rotate", "--hands", "30", "--seed", "2", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "seat-games" in printed and "win rate" in printed and "30 games" in printed
    games = read_hands(out)
    long = pd.concat([pd.DataFrame({"agent": games[f"agent_{s}"].astype(str), "score": games[f"score_{s}"],
                                    "won": games.winner == s}) for s in range(3)])
    rows = {row.agent: row for row in summarise(out)}
    for agent, group in long.groupby("agent"):
        assert rows[agent].mean_score == pytest.approx(group.score.mean())
        assert rows[agent].outcome_rate == pytest.approx(group.won.mean())
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0  # the manifest's game, not Knorri's
    assert capsys.readouterr().out.splitlines()[:4] == printed.splitlines()[:4]


# ----- the compiled path -----------------------------------------------------------------------


@pytest.fixture
def compiled_calls(monkeypatch):
    """Counts the compiled engine's batches the runner plays (the path taken, seen from outside)."""
    return count_batches(monkeypatch, batch)


@pytest.mark.parametrize("seats, options", [
    (4, {}),
    (2, {"dogs_life": False, "winner_deals": True}),
    (5, {"safe_first_hand": True, "rainbow": True}),
    (7, {"card_exchange": True, "no_trumps_choice": True, "rainbow": True}),
])
def test_a_random_lineup_plays_on_the_compiled_engine_and_writes_the_reference_engines_rows(
        seats, options, tmp_path, compiled_calls):
    # engine "compiled": "auto" would play a first, uncached run on the reference engine (its rows are the same)
    run = config(seats=seats, agents=["random"], hands=90, chunk_hands=25, options=options, engine="compiled")
    run_experiment(run, tmp_path / "compiled")
    assert sum(compiled_calls) == 90
    assert routes.choose_route(adapter, GAME, [["random"] * seats], False) == routes.ENGINE
    run_experiment(dataclasses.replace(run, engine="reference"), tmp_path / "reference")
    assert sum(compiled_calls) == 90
    compiled, reference = read_hands(tmp_path / "compiled"), read_hands(tmp_path / "reference")
    assert len(compiled) == 90 and compiled.dogs_given.nunique() + compiled.end_reason.nunique() > 2
    pd.testing.assert_frame_equal(compiled, reference)


def test_an_action_log_plays_random_lineups_on_the_reference_engine_with_the_same_rows(tmp_path, compiled_calls):
    run = config(seats=3, agents=["random"], hands=40, chunk_hands=10, options={"card_exchange": True},
                 engine="compiled")
    run_experiment(run, tmp_path / "compiled")
    run_experiment(dataclasses.replace(run, log_actions=True, engine="auto"), tmp_path / "logged")
    assert sum(compiled_calls) == 40  # the logged run played no compiled batch: the playouts keep no log
    compiled, logged = (read_hands(tmp_path / name).drop(columns="run_id") for name in ("compiled", "logged"))
    pd.testing.assert_frame_equal(compiled, logged)  # the run id says whether actions were logged
    assert len(pd.read_parquet(tmp_path / "logged" / "actions")) == read_hands(tmp_path / "logged").decisions.sum()


def test_only_built_in_seats_make_a_compiled_lineup():
    assert routes.choose_route(adapter, GAME, [["random", " random "]], False) == routes.ENGINE
    assert routes.choose_route(adapter, GAME, [["random", "greedy"]], False) == routes.LINEUP
    python_random = ["random", "runner_fixtures.agents:PythonRandom"]
    assert routes.choose_route(adapter, GAME, [python_random], False) == routes.REFERENCE
    with pytest.raises(ValueError, match="the compiled engine plays only lineups of random"):
        routes.play_matches(GAME, 2, [1], [["runner_fixtures.agents:PythonRandom", "random"]], engine="compiled")
    with pytest.raises(ValueError, match="the engine's own policies play only lineups of random"):
        adapter.play_matches(2, [1], [["greedy", "random"]], engine="compiled")


# ----- reproducibility and faults ---------------------------------------------------------------


def test_rows_are_identical_whatever_the_worker_count(tmp_path):
    one = build_config({"game": GAME, "tables": [{"seats": 2, "agents": ["random"]}, {"seats": 5, "agents": LINEUP[:1]
                                                                                      + LINEUP}],
                        "hands": 16, "seed": 8, "chunk_hands": 5, "workers": 1, "options": {"winner_deals": True}})
    run_experiment(one, tmp_path / "one")
    run_experiment(dataclasses.replace(one, workers=2), tmp_path / "two")
    pd.testing.assert_frame_equal(read_hands(tmp_path / "one"), read_hands(tmp_path / "two"))


def test_a_killed_run_resumes_to_every_game_exactly_once(tmp_path):
    out = tmp_path / "run"
    options = ["--game", GAME, "--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "240",
               "--chunk-hands", "2", "--seed", "5", "--assign", "fixed", "--workers", "1", "--no-progress"]
    kill_run_after_shards(options, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == GAME and len(manifest["chunks_complete"]) < manifest["chunks_total"]
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["chunks_complete"]) == 120
    whole = build_config({"game": GAME, "seats": 3, "agents": ["runner_fixtures.agents:PythonRandom"],
                          "hands": 240, "chunk_hands": 2, "seed": 5, "workers": 1})
    run_experiment(whole, tmp_path / "whole")
    resumed = read_hands(out)
    assert list(resumed.hand_index) == list(range(240))
    pd.testing.assert_frame_equal(resumed, read_hands(tmp_path / "whole"))


def test_a_dask_cluster_writes_the_local_runs_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    run = build_config({"game": GAME, "tables": [{"seats": 3, "agents": ["random"]},
                                                  {"seats": 4, "agents": LINEUP, "assign": "rotate"}],
                        "hands": 12, "seed": 99, "chunk_hands": 4, "workers": 1, "log_actions": True,
                        "options": {"card_exchange": True}})
    run_experiment(run, tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        run_experiment(dataclasses.replace(run, scheduler=cluster.scheduler_address), tmp_path / "dask")
    pd.testing.assert_frame_equal(read_hands(tmp_path / "local"), read_hands(tmp_path / "dask"))
    local = pd.read_parquet(tmp_path / "local" / "actions").sort_values(["hand_index", "step"])
    dask = pd.read_parquet(tmp_path / "dask" / "actions").sort_values(["hand_index", "step"])
    pd.testing.assert_frame_equal(local.reset_index(drop=True), dask.reset_index(drop=True))
    assert (local.phase == 1).any()  # the card exchange's decisions are logged


# ----- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("options, words", [
    (["--game", "chess"], "unknown game 'chess': the games are knorri, knockout-whist"),
    (["--game", GAME, "--seats", "8"], "Knockout Whist is for 2 to 7 seats, not 8"),
    (["--game", GAME, "--seats", "1"], "Knockout Whist is for 2 to 7 seats, not 1"),
    (["--game", GAME, "--option", "jokers=true"], "unknown Knockout Whist option 'jokers': the options are dogs_life"),
    (["--game", GAME, "--option", "players=5"], "the number of players is set by the seat count"),
    (["--game", GAME, "--option", "rainbow=maybe"], "option rainbow is true or false, not 'maybe'"),
    (["--game", GAME, "--option", "rainbow"], "--option is written name=value"),
    (["--game", GAME, "--matches", "4", "--match-hands", "3"], "match_hands (--match-hands) is not for Knockout"),
    (["--game", GAME, "--agents", "loginf"], "unknown agent 'loginf' for knockout-whist: known agents are"),
    (["--seats", "4", "--option", "rainbow=true"], "unknown option 'rainbow': Knorri's options are cap, repeat"),
])
def test_bad_options_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, options, words):
    out = tmp_path / "out"
    assert main(["run", "--out", str(out), "--no-progress", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:") and words in err, err
    assert not out.exists()


def test_config_files_name_the_game_and_its_options(tmp_path):
    path = tmp_path / "kw.toml"
    path.write_text('game = "knockout-whist"\nseats = 2\nhands = 5\n[options]\nsafe_first_hand = true\n')
    run = build_config(load_file(path))
    assert run.game == GAME and run.options == {name: name in ("dogs_life", "safe_first_hand")
                                                for name in FLAG_OPTIONS}
    assert run.run_id() != dataclasses.replace(run, options={**run.options, "rainbow": True}).run_id()
    with pytest.raises(ConfigError, match="options must be a table"):
        build_config({"game": GAME, "hands": 5, "options": ["rainbow"]})
    with pytest.raises(ConfigError, match="unknown game 'whist': the games are knorri, knockout-whist"):
        build_config({"game": "whist", "hands": 5})


def test_a_game_seed_is_the_documented_derivation():
    assert derive_seed(12345, 0) == derive_seed(12345, 0)
