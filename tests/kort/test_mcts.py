"""Kort's ``mcts``: its spec, its compiled playout policy (greedy's choices, hands tracked through whole matches),
the team values of a round's end, repeatable play, and blindness to the cards it cannot see."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import advance_by_protocol, fresh_choices

from agents.base import AgentSpecError, make_agent
from agents.kort import playout
from agents.kort.decision import known_hidden_hands
from agents.kort.greedy import greedy_action
from agents.kort.mcts import MCTSAgent
from agents.kort.sampler import HandSampler
from agents.kort.tracker import KortTracker
from agents.kort.values import match_win_chance
from sim.kort import compiled
from sim.kort.encoding import FIRST_PACKET, NUM_ACTIONS, REDEAL, TROP_TO_END, Phase
from sim.kort.reference import KortMatch
from sim.rng import SplitMix64, derive_seed
from sim.seating import play_with_agents

GAME = "kort"
FAST = "mcts:iters=40"


def test_a_spec_sets_the_search_parameters_and_refuses_bad_ones_in_one_line():
    agent = make_agent("mcts:iters=50,c=0.5,rollout=random,horizon=match,seed=3", game=GAME)
    assert isinstance(agent, MCTSAgent)
    assert (agent.iters, agent.c, agent.rollout, agent.horizon, agent.time_budget) == (50, 0.5, "random", "match",
                                                                                        0.0)
    for spec, message in (("mcts:iters=0", "iters=0"), ("mcts:c=-1", "c=-1"), ("mcts:rollout=smart", "smart"),
                          ("mcts:horizon=game", "horizon='game'"), ("mcts:time=-2", "time=-2"),
                          ("mcts:depth=3", "no parameter 'depth'"), ("mcts:iters=many", "not a valid int")):
        with pytest.raises(AgentSpecError, match=message) as error:
            make_agent(spec, game=GAME)
        assert "\n" not in str(error.value)


def _protocol_matches(count: int):
    """Matches to 7 wins, greedy's play with random play in every third match, yielding each one before each
    decision."""
    for seed in range(count):
        match = KortMatch({"first_holder": seed % 4}, seed=seed)
        rng = SplitMix64(derive_seed(seed, 9))
        while not match.done:
            yield match
            legal = match.legal_actions()
            mover = match.to_move
            match.apply(rng.choice(legal) if seed % 3 == 0 else greedy_action(match.observation(mover), legal))


def test_the_compiled_playout_policy_makes_greedys_choice_at_every_decision():
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    kinds = Counter()
    for match in _protocol_matches(60):
        observation = match.observation(match.to_move)
        undealt = match.deck[FIRST_PACKET:] if match.phase == Phase.TRUMP else []
        cards, ints, deck, _ = compiled.position_rows(observation, match.hands, undealt)
        count = compiled.legal_actions(cards, ints, legal)
        view = playout.new_view()
        playout.table_view(cards, ints, match.to_move, view)
        view.hands[:] = match.hands  # a search's view holds every seat's drawn hand
        expected = greedy_action(observation, match.legal_actions())
        assert compiled.greedy_action(ints, deck, view, legal, count) == expected
        kinds[Phase(match.phase).name] += 1
        kinds["redeal"] += REDEAL in match.legal_actions()
        kinds["trop to the end"] += TROP_TO_END in match.legal_actions()
    assert min(kinds.values()) > 0, kinds


def test_the_playout_view_holds_every_seats_hand_and_the_trick_through_whole_matches():
    rows = compiled.new_position()
    view = playout.new_view()
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    redeals = 0
    for seed in range(40):
        match = KortMatch({"target_wins": 3}, seed=seed)
        compiled.new_match(*rows, 3, 0, seed)
        view[1][compiled.T_TARGET] = 3
        rng = SplitMix64(seed)
        while not match.done:
            if match.phase != Phase.TRUMP:
                assert view[0].tolist() == match.hands
                trick = view[1]
                in_view = list(zip(trick[compiled.T_SEAT:compiled.T_SEAT + trick[compiled.T_LEN]],
                                   trick[compiled.T_CARD:compiled.T_CARD + trick[compiled.T_LEN]], strict=True))
                assert [list(map(int, play)) for play in in_view] == [list(play) for play in match.trick] or (
                    not match.trick and match.phase != Phase.FOLLOW)
            count = compiled.legal_actions(rows[0], rows[1], legal)
            assert legal[:count].tolist() == match.legal_actions()
            action = REDEAL if REDEAL in match.legal_actions() else rng.choice(match.legal_actions())
            redeals += action == REDEAL
            match.apply(action)
            playout.apply(rows, view, action)
    assert redeals > 0


def test_a_team_values_a_round_end_by_its_chance_to_win_the_match_from_there():
    for target in (3, 7):
        table = match_win_chance(target)
        for us in range(target):
            for them in range(target):
                assert table[us, them, 1] + table[them, us, 0] == pytest.approx(1.0)  # one team wins
                assert table[us, them, 1] > table[us, them, 0]  # holding the trump helps
                if us + 1 < target:
                    assert table[us + 1, them, 0] > table[us, them, 0]  # so does a win
        assert 0.4 < table[0, 0, 0] < 0.5 < table[0, 0, 1] < 0.6


@pytest.mark.parametrize("rollout", ["greedy", "random"])
def test_mcts_plays_legally_and_repeats_itself_for_a_seed(rollout):
    def decisions(spec: str) -> list[int]:
        lineup = [spec, "greedy", spec, "random"]
        return play_with_agents(KortMatch({"target_wins": 3}, seed=5), [make_agent(s, game=GAME) for s in lineup],
                          5).decisions

    spec = f"{FAST},rollout={rollout}"
    assert decisions(spec) == decisions(spec)
    assert decisions(spec) != decisions(spec + ",seed=1")


def _twin_with_other_hidden_cards(match: KortMatch, seat: int, seed: int) -> KortMatch:
    """A copy of ``match`` whose cards hidden from ``seat`` (other hands, or the undealt deck) are dealt again."""
    tracker = KortTracker(seat)
    observation = match.observation(seat)
    tracker.update(observation)
    hands, undealt = HandSampler(known_hidden_hands(tracker, observation)).sample(
        np.array([seed + 1], dtype=np.uint64))
    twin = match.clone()
    twin.hands = [match.hands[s] if s == seat else hands[s] for s in range(4)]
    if undealt:
        twin.deck = match.deck[:FIRST_PACKET] + undealt
    return twin


def test_mcts_decides_the_same_whatever_the_cards_it_cannot_see():
    checked = Counter()
    for seed in range(24):
        match = KortMatch({"target_wins": 3}, seed=seed)
        advance_by_protocol(match, SplitMix64(seed), seed * 11 % 80)
        seat = match.to_move
        if match.done or len(match.legal_actions()) == 1:
            continue
        twin = _twin_with_other_hidden_cards(match, seat, seed)
        assert twin.hands != match.hands or twin.deck != match.deck
        assert twin.observation(seat) == match.observation(seat)
        choices = fresh_choices(FAST, GAME, seat, 4, seed, (match, twin))
        assert choices[0] == choices[1]
        checked[Phase(match.phase).name] += 1
    assert sum(checked.values()) >= 15 and checked["FOLLOW"] and checked["LEAD"]


def test_mcts_votes_on_bavan_without_seeing_its_partners_vote():
    for match in _protocol_matches(200):
        if match.phase == Phase.VOTE and match.log[-1]["kind"] == "trick" and match.to_move != match.log[-1]["winner"]:
            break  # the second voter: its partner has voted, unseen
        if match.phase == Phase.VOTE and match.to_move == match.log[-1]["winner"]:
            match.apply(match.legal_actions()[0])  # the first vote, yes
            break
    else:
        pytest.fail("no Bavan vote in 200 matches")
    agent = make_agent(FAST, game=GAME)
    agent.reset(match.to_move, 4, 1)
    assert agent.act(match.observation(match.to_move), match.legal_actions()) in match.legal_actions()


def test_a_time_budget_searches_until_the_clock_runs_out():
    match = KortMatch(seed=2)
    agent = make_agent("mcts:time=0.02", game=GAME)
    agent.reset(match.to_move, 4, 2)
    children = agent.search(match.observation(match.to_move))
    assert sum(visits for _, visits, _ in children) > 64  # more than the first chunk of iterations
    assert {action for action, _, _ in children} == set(match.legal_actions())
