"""Knorri's cut-off options ``cap`` and ``repeat``: one test per ruling of the rulings' "Cut-off options", each on
a scenario fixture (``seeds/scenarios/threefold_repetition.json``, ``small_cap.json``), then the adapter, the
observation and the searching agents playing under them."""

from __future__ import annotations

import numpy as np
import pytest

from agents.knorri.loginf import LogInfAgent
from agents.knorri.tracker import KnorriTracker
from experiments.runner.seating import agent_maker
from sim.errors import GameInputError
from sim.knorri import adapter
from sim.knorri.conformance import play_protocol_hand, reference_line
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_CAP, MAX_PHASE2_ACTIONS, MAX_REPEAT
from sim.knorri.reference import KnorriHand
from sim.knorri.scenario import build_hand, load_scenario, play_case
from sim.seating import play_with_agents


def played(name: str, case_prefix: str) -> KnorriHand:
    """The hand of a scenario case (its title starting ``case_prefix``) after all its steps, which all matched."""
    case = next(c for c in load_scenario(name) if c["case"].startswith(case_prefix))
    hand, failures = play_case(case)
    assert not failures, "\n".join(failures)
    return hand


# ----- the rulings, one test each ------------------------------------------------------------------------------


def test_without_the_options_the_rules_hold_exactly():
    assert (MAX_PHASE2_ACTIONS, DEFAULT_REPEAT) == (1500, 2)
    assert adapter.check_options({}) == adapter.check_options(None) == {"cap": 1500, "repeat": 2}
    plain, explicit = KnorriHand.from_seed(4, 51), KnorriHand.from_seed(4, 51, cap=1500, repeat=2)
    assert (plain.cap, plain.repeat) == (1500, 2)
    assert reference_line(4, 51, 0) == reference_line(4, 51, 0, cap=1500, repeat=2)
    assert plain.log == explicit.log


def test_cap_ends_the_hand_after_that_many_phase2_actions_with_reason_cap():
    hand = played("small_cap", "cap=5")
    assert (hand.end_reason, hand.phase2_actions) == ("cap", 5)
    lengths = [play_protocol_hand(5, seed, 0, cap=200) for seed in range(40)]
    assert max(h.phase2_actions for h in lengths) == 200
    assert all(h.end_reason == "cap" for h in lengths if h.phase2_actions == 200)


@pytest.mark.parametrize("cap", [1, 200, MAX_CAP])
def test_cap_is_a_whole_number_from_1_to_1000000(cap):
    assert adapter.check_options({"cap": cap})["cap"] == cap
    assert adapter.check_options({"cap": str(cap)})["cap"] == cap


@pytest.mark.parametrize("cap", [0, -5, MAX_CAP + 1, 2.5, "many", True])
def test_cap_out_of_range_is_refused_in_one_line_naming_the_range(cap):
    with pytest.raises(GameInputError, match=r"^cap must be a whole number of phase-2 actions from 1 to 1,000,000, "
                                             r"not .+$"):
        adapter.check_options({"cap": cap})
    with pytest.raises(GameInputError, match="from 1 to 1,000,000"):
        KnorriHand.from_seed(4, 0, cap=cap)


def test_repeat_two_ends_the_hand_at_the_first_return_to_a_position():
    hand = played("threefold_repetition", "repeat=2")
    assert (hand.end_reason, hand.phase2_actions, hand.cycle_start) == ("repeat", 12, 0)


def test_repeat_three_is_a_threefold_repetition():
    hand = played("threefold_repetition", "repeat=3")
    assert (hand.end_reason, hand.phase2_actions, hand.cycle_length) == ("repeat", 24, 12)


def test_repeat_counts_the_position_phase2_started_in():
    # The start is the first of the three: without it the third occurrence would come only after 36 actions.
    hand = played("threefold_repetition", "repeat=3")
    assert hand.phase2_actions == 2 * 12 and hand.cycle_start == 12


def test_repeat_zero_turns_the_check_off_so_only_the_cap_cuts_a_hand_off():
    hand = played("threefold_repetition", "repeat=0")
    assert (hand.end_reason, hand.phase2_actions, hand.cycle_length) == ("cap", 30, None)
    assert all(play_protocol_hand(4, seed, 0, repeat=0, cap=3000).end_reason != "repeat" for seed in range(30))


@pytest.mark.parametrize("repeat", [0, 2, 3, MAX_REPEAT])
def test_repeat_is_0_or_a_count_from_2_to_10(repeat):
    assert adapter.check_options({"repeat": repeat})["repeat"] == repeat


@pytest.mark.parametrize("repeat", [1, -1, MAX_REPEAT + 1, "twice", False])
def test_repeat_out_of_range_is_refused_in_one_line_naming_the_range(repeat):
    with pytest.raises(GameInputError, match=r"^repeat must be 0 \(no repeat check\) or a count from 2 to 10, "
                                             r"not .+$"):
        adapter.check_options({"repeat": repeat})


def test_an_unknown_option_is_refused_naming_the_options():
    with pytest.raises(GameInputError, match=r"^unknown option 'rainbow': Knorri's options are cap, repeat$"):
        adapter.check_options({"rainbow": "true"})


def test_the_order_of_precedence_is_unchanged_normal_end_then_repeat_then_cap():
    assert played("small_cap", "cap=12 ").end_reason == "repeat"  # a repeat at the cap's action
    assert played("small_cap", "cap=1 ").end_reason == "out"  # a normal end at the cap's action


def test_scoring_at_a_cut_off_is_unchanged():
    # cap=5: seats 2 and 1 hold one card each (turn order from seat 2, to move), seat 0 two: 2, 1, then the loser.
    assert played("small_cap", "cap=5").scores == [-3, 1, 2]
    # the same cycle cut off by repeat=2, by repeat=3 and by the cap after 30 actions ranks the same way
    assert played("threefold_repetition", "repeat=3").scores == played("threefold_repetition", "repeat=2").scores


def test_the_conformance_line_is_unchanged_under_options():
    line = reference_line(3, 7, 0, cap=200)
    fields = line.split()
    assert len(fields) == 4 + 3 + 2 and fields[0] == "7" and fields[2] in ("out", "repeat", "cap")


# ----- the engine, the adapter and the observation --------------------------------------------------------------


def test_every_constructor_takes_the_options_and_a_clone_keeps_them():
    hands = [KnorriHand.from_seed(4, 3, cap=77, repeat=4),
             KnorriHand(4, list(range(52)), 0, cap=77, repeat=4),
             build_hand({"hands": ["5H 9C", "TC", "7S JC"], "to_move": 0, "cap": 77, "repeat": 4}),
             adapter.deal(4, 3, {"cap": "77", "repeat": "4"})]
    for hand in hands:
        assert (hand.cap, hand.repeat) == (77, 4)
        assert (hand.clone().cap, hand.clone().repeat) == (77, 4)


def test_the_observation_carries_the_tables_rules():
    hand = KnorriHand.from_seed(4, 3, cap=321, repeat=0)
    observation = hand.observation(hand.to_move)
    assert (observation.cap, observation.repeat) == (321, 0)
    assert observation.to_dict()["cap"] == 321


def test_play_matches_reference_route_plays_every_hand_under_the_options():
    seeds = list(range(6))
    columns = adapter.play_matches(5, seeds, [["random"] * 5] * 6, match_hands=3, options={"cap": 40},
                                    make_agent=agent_maker("knorri"), engine="reference")
    hands = columns.hands
    assert hands["phase2_actions"].max() <= 40 and hands["phase2_actions"].dtype == np.int32
    assert (hands["end_reason"] == adapter.END_REASONS.index("cap")).sum() > 0
    default = adapter.play_matches(5, seeds, [["random"] * 5] * 6, match_hands=3,
                                    make_agent=agent_maker("knorri"), engine="reference")
    assert np.array_equal(hands["seed"], default.hands["seed"])  # the options change the play, never the seeds


def test_replay_reaches_the_same_hand_under_the_options():
    hand = play_protocol_hand(4, 11, 0, cap=60, repeat=3)
    again = adapter.replay(4, 11, 0, hand.decisions[:], {"cap": 60, "repeat": 3})
    assert again.done and again.scores == hand.scores and again.end_reason == hand.end_reason


def test_engine_rules_pass_no_keywords_at_the_defaults_so_default_calls_are_unchanged():
    assert adapter.engine_rules({}) == {} and adapter.engine_rules({"cap": 1500}) == {}
    assert adapter.engine_rules({"repeat": 3}) == {"cap": 1500, "repeat": 3}


def test_options_are_declared_with_their_defaults():
    assert [(o.name, o.kind, o.default) for o in adapter.OPTIONS] == [("cap", int, 1500), ("repeat", int, 2)]


# ----- the searching agents play out under the table's rules ---------------------------------------------------


def test_the_tracker_rebuilds_positions_under_the_tables_rules():
    hand = KnorriHand.from_seed(4, 5, cap=90, repeat=3)
    tracker = KnorriTracker(4)
    streams = np.random.default_rng(0)
    while not hand.done and hand.phase == 1:
        hand.apply(int(streams.choice(hand.legal_actions())))
    tracker.update(hand.observation(0))
    position = tracker.position()
    assert (position.cap, position.repeat) == (90, 3)
    assert position._history == hand._history  # the repeat counts so far, as the table's


def test_loginf_plays_out_under_the_tables_rules(monkeypatch):
    from agents.knorri.playout import CompiledPlayout
    from sim.knorri.compiled import cut_off_rules

    seen: list[tuple[int, int]] = []

    class RecordingCompiledPlayout(CompiledPlayout):
        def best_action_at(self, rows):
            seen.append(cut_off_rules(rows.ints))
            return super().best_action_at(rows)

    monkeypatch.setattr("agents.knorri.loginf.CompiledPlayout", RecordingCompiledPlayout)
    hand = play_with_agents(KnorriHand.from_seed(3, 2, cap=25, repeat=3), [LogInfAgent() for _ in range(3)], 2)
    assert seen and set(seen) == {(25, 3)}
    assert hand.phase2_actions <= 25


def test_mcts_hands_the_compiled_search_positions_under_the_tables_rules(monkeypatch):
    import agents.knorri.decision as decision_module
    import agents.knorri.mcts as mcts_module
    from agents.knorri.greedy import GreedyAgent
    from sim.knorri.compiled import cut_off_rules, phase_of

    real, seen = decision_module.decide, []

    def spy(params, rows, *rest):
        seen.append((phase_of(rows.ints), *cut_off_rules(rows.ints)))
        return real(params, rows, *rest)

    monkeypatch.setattr(decision_module, "decide", spy)
    table = [mcts_module.MCTSAgent(iters=4), GreedyAgent(), GreedyAgent()]
    hand = play_with_agents(KnorriHand.from_seed(3, 4, cap=30, repeat=3), table, 4)
    assert 2 in {phase for phase, _, _ in seen} and {(cap, repeat) for _, cap, repeat in seen} == {(30, 3)}
    assert hand.phase2_actions <= 30
