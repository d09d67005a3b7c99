"""The experiment runner: config, seating, seeds, schema, replay, reproducibility and one-line errors."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

from agents.base import known_agents, parse_spec
from agents.lineup import split_agent_specs
from experiments.cli import main
from experiments.runner.config import ConfigError, TableConfig, build_config, load_file
from experiments.runner.execute import run_experiment
from experiments.runner.plan import arrangements, check_lineups, table_plans
from experiments.runner.schema import hand_fields, hands_schema, markdown_table, run_categories
from experiments.runner.seating import agent_maker
from sim.knorri.adapter import HAND_COLUMNS, replay
from sim.knorri.match import play_match
from sim.rng import derive_seed


def small_config(**changes):
    raw = {"seats": 3, "agents": ["random"], "hands": 24, "seed": 7, "chunk_hands": 8, "workers": 1}
    raw.update(changes)
    return build_config(raw)


def read_hands(out):
    return pd.read_parquet(out / "hands").sort_values("hand_index").reset_index(drop=True)


# ----- config and plan --------------------------------------------------------------------------


def test_agent_specs_split_on_commas_only_where_a_new_spec_starts():
    assert split_agent_specs("random,greedy") == ["random", "greedy"]
    assert split_agent_specs("random,mcts:iters=400,c=1.4,greedy") == ["random", "mcts:iters=400,c=1.4", "greedy"]
    assert split_agent_specs("my.mod:Bot:x=1,y=2;random") == ["my.mod:Bot:x=1,y=2", "random"]


def test_rotations_and_permutations_are_distinct_seatings_of_the_lineup():
    lineup = ("a", "b", "c", "d")
    assert arrangements(TableConfig(4, lineup, "fixed")) == (lineup,)
    rotations = arrangements(TableConfig(4, lineup, "rotate"))
    assert rotations[1] == ("b", "c", "d", "a") and len(rotations) == 4
    assert len(arrangements(TableConfig(4, lineup, "permute"))) == 24
    assert len(arrangements(TableConfig(4, ("a", "a", "b", "b"), "permute"))) == 6
    assert arrangements(TableConfig(3, ("a", "a", "a"), "rotate")) == (("a", "a", "a"),)


def test_hands_round_up_to_whole_duplicate_sets():
    config = build_config({"seats": 4, "agents": ["random", "greedy", "random", "greedy"], "assign": "rotate",
                           "hands": 7})
    (plan,) = table_plans(config)
    assert len(plan.seatings) == 2 and plan.groups == 4 and plan.hands == 8


def test_toml_and_yaml_files_give_the_same_config(tmp_path):
    toml = tmp_path / "x.toml"
    toml.write_text('seed = 5\nmatches = 4\nmatch_hands = 3\n[[tables]]\nseats = 3\nagents = "random"\n'
                    '[[tables]]\nseats = 5\nagents = ["random"]\nassign = "rotate"\n')
    yaml = tmp_path / "x.yaml"
    yaml.write_text("seed: 5\nmatches: 4\nmatch_hands: 3\ntables:\n  - {seats: 3, agents: random}\n"
                    "  - {seats: 5, agents: [random], assign: rotate}\n")
    assert build_config(load_file(toml)) == build_config(load_file(yaml))


def test_every_checked_in_config_is_valid():
    paths = sorted((ROOT / "experiments" / "configs").glob("*.*"))
    assert {p.suffix for p in paths} >= {".toml", ".yaml"}
    for path in paths:
        if path.suffix in (".toml", ".yaml"):
            config = build_config(load_file(path), str(path))
            check_lineups(config)
    default = build_config(load_file(ROOT / "experiments" / "configs" / "default.toml"))
    # every hand-written agent; learned (a trained network) is left out so the default run stays what it measured
    assert {parse_spec(spec)[0] for spec in default.tables[0].agents} == set(known_agents()) - {"learned"}


@pytest.mark.parametrize("raw, words", [
    ({"seats": 7, "hands": 5}, "3 to 6 seats"),
    ({"hands": 0}, "hands must be at least 1"),
    ({"hands": 5, "matches": 5}, "not both"),
    ({"matches": 5, "match_hands": 2}, "match_hands must be one of 1, 3, 5"),
    ({"hands": 5, "colour": "red"}, "unknown key 'colour'"),
    ({"hands": 5, "seats": 4, "agents": ["random", "random"]}, "2 agent specs for 4 seats"),
])
def test_bad_configs_are_refused_in_one_line(raw, words):
    with pytest.raises(ConfigError, match=words) as caught:
        build_config(raw)
    assert "\n" not in str(caught.value)


# ----- rows -------------------------------------------------------------------------------------


def test_rows_follow_the_documented_seeds_and_replay_with_the_play_command(tmp_path, capsys):
    config = small_config(seats=4, agents=["random", "runner_fixtures.agents:PythonRandom"] * 2, assign="rotate")
    run_experiment(config, tmp_path / "run")
    hands = read_hands(tmp_path / "run")
    assert list(hands.hand_index) == list(range(24))
    expected = [derive_seed(derive_seed(7, 0, g), 0) for g in hands.deal_group]
    assert list(hands.seed) == expected
    assert (hands.groupby("deal_group").seed.nunique() == 1).all()
    assert list(hands.arrangement[:4]) == [0, 1, 0, 1]
    row = hands.iloc[5]
    specs = ";".join(row[f"agent_{s}"] for s in range(4))
    assert main(["play", "--seats", "4", "--seed", str(row.seed), "--first", str(row.first_seat),
                 "--agents", specs, "--json"]) == 0
    end = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert end["scores"] == [int(row[f"score_{s}"]) for s in range(4)]
    assert end["reason"] == row.end_reason


def test_matches_follow_the_loser_and_equal_play_match(tmp_path):
    config = small_config(hands=None, matches=4, match_hands=3, chunk_hands=6)
    run_experiment(config, tmp_path / "run")
    hands = read_hands(tmp_path / "run")
    assert len(hands) == 12 and hands.chunk.max() == 1
    from agents.base import make_agent

    for _, match in hands.groupby("match"):
        seed = int(match.match_seed.iloc[0])
        result = play_match(3, 3, seed, [make_agent("random") for _ in range(3)])
        assert list(match.first_seat) == [h.first_seat for h in result.hands]
        assert [[int(r[f"score_{s}"]) for s in range(3)] for _, r in match.iterrows()] == [
            h.scores for h in result.hands]


def test_action_log_replays_every_hand_to_the_same_result(tmp_path):
    config = small_config(log_actions=True, hands=12)
    run_experiment(config, tmp_path / "run")
    hands = read_hands(tmp_path / "run")
    actions = pd.read_parquet(tmp_path / "run" / "actions")
    for _, row in hands.iterrows():
        steps = actions[actions.hand_index == row.hand_index].sort_values("step")
        assert list(steps.step) == list(range(int(row.decisions)))
        hand = replay(3, int(row.seed), int(row.first_seat), steps.action.tolist())
        assert hand.done and hand.end_reason.value == row.end_reason
        assert hand.scores == [int(row[f"score_{s}"]) for s in range(3)]
        assert [hand.hands[s] for s in range(3)] == [int(row[f"held_{s}"]) for s in range(3)]


def test_schema_has_the_documented_types(tmp_path):
    config = build_config({"tables": [{"seats": 3, "agents": ["random"]}, {"seats": 5, "agents": ["random"]}],
                           "hands": 4, "seed": 1, "workers": 1})
    run_experiment(config, tmp_path / "run")
    path = next((tmp_path / "run" / "hands").glob("part-*.parquet"))
    categories = run_categories(config.run_id(), ["random"], config.adapter)
    assert pq.read_schema(path).remove_metadata() == hands_schema(5, categories, config.adapter,
                                                                  config.game).remove_metadata()
    frame = read_hands(tmp_path / "run")
    for spec, name, seat in hand_fields(5, config.adapter):
        if spec.categories is not None:
            assert frame[name].dtype == "category", name
        elif not (spec.nullable or (seat is not None and seat >= 3)):
            assert frame[name].dtype == np.dtype(spec.dtype), name
    assert frame.loc[frame.n_seats == 3, "score_4"].isna().all()
    assert set(frame.end_reason.cat.categories) == {"out", "repeat", "cap"}
    doc = markdown_table(config.adapter)
    assert all(f"`{spec.name}" in doc for spec in HAND_COLUMNS)


# ----- reproducibility --------------------------------------------------------------------------


def test_rows_are_identical_whatever_the_worker_count(tmp_path):
    one = build_config({"tables": [{"seats": 3, "agents": ["random"]},
                                   {"seats": 4, "agents": ["runner_fixtures.agents:PythonRandom", "greedy"] * 2}],
                        "hands": 20, "seed": 5, "chunk_hands": 5, "workers": 1})
    two = dataclasses.replace(one, workers=2)
    run_experiment(one, tmp_path / "one")
    run_experiment(two, tmp_path / "two")
    pd.testing.assert_frame_equal(read_hands(tmp_path / "one"), read_hands(tmp_path / "two"))


# ----- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("options, words", [
    (["--agents", "nosuchagent"], "unknown agent 'nosuchagent'"),
    (["--seats", "7"], "3 to 6 seats"),
    (["--hands", "0"], "hands must be at least 1"),
    (["--hands", "-3"], "hands must be at least 1"),
    (["--seats", "4", "--agents", "random;random"], "2 agent specs for 4 seats"),
    (["--config", "no/such/file.toml"], "does not exist"),
    (["--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--engine", "compiled"],
     "table 0: the compiled engine plays only lineups of random, greedy, loginf, mcts"),
])
def test_bad_options_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, options, words):
    out = tmp_path / "out"
    assert main(["run", "--out", str(out), "--no-progress", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knorri-sim: error:") and words in err
    assert not out.exists()


def test_a_folder_holding_another_run_is_refused_and_left_alone(tmp_path, capsys):
    out = tmp_path / "out"
    base = ["run", "--seats", "3", "--agents", "random", "--hands", "6", "--workers", "1", "--no-progress"]
    assert main([*base, "--seed", "1", "--out", str(out)]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main([*base, "--seed", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds another run (run " in err and "would go on with that other run" in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert main([*base, "--out", str(tmp_path / "other")]) == 2
    assert "not empty" in capsys.readouterr().err


# ----- summary and resume of a finished run -----------------------------------------------------


def test_summary_matches_the_rows_and_a_finished_run_resumes_to_its_summary(tmp_path, capsys):
    from experiments.runner.summary import summarise

    out = tmp_path / "run"
    options = ["--seats", "3", "--agents", "random;greedy;runner_fixtures.agents:PythonRandom", "--assign", "rotate",
               "--hands", "30",
               "--seed", "4", "--workers", "1", "--no-progress"]
    assert main(["run", *options, "--out", str(out)]) == 0
    first = capsys.readouterr().out
    hands = read_hands(out)
    long = pd.concat([pd.DataFrame({"agent": hands[f"agent_{s}"].astype(str), "score": hands[f"score_{s}"],
                                    "lost": hands.loser == s, "group": hands.deal_group}) for s in range(3)])
    rows = {row.agent: row for row in summarise(out)}
    for agent, group in long.groupby("agent"):
        assert rows[agent].seat_hands == len(group)
        assert rows[agent].mean_score == pytest.approx(group.score.mean())
        assert rows[agent].outcome_rate == pytest.approx(group.lost.mean())
        clusters = group.groupby("group").score.agg(["sum", "count"])
        residual = clusters["sum"] - group.score.mean() * clusters["count"]
        variance = len(clusters) / (len(clusters) - 1) * (residual**2).sum() / clusters["count"].sum() ** 2
        assert rows[agent].ci95 == pytest.approx(1.959964 * variance**0.5)
    assert rows["random"].ci95 > 0
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[:4] == first.splitlines()[:4]
    assert main(["run", "--resume", str(out), "--hands", "5"]) == 2
    assert "--hands cannot be given with it" in capsys.readouterr().err
    assert main(["run", *options, "--out", str(out)]) == 2
    assert "already holds this run" in capsys.readouterr().err


def test_half_written_files_and_damaged_shards_never_count_as_complete(tmp_path):
    from experiments.runner import integrity, storage

    def record_of(out, chunk):
        snapshot = integrity.take_snapshot(storage.RunFolder(out))
        return snapshot.records[chunk], snapshot.run_id

    out = tmp_path / "run"
    run_experiment(small_config(hands=16), out)
    before = read_hands(out)
    (out / "hands" / ".part-000001.parquet.999.tmp").write_bytes(b"PAR1 half a shard")
    (out / ".manifest.json.999.tmp").write_text('{"status": "half wr')
    pd.testing.assert_frame_equal(read_hands(out), before)  # readers skip the temporary name
    (out / "hands" / "part-000001.parquet").write_bytes(b"PAR1 damaged")
    assert integrity.shard_problem(storage.RunFolder(out), "hands", 0, *record_of(out, 0)) is None
    assert "part-000001.parquet is damaged" in integrity.shard_problem(storage.RunFolder(out), "hands", 1,
                                                                      *record_of(out, 1))
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    assert not list(out.rglob("*.tmp"))
    pd.testing.assert_frame_equal(read_hands(out), before)


# ----- the two engines behind the adapter -------------------------------------------------------


@pytest.mark.parametrize("lineup, match_hands", [(("random",) * 4, 1), (("random", "greedy", "greedy"), 3),
                                                 (("greedy", "random", "random", "random", "random"), 1)])
def test_compiled_and_reference_engines_give_identical_columns(lineup, match_hands):
    from sim.knorri.adapter import play_matches

    seeds = [derive_seed(2024, m) for m in range(12)]
    make_agent = agent_maker("knorri")
    seatings = [lineup] * len(seeds)
    compiled = play_matches(len(lineup), seeds, seatings, match_hands, True, engine="compiled")
    reference = play_matches(len(lineup), seeds, seatings, match_hands, True, make_agent=make_agent,
                             engine="reference")
    for name, values in reference.hands.items():
        assert np.array_equal(np.ma.getdata(compiled.hands[name]), np.ma.getdata(values)), name
        assert np.array_equal(np.ma.getmaskarray(compiled.hands[name]), np.ma.getmaskarray(values)), name
        assert compiled.hands[name].dtype == values.dtype, name
    for name, values in reference.actions.items():
        assert np.array_equal(compiled.actions[name], values), name


def test_the_engine_is_chosen_per_run_changing_no_row_and_no_run_id(tmp_path):
    run = build_config({"seats": 3, "agents": ["random", "greedy", "loginf"], "hands": 24, "chunk_hands": 9,
                        "workers": 1, "assign": "rotate"})
    fast = build_config({"seats": 3, "agents": ["random", "greedy", "loginf"], "hands": 24, "engine": "fast"})
    assert (run.engine, fast.engine) == ("auto", "compiled")  # fast: the compiled engine's old name
    reference = dataclasses.replace(run, engine="reference")
    assert reference.run_id() == run.run_id()
    assert {plan.route for plan in table_plans(run)} == {"lineup"}
    assert {plan.route for plan in table_plans(reference)} == {"reference"}
    run_experiment(run, tmp_path / "auto")
    run_experiment(reference, tmp_path / "reference")
    pd.testing.assert_frame_equal(read_hands(tmp_path / "auto"), read_hands(tmp_path / "reference"))


def test_vectorised_seeds_equal_the_scalar_derivation():
    from experiments.runner.plan import match_seeds
    from sim.rng import derive_seeds

    seeds = np.array([0, 1, 2**63 + 5, 2**64 - 1], dtype=np.uint64)
    assert derive_seeds(seeds, 3).tolist() == [derive_seed(int(s), 3) for s in seeds]
    groups = np.array([0, 7, 2**40], dtype=np.uint64)
    assert match_seeds(11, 2, groups).tolist() == [derive_seed(11, 2, int(g)) for g in groups]
