"""Playing a hand on past its cut-off (``--continue-past-cutoff``): the rules page's "Playing on past a cut-off",
one test per rule (the scenario fixture ``seeds/scenarios/continue_past_cutoff.json``), then every engine and route
that plays a run: the row keeps its outcome, and the continued outcome is the very hand played on."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from experiments.cli import main
from experiments.runner.routes import play_matches
from sim.errors import GameInputError
from sim.knorri import adapter
from sim.knorri.compiled.batch import play_batch
from sim.knorri.reference import KnorriHand, check_continuation
from sim.knorri.scenario import load_scenario, play_case

LOOSER = {"repeat": 0, "cap": 3000}  # small enough for the reference engine to play a greedy loop out quickly
CUT_CODES = [adapter.END_REASONS.index(reason) for reason in adapter.CUT_OFFS]


def played(case_prefix: str) -> KnorriHand:
    """The hand of a case of the fixture after all its steps, which all matched."""
    case = next(c for c in load_scenario("continue_past_cutoff") if c["case"].startswith(case_prefix))
    hand, failures = play_case(case)
    assert not failures, "\n".join(failures)
    return hand


# ----- the rules ------------------------------------------------------------------------------------------------


def test_a_hand_cut_off_plays_on_from_the_cut_with_the_same_seat_to_move():
    hand = played("a hand cut off by a repeat plays on")
    assert (hand.end_reason, hand.phase2_actions, hand.loser) == ("cap", 16, 0)
    kinds = [event["kind"] for event in hand.log]
    assert kinds.index("continue") == kinds.index("end") + 1  # the cut's end, then the continuation, then play


def test_a_hand_played_on_ends_by_the_rules_when_a_seat_leaves_the_loop():
    assert played("played on, the hand ends").end_reason == "out"


def test_a_hand_cut_at_its_cap_and_played_on_under_the_same_cap_meets_it_at_once():
    hand = played("a hand cut off at its cap")
    assert (hand.end_reason, hand.phase2_actions) == ("cap", 5)


@pytest.mark.parametrize("cap, repeat", [(20000, 3), (20000, 2), (1499, 0)])
def test_a_continuation_that_could_stop_the_hand_sooner_is_refused_in_one_line(cap, repeat):
    with pytest.raises(GameInputError, match=r"^a continuation past the cut-off plays on with repeat=0 and a cap of "
                                             r"at least the table's \(1,500\), not .+$"):
        check_continuation(1500, 2, cap, repeat)


def test_only_a_hand_the_rules_cut_off_can_be_played_on():
    hand = played("played on, the hand ends")
    with pytest.raises(GameInputError, match="only a hand cut off by repeat or cap can be continued"):
        hand.continue_past_cutoff(cap=20000)


def test_a_continuation_names_only_cap_and_repeat_and_defaults_to_no_repeat_and_cap_20000():
    assert adapter.check_continuation({}, {}) == {"cap": 20000, "repeat": 0}
    assert adapter.check_continuation({"cap": 30000}, {}) == {"cap": 30000, "repeat": 0}
    assert adapter.check_continuation({}, {"cap": "4000"}) == {"cap": 4000, "repeat": 0}
    assert adapter.check_continuation({}, None) is None
    with pytest.raises(GameInputError, match="^unknown continuation rule 'laps'"):
        adapter.check_continuation({}, {"laps": 3})


# ----- every engine and route: the row keeps its outcome, the continuation is the hand played on ---------------


def _cut_seeds(n_seats: int, lineup: list[str], wanted: int) -> tuple[list[int], list[int]]:
    """Match seeds whose hand the default rules cut off (up to ``wanted``) and two they do not, by the engine."""
    seeds = list(range(600))
    hands = play_matches("knorri", n_seats, seeds, [lineup] * len(seeds), engine="compiled").hands
    cut = np.isin(hands["end_reason"], CUT_CODES)
    return [seeds[i] for i in np.flatnonzero(cut)[:wanted]], [seeds[i] for i in np.flatnonzero(~cut)[:2]]


def assert_continued(base, continued, looser) -> np.ndarray:
    """Every column of ``base`` unchanged in ``continued``; its continued columns are ``looser``'s outcome for
    every hand the rules cut off and null for the others. Returns which hands were cut off."""
    for name, values in base.hands.items():
        np.testing.assert_array_equal(np.ma.getdata(values), np.ma.getdata(continued.hands[name]), err_msg=name)
    cut = np.isin(base.hands["end_reason"], CUT_CODES)
    for spec in adapter.CONTINUED_COLUMNS:
        values = continued.hands[spec.name]
        mask = np.ma.getmaskarray(values)
        assert (mask.all(axis=-1) if mask.ndim > 1 else mask).tolist() == (~cut).tolist(), spec.name
        wanted = looser.hands[spec.name.removeprefix("continued_")]
        np.testing.assert_array_equal(np.ma.getdata(values)[cut], wanted[cut], err_msg=spec.name)
    return cut


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_random_and_greedy_continuations_equal_the_same_seeds_under_the_looser_rules_on_the_engine(n_seats):
    seeds = list(range(400))
    for lineup in (["random"] * n_seats, ["greedy"] * n_seats, (["random", "greedy"] * 3)[:n_seats]):
        seatings = [lineup] * len(seeds)
        base = play_matches("knorri", n_seats, seeds, seatings, engine="compiled")
        continued = play_matches("knorri", n_seats, seeds, seatings, engine="compiled", continuation=LOOSER)
        looser = play_matches("knorri", n_seats, seeds, seatings, engine="compiled", options=LOOSER)
        assert_continued(base, continued, looser)


@pytest.mark.parametrize("n_seats", [3, 4, 5, 6])
def test_random_and_greedy_continuations_equal_the_same_seeds_under_the_looser_rules_on_the_reference_engine(n_seats):
    for lineup in (["random"] * n_seats, ["greedy"] * n_seats):
        cut, whole = _cut_seeds(n_seats, lineup, 2)
        seeds = cut + whole
        seatings = [lineup] * len(seeds)
        base = play_matches("knorri", n_seats, seeds, seatings, engine="reference")
        continued = play_matches("knorri", n_seats, seeds, seatings, engine="reference", continuation=LOOSER)
        looser = play_matches("knorri", n_seats, seeds, seatings, engine="reference", options=LOOSER)
        assert assert_continued(base, continued, looser).sum() == len(cut) > 0
        compiled = play_matches("knorri", n_seats, seeds, seatings, engine="compiled", continuation=LOOSER)
        for name, values in compiled.hands.items():  # the two engines play every hand on alike
            np.testing.assert_array_equal(np.ma.getdata(values), np.ma.getdata(continued.hands[name]), err_msg=name)


def test_a_match_opens_its_next_hand_after_the_loser_the_rules_gave():
    seeds = list(range(200))
    seatings = [["greedy"] * 4] * len(seeds)
    base = play_matches("knorri", 4, seeds, seatings, match_hands=3, engine="compiled")
    continued = play_matches("knorri", 4, seeds, seatings, match_hands=3, engine="compiled", continuation=LOOSER)
    assert np.isin(base.hands["end_reason"], CUT_CODES).any()
    np.testing.assert_array_equal(base.hands["first_seat"], continued.hands["first_seat"])


@pytest.mark.parametrize("lineup, seeds", [(["loginf"] * 4, range(200, 240)),
                                           (["mcts:iters=20", "loginf", "greedy", "random"], range(470, 510))])
def test_loginf_and_mcts_keep_their_rows_and_their_logged_actions_run_on_past_the_cut(lineup, seeds):
    seeds = list(seeds)  # some of them cut off (checked below)
    seatings = [lineup] * len(seeds)
    base = play_matches("knorri", 4, seeds, seatings, log_actions=True, engine="compiled")
    continued = play_matches("knorri", 4, seeds, seatings, log_actions=True, engine="compiled",
                             continuation=LOOSER)
    for name, values in base.hands.items():
        np.testing.assert_array_equal(np.ma.getdata(values), np.ma.getdata(continued.hands[name]), err_msg=name)
    cut = np.flatnonzero(np.isin(base.hands["end_reason"], CUT_CODES))
    assert cut.size, "no hand of these seeds was cut off: pick others"
    before, after = base.actions, continued.actions
    for row in cut:
        cut_actions = before["action"][before["hand_row"] == row]
        mine = after["hand_row"] == row
        assert np.array_equal(after["action"][mine][:len(cut_actions)], cut_actions)
        flags = after["continued"][mine].tolist()
        assert flags == [False] * len(cut_actions) + [True] * (len(flags) - len(cut_actions))
        assert mine.sum() == continued.hands["continued_decisions"][row] > len(cut_actions)
    assert not after["continued"][~np.isin(after["hand_row"], cut)].any()


def test_the_compiled_lineup_plays_on_as_the_python_agents_do():
    lineup = ["mcts:iters=20", "loginf", "loginf", "greedy"]
    cut = [170]  # a match seed whose hand these agents play to a repeat (checked below)
    seatings = [lineup] * len(cut)
    python = play_matches("knorri", 4, cut, seatings, log_actions=True, engine="reference", continuation=LOOSER)
    compiled = play_matches("knorri", 4, cut, seatings, log_actions=True, engine="compiled", continuation=LOOSER)
    for name, values in compiled.hands.items():
        np.testing.assert_array_equal(np.ma.getdata(values), np.ma.getdata(python.hands[name]), err_msg=name)
        np.testing.assert_array_equal(np.ma.getmaskarray(values), np.ma.getmaskarray(python.hands[name]))
    for name, values in compiled.actions.items():
        np.testing.assert_array_equal(values, python.actions[name], err_msg=name)
    assert np.isin(compiled.hands["end_reason"], CUT_CODES).all()


def test_vectorised_agents_play_on_as_the_engine_does():
    seeds = list(range(300))
    seatings = [["agents.examples.batch_random:BatchRandom", "random", "greedy", "random"]] * len(seeds)
    batched = play_matches("knorri", 4, seeds, seatings, continuation=LOOSER)
    engine = play_matches("knorri", 4, seeds, [["random", "random", "greedy", "random"]] * len(seeds),
                          engine="compiled", continuation=LOOSER)
    assert np.isin(engine.hands["end_reason"], CUT_CODES).any()
    for name, values in engine.hands.items():
        np.testing.assert_array_equal(np.ma.getdata(values), np.ma.getdata(batched.hands[name]), err_msg=name)


def test_the_engine_batch_api_keeps_the_cut_result_and_the_continued_one():
    seeds = np.arange(500, dtype=np.uint64)
    plain = play_batch(5, seeds, 0, "random")
    both = play_batch(5, seeds, 0, "random", continue_cap=3000, log_actions=True)
    looser = play_batch(5, seeds, 0, "random", repeat=0, cap=3000)
    np.testing.assert_array_equal(plain.scores, both.scores)
    np.testing.assert_array_equal(both.continued.scores, looser.scores)
    np.testing.assert_array_equal(both.continued.crc32, looser.crc32)
    assert len(both.actions) == both.continued.decisions.sum()


# ----- the command ----------------------------------------------------------------------------------------------


def test_a_continued_run_writes_the_continued_columns_and_marks_the_continued_actions(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--seats", "5", "--agents", "random", "--hands", "600", "--seed", "3", "--workers", "1",
                 "--no-progress", "--log-actions", "--continue-past-cutoff", "repeat=0",
                 "--continue-past-cutoff", "cap=20000", "--out", str(out)]) == 0
    hands = pq.read_table(out / "hands").to_pandas()
    cut = hands["end_reason"].isin(adapter.CUT_OFFS)
    assert cut.any() and (~cut).any()
    assert hands.loc[cut, "continued_end_reason"].notna().all()
    assert hands.loc[~cut, ["continued_end_reason", "continued_loser", "continued_score_0"]].isna().all().all()
    assert (hands.loc[cut, "continued_phase2_actions"] >= hands.loc[cut, "phase2_actions"]).all()
    actions = pq.read_table(out / "actions").to_pandas().merge(hands[["hand_index", "decisions"]], on="hand_index")
    assert (actions["continued"] == (actions["step"] >= actions["decisions"])).all()
    plain = tmp_path / "plain"
    assert main(["run", "--seats", "5", "--agents", "random", "--hands", "600", "--seed", "3", "--workers", "1",
                 "--no-progress", "--out", str(plain)]) == 0
    assert "continued_end_reason" not in pq.read_schema(next((plain / "hands").glob("*.parquet"))).names
    capsys.readouterr()


@pytest.mark.parametrize("words, message", [
    (["--continue-past-cutoff", "repeat=3"], "a continuation past the cut-off plays on with repeat=0"),
    (["--continue-past-cutoff", "repeat"], "--continue-past-cutoff is written name=value"),
    (["--game", "kort", "--continue-past-cutoff", "repeat=0"], "Kort never cuts a match off"),
])
def test_a_continuation_the_run_cannot_play_is_refused_in_one_line(tmp_path, capsys, words, message):
    out = tmp_path / "run"
    assert main(["run", "--hands", "10", "--workers", "1", "--no-progress", "--out", str(out), *words]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not out.exists()


@pytest.mark.parametrize("log_actions", [False, True])
def test_a_continued_row_replays_through_its_cut_and_its_continuation(tmp_path, capsys, log_actions):
    from experiments.replay.build import run_replay

    out = tmp_path / "run"
    assert main(["run", "--seats", "5", "--agents", "random", "--hands", "200", "--seed", "3", "--workers", "1",
                 "--no-progress", "--continue-past-cutoff", "cap=3000", "--out", str(out),
                 *(["--log-actions"] if log_actions else [])]) == 0
    capsys.readouterr()
    hands = pq.read_table(out / "hands").to_pandas()
    row = hands[hands["continued_end_reason"].notna()].iloc[0]
    replay = run_replay(out, int(row["hand_index"]))
    assert replay.steps == row["continued_decisions"] > row["decisions"]
    assert replay.result.startswith(f"cut off by the rules: result: {row['end_reason']}")
    assert f"played on past the cut-off: result: {row['continued_end_reason']}" in replay.result


def test_a_continued_run_resumes_to_the_rows_of_an_uninterrupted_one(tmp_path, capsys):
    import json
    import shutil

    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert main(["run", "--seats", "5", "--agents", "random;greedy;loginf;random;random", "--hands", "160",
                 "--chunk-hands", "40", "--seed", "9", "--workers", "1", "--no-progress", "--log-actions",
                 "--continue-past-cutoff", "cap=4000", "--out", str(whole)]) == 0
    shutil.copytree(whole, resumed)
    for table in ("hands", "actions"):  # as if the run had been killed before its last chunk
        (resumed / table / "part-000003.parquet").unlink()
    manifest = json.loads((resumed / "manifest.json").read_text())
    manifest["chunks_complete"] = [0, 1, 2]
    for key in ("chunk_rows", "chunk_seconds"):
        manifest.get(key, {}).pop("3", None)
    (resumed / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--resume", str(resumed), "--workers", "1", "--no-progress"]) == 0
    capsys.readouterr()
    for table, keys in (("hands", ["hand_index"]), ("actions", ["hand_index", "step"])):
        frames = [pq.read_table(folder / table).to_pandas().sort_values(keys).reset_index(drop=True)
                  for folder in (whole, resumed)]
        assert frames[0].drop(columns="chunk", errors="ignore").equals(frames[1].drop(columns="chunk", errors="ignore"))
    assert pq.read_table(whole / "hands").to_pandas()["continued_end_reason"].notna().any()
