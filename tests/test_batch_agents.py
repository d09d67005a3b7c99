"""Vectorised agents (``act_batch``) on each game's compiled batch engine, through ``knorri-sim run``.

An agent drawing from the per-deal streams ``random`` draws from writes ``random``'s rows in
every game, whatever the chunking, with the batch's compiled random and greedy policies at
the other seats; it is called once a step for many deals; a lineup with an agent the batch
engine cannot play, or a logged run, keeps the reference path; a failing agent is one line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from runner_fixtures.batch_agents import CountingBatchRandom, Resets

from experiments.cli import main
from experiments.runner import batch_agents, routes
from sim import games
from sim.contract import extra_tables
from sim.errors import AgentFailure
from sim.rng import agent_seed, derive_seed

BATCH_RANDOM = "agents.examples.batch_random:BatchRandom"
PYTHON_RANDOM = "runner_fixtures.agents:PythonRandom"
COUNTING = "runner_fixtures.batch_agents:CountingBatchRandom"


# game, seats, the other seats of the lineup, run options
CASES = [
    ("knorri", 4, ["random", "greedy"], ["--matches", "72", "--match-hands", "3", "--assign", "rotate"]),
    ("knockout-whist", 5, ["greedy", "random", "greedy"], ["--hands", "200", "--assign", "rotate"]),
    ("kort", 4, ["random", "random"], ["--matches", "60", "--assign", "rotate", "--option", "target_wins=3"]),
]


def _rows(out, table="hands"):
    frame = pd.read_parquet(out / table)
    keys = ["hand_index", "round"] if table == "rounds" else ["hand_index"]
    frame = frame.sort_values(keys).reset_index(drop=True)
    return frame.drop(columns=[c for c in frame.columns if c in ("run_id", "chunk") or c.startswith("agent")])


@pytest.mark.parametrize(("game", "seats", "others", "options"), CASES, ids=[case[0] for case in CASES])
def test_an_agent_mirroring_random_in_act_batch_writes_randoms_rows_through_run(tmp_path, game, seats, others,
                                                                                   options):
    def run(agent, out, chunk):
        lineup = [agent, *others, agent][:seats]
        argv = ["run", "--game", game, "--seats", str(seats), "--agents", ";".join(lineup), "--seed", "11",
                "--workers", "1", "--chunk-hands", str(chunk), "--out", str(tmp_path / out), "--no-progress",
                *options]
        assert main(argv) == 0

    CountingBatchRandom.calls.clear()
    run(COUNTING, "batch", 50)
    run(BATCH_RANDOM, "rechunked", 15)
    run(PYTHON_RANDOM, "random", 50)  # random under another name: the reference path, and rotations stay apart
    moves = sum(CountingBatchRandom.calls)
    assert moves > 1.5 * len(CountingBatchRandom.calls)  # many deals a call, not one
    tables = ["hands", *extra_tables(games.adapter(game))]
    for table in tables:
        want = _rows(tmp_path / "random", table)
        pd.testing.assert_frame_equal(_rows(tmp_path / "batch", table), want)
        pd.testing.assert_frame_equal(_rows(tmp_path / "rechunked", table), want)


def test_a_lineup_the_batch_engine_cannot_play_whole_keeps_the_reference_path():
    adapter = games.adapter("knorri")
    policies = adapter.BATCH_POLICIES
    lineup = [BATCH_RANDOM, "random", "greedy", "random"]
    assert batch_agents.takes_batch_path(False, [lineup], "knorri", policies)
    assert routes.choose_route(adapter, "knorri", [lineup], False) == routes.BATCH
    assert not batch_agents.takes_batch_path(False, [[BATCH_RANDOM, "loginf", "random", "random"]], "knorri",
                                             policies)
    assert not batch_agents.takes_batch_path(False, [["runner_fixtures.agents:PythonRandom", *lineup[1:]]],
                                             "knorri", policies)
    assert not batch_agents.takes_batch_path(True, [lineup], "knorri", policies)  # a logged run
    assert routes.choose_route(adapter, "knorri", [lineup], False, "reference") == routes.REFERENCE
    assert not batch_agents.takes_batch_path(False, [["random", "greedy", "random", "random"]], "knorri",
                                             policies)  # no batch agent: the compiled path as before


def test_a_batch_agent_plays_its_act_on_the_reference_path_with_the_same_rows():
    lineup = [[BATCH_RANDOM, "greedy", "random", BATCH_RANDOM]]
    seeds = list(range(40))
    batched = routes.play_matches("knockout-whist", 4, seeds, lineup * 40, engine="compiled").hands
    reference = routes.play_matches("knockout-whist", 4, seeds, lineup * 40, engine="reference").hands
    for name, column in reference.items():
        assert np.array_equal(np.ma.getdata(batched[name]), np.ma.getdata(column)), name


def test_a_batch_agent_is_reset_once_a_batch_per_seat_with_the_first_deals_agent_seed():
    Resets.seen.clear()
    spec = "runner_fixtures.batch_agents:Resets"
    routes.play_matches("kort", 4, [7, 8, 9], [[spec, "random", "random", spec]] * 3, engine="compiled")
    first = derive_seed(7, 0)
    assert Resets.seen == [(0, agent_seed(first, 0)), (3, agent_seed(first, 3))]


@pytest.mark.parametrize(("spec", "says"), [
    ("runner_fixtures.batch_agents:Illegal", "at seat 0 chose illegal action 99 in the hand with seed"),
    ("runner_fixtures.batch_agents:Raises", "at seat 0 failed in act_batch() in the hand"),
])
def test_a_failing_batch_agent_stops_the_chunk_in_one_line(spec, says):
    with pytest.raises(AgentFailure) as failure:
        routes.play_matches("knorri", 4, [1, 2], [[spec, "random", "random", "random"]] * 2, 1)
    assert says in str(failure.value) and "\n" not in str(failure.value)
