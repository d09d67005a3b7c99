"""The compiled Kort engine's whole-match playouts against the reference engine: every conformance line,
the same lines and records on thousands of further seeds, the random policy's choices, and the bench."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DATA

from agents.base import make_agent
from experiments.cli import main
from sim.kort.compiled.batch import RESULTS, play_batch
from sim.kort.compiled.kernels import RESULT_WINS as COMPILED_RESULT_WINS
from sim.kort.compiled.state import max_rounds
from sim.kort.conformance import play_protocol_match, protocol_line
from sim.kort.encoding import DECLARATION_KINDS, RESULT_WINS, Options
from sim.kort.reference import KortMatch
from sim.rng import agent_seed

VECTORS = {7: DATA / "conformance" / "kort" / "traj_target7.txt", 3: DATA / "conformance" / "kort" / "traj_target3.txt"}


@pytest.mark.parametrize("target", sorted(VECTORS), ids=lambda t: f"target{t}")
def test_compiled_traj_prints_every_conformance_line(target, capsys):
    expected = VECTORS[target].read_text().splitlines()
    argv = ["traj", "--game", "kort", "--engine", "fast", "--option", f"target_wins={target}",
            "--seeds", "0", str(len(expected))]
    assert main(argv) == 0
    got = capsys.readouterr().out.splitlines()
    mismatches = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


@pytest.mark.parametrize(("options", "seeds"), [
    (Options(target_wins=7), range(10_000, 11_500)),
    (Options(target_wins=7, first_holder=3), range(20_000, 20_500)),
    (Options(target_wins=3), range(30_000, 32_000)),
    (Options(target_wins=3, first_holder=1), range(40_000, 40_500)),
], ids=lambda value: None if isinstance(value, range) else f"target{value.target_wins}_holder{value.first_holder}")
def test_compiled_lines_and_records_equal_the_reference_on_further_seeds(options, seeds):
    results = play_batch(options, np.array(seeds, dtype=np.uint64), "protocol", workers=1)
    lines = results.protocol_lines()
    for g, seed in enumerate(seeds):
        match = play_protocol_match(options, seed)
        assert lines[g] == protocol_line(seed, match.rounds_played, match.redeals, match.wins, match.winner_team,
                                         match.decisions)
        assert results.record(g) == match.record(), seed


def test_the_further_seeds_reach_every_result_and_declaration():
    results = play_batch(Options(), np.arange(10_000, 11_500, dtype=np.uint64), "protocol", workers=1)
    assert set(results.round_result[results.round_result >= 0].tolist()) == set(range(len(RESULTS)))
    codes = results.round_declarations[results.round_declarations >= 0]
    assert set((codes // 4).tolist()) == set(range(len(DECLARATION_KINDS)))
    assert results.redeals.sum() > 0 and results.round_trump_13.any() and results.round_bavan.any()


def test_the_random_policy_makes_random_agents_choices():
    """Seat s of match seed draws from agent_seed(seed, s), as RandomAgent reset once a match by the runner."""
    options = Options(target_wins=3, first_holder=2)
    seeds = np.arange(60, dtype=np.uint64)
    results = play_batch(options, seeds, "random", workers=1)
    agents = [make_agent("random", game="kort") for _ in range(4)]
    for g, seed in enumerate(seeds.tolist()):
        match = KortMatch(options, seed=seed)
        for seat, agent in enumerate(agents):
            agent.reset(seat, 4, agent_seed(seed, seat))
        while not match.done:
            match.apply(agents[match.to_move].act(match.observation(match.to_move), match.legal_actions()))
        assert results.record(g) == match.record(), seed


def test_results_do_not_depend_on_the_number_of_workers():
    seeds = np.arange(400, dtype=np.uint64)
    one = play_batch(None, seeds, "random", workers=1).to_dict()
    two = play_batch(None, seeds, "random", workers=2).to_dict()
    assert one.keys() == two.keys() and all(np.array_equal(one[k], two[k]) for k in one if k != "options")


def test_round_arrays_have_a_column_per_possible_round_and_mark_the_rounds_not_played():
    results = play_batch(Options(target_wins=3), np.arange(50, dtype=np.uint64), "random", workers=1)
    assert results.round_result.shape == (50, max_rounds(3)) == (50, 5)
    assert results.round_tricks.shape == (50, 5, 2) and results.round_declarations.shape == (50, 5, 13)
    played = np.arange(5)[None, :] < results.rounds_played[:, None]
    assert ((results.round_result >= 0) == played).all()
    last = results.rounds_played - 1
    assert (results.round_score[np.arange(50), last] == results.wins).all()
    bare = play_batch(Options(target_wins=3), np.arange(50, dtype=np.uint64), "random", workers=1, keep_rounds=False)
    assert bare.round_result.shape == (50, 0) and bare.protocol_lines() == results.protocol_lines()


def test_compiled_result_wins_are_the_encodings():
    assert COMPILED_RESULT_WINS.tolist() == [RESULT_WINS[result] for result in RESULTS]


def test_bench_times_both_engines_on_kort_matches(capsys):
    assert main(["bench", "--game", "kort", "--matches", "10", "--repeat", "1", "--workers", "1", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(row["engine"], row["seats"]) for row in rows] == [("reference", 4), ("compiled", 4)]
    assert all(row["matches_per_s"] > 0 and row["game"] == "kort" and row["decisions_per_s"] > 0 for row in rows)
    assert rows[1]["times_reference"] > 0


@pytest.mark.parametrize(("argv", "says"), [
    (["--game", "kort", "--hands", "5"], "a Kort timing counts matches: use --matches"),
    (["--game", "kort", "--games", "5"], "a Kort timing counts matches: use --matches"),
    (["--game", "kort", "--seats", "5"], "Kort is always played by 4 seats, not 5"),
    (["--matches", "5"], "a Knorri timing counts hands: use --hands"),
])
def test_bench_refuses_options_of_another_game_in_one_line(capsys, argv, says):
    assert main(["bench", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
