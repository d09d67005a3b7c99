"""Knorri's replays: the page marks a repeat's two equal positions and shades the cycle, a run's hand replays the
same from its actions table as from its seed and lineup, and a hand that cannot be replayed exactly is refused."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from conftest import compile_cache_as
from replay_runs import small_run

from experiments.cli import main
from experiments.replay.build import fresh_replay, replay_decisions, run_replay
from experiments.replay.notebook import step_through
from experiments.replay.page import page_html
from sim.knorri import KnorriHand
from sim.knorri.reference import EndReason
from sim.knorri.render import repeat_span, trick_plays
from sim.reference_base import play_by_protocol

FRAME = re.compile(r'<div class="frame( equal| cycle)?" data-step="(\d+)">')


def repeated_hand(n_seats: int = 3) -> tuple[int, KnorriHand]:
    """The first protocol seed whose hand ends by a repeat, and that hand played out."""
    for seed in range(500):
        hand = play_by_protocol(lambda deck_source, seed=seed: KnorriHand.from_seed(n_seats, seed), seed)
        if hand.end_reason == EndReason.REPEAT:
            return seed, hand
    raise AssertionError("no repeat in 500 seeds")


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory):
    return small_run(tmp_path_factory.mktemp("runs") / "knorri", "knorri", hands=8, log_actions=True)


def test_a_repeat_marks_the_two_equal_positions():
    seed, hand = repeated_hand()
    first, second = repeat_span(hand)
    assert second == len(hand.decisions) and second - first == hand.cycle_length
    at_first = KnorriHand.from_seed(3, seed)
    for action in hand.decisions[:first]:
        at_first.apply(action)
    assert at_first._position() == hand._position()  # the hand stopped on the position of step `first`


def test_the_page_marks_the_equal_positions_and_shades_the_cycle_between():
    seed, hand = repeated_hand()
    page = page_html(replay_decisions("knorri", KnorriHand.from_seed(3, seed), hand.decisions, "a repeat"))
    classes = {int(step): (css or "").strip() for css, step in FRAME.findall(page)}
    first, second = repeat_span(hand)
    assert [step for step, css in classes.items() if css == "equal"] == [first, second]
    assert [step for step, css in classes.items() if css == "cycle"] == list(range(first + 1, second))


def test_a_runs_cycle_start_column_is_used_where_it_has_one():
    _, hand = repeated_hand()
    phase1 = len(hand.decisions) - hand.phase2_actions
    row = {"cycle_length": hand.cycle_length, "phase2_actions": hand.phase2_actions, "cycle_start": 7}
    assert repeat_span(hand, row) == (phase1 + 7, phase1 + 7 + hand.cycle_length)
    row.pop("cycle_start")
    assert repeat_span(hand, row) == repeat_span(hand)


def test_a_hand_that_did_not_repeat_marks_no_cycle():
    hand = play_by_protocol(lambda deck_source: KnorriHand.from_seed(4, 1), 1)
    assert hand.end_reason != EndReason.REPEAT and repeat_span(hand, {"cycle_length": None}) is None


def test_the_trick_names_who_made_each_play():
    hand = KnorriHand.from_seed(4, 7)
    while hand.phase == 1 or len(hand.trick) < 3:
        hand.apply(hand.legal_actions()[0])
    plays = [event for event in hand.log if event["kind"] == "play"][-len(hand.trick):]
    assert trick_plays(hand) == [(event["seat"], hand.trick[i]) for i, event in enumerate(plays)]


def test_a_runs_hand_replays_alike_from_its_actions_and_from_its_seed(logged_run, tmp_path):
    from_actions = run_replay(logged_run, 3)
    unlogged = tmp_path / "unlogged"
    shutil.copytree(logged_run, unlogged)
    shutil.rmtree(unlogged / "actions")
    from_seed = run_replay(unlogged, 3)
    assert from_actions.frames == from_seed.frames and from_actions.lines == from_seed.lines
    assert from_actions.steps > 20


def test_the_command_writes_a_page_whose_frames_parse_and_that_loads_nothing(logged_run, tmp_path, capsys):
    out = tmp_path / "hand.html"
    assert main(["replay", str(logged_run), "--hand-index", "2", "--seat", "1", "--out", str(out)]) == 0
    page = out.read_text()
    assert f"steps written to {out}" in capsys.readouterr().out
    frames = re.findall(r"<svg .*?</svg>", page, flags=re.S)
    assert len(frames) == len(FRAME.findall(page)) > 1
    for frame in frames:
        ET.fromstring(frame)
    assert page.count("<script") == 1 and not re.search(r"<(link|img|iframe|object|embed)\b|src=|@import|url\(",
                                                        page)
    assert re.findall(r"https?://[^\"' )<]+", page) == ["http://www.w3.org/2000/svg"] * len(frames)


@pytest.mark.parametrize(("agents", "says"), [
    ("random;mcts:time=0.01;random;random", "seat 1's agent 'mcts:time=0.01' plays to a wall-clock budget"),
    ("random;random;no_such_module_here:Bot;random", "seat 2's agent 'no_such_module_here:Bot' cannot be built"),
])
def test_a_hand_that_cannot_be_replayed_exactly_is_refused_in_one_line(agents, says, tmp_path, capsys, monkeypatch):
    compile_cache_as(monkeypatch, False)  # as on a first use: refused before the compile line
    code = main(["replay", "--seed", "3", "--agents", agents, "--out", str(tmp_path / "x.html")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot be replayed exactly" in err and says in err and err.count("\n") == 1
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize(("argv", "says"), [
    (["--hand-index", "0"], "--hand-index needs RUN_DIR"),
    (["--seed", "1"], "give RUN_DIR --hand-index N"),
    (["--seed", "1", "--agents", "random", "--seat", "4"], "--seat must be a seat of the 4-seat table"),
])
def test_bad_replay_options_are_one_line(argv, says, capsys):
    assert main(["replay", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_a_hand_index_the_run_lacks_is_one_line(logged_run, capsys):
    assert main(["replay", str(logged_run), "--hand-index", "99"]) == 2
    assert "hold no such hand (they hold 8, hand_index 0 to 7)" in capsys.readouterr().err


def test_the_notebook_helper_steps_through_a_hand_with_a_slider():
    replay = fresh_replay("knorri", 4, 7, ["greedy"] * 4, {})
    box = step_through(replay)
    slider, shown = box.children[1].children[1], box.children[2]
    slider.value = replay.steps
    assert f"step {replay.steps} / {replay.steps}" in shown.value and replay.frames[-1] in shown.value
