"""Kort's agents: specs mean the game's own agents, legal and repeatable play by every agent through whole
matches, greedy's rules one by one, and greedy's clear win over random as a team."""

from __future__ import annotations

from collections import Counter

import pytest

from agents.base import AgentSpecError, RandomAgent, known_agents, make_agent
from agents.knorri.greedy import GreedyAgent as KnorriGreedy
from agents.kort.greedy import GreedyAgent, greedy_choice
from agents.kort.tracker import TrackerAgent
from agents.kort.view import Table
from sim.cards import parse_cards, to_set
from sim.kort.encoding import (
    BAVAN_NO,
    BAVAN_YES,
    FREE,
    REDEAL,
    SAR,
    TROP,
    TROP_TO_END,
    TRUMP_13,
    TRUMP_BASE,
    Phase,
    trop_state,
)
from sim.kort.reference import KortMatch
from sim.seating import play_with_agents

GAME = "kort"
SPADES, HEARTS = 3, 2
AGENT_SPECS = ("random", "greedy", "tracker", "mcts:iters=40")


def cards(text: str) -> list[int]:
    return parse_cards(text)


def table(phase=Phase.FOLLOW, hand="", trump=SPADES, trick=(), seat=0, state=FREE, tricks=(0, 0),
          wins=(0, 0), target=7, holder=0, trick_no=3) -> Table:
    """A decision of seat 0 (partner seat 2) with ``trick`` as (seat, card text) pairs."""
    return Table(seat, phase, to_set(cards(hand)), trump, tuple((s, cards(c)[0]) for s, c in trick), state,
                 tricks, wins, target, holder, trick_no, None)


def legal_cards(hand: str, *extra: int) -> list[int]:
    return sorted(cards(hand)) + list(extra)


# ----- specs and play --------------------------------------------------------------------------------


def test_a_spec_names_kort_s_own_agents():
    assert known_agents(GAME) == ["greedy", "learned", "mcts", "random", "tracker"]
    assert isinstance(make_agent("greedy", game=GAME), GreedyAgent)
    assert isinstance(make_agent("greedy"), KnorriGreedy)
    assert isinstance(make_agent("tracker", game=GAME), TrackerAgent)
    assert type(make_agent("random", game=GAME)) is RandomAgent
    with pytest.raises(AgentSpecError, match="unknown agent 'loginf' for kort: known agents are greedy, learned, "
                                             "mcts, random, tracker, or module.path:ClassName"):
        make_agent("loginf", game=GAME)
    with pytest.raises(AgentSpecError, match="agent 'greedy' has no parameter 'depth'"):
        make_agent("greedy:depth=2", game=GAME)


def _decision_kinds(match: KortMatch) -> Counter:
    """How many decisions of each kind a match held: trumps, redeals, chosen declarations, plays, votes."""
    kinds = Counter()
    for event in match.log:
        if event["kind"] in ("trump", "redeal", "play", "bavan_vote"):
            kinds[event["kind"]] += 1
        elif event["kind"] == "declare" and not event["automatic"]:
            kinds[event["declaration"]] += 1
    return kinds


@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_every_agent_plays_legally_through_whole_matches(spec):
    kinds = Counter()
    for seed in range(4 if spec.startswith("mcts") else 30):
        lineup = [spec, "random"] * 2 if seed % 2 else ["random", spec] * 2
        match = play_with_agents(KortMatch({"target_wins": 3}, seed=seed), [make_agent(s, game=GAME) for s in lineup],
                           seed)  # an illegal choice raises
        assert match.done
        kinds += _decision_kinds(match)
    assert kinds["trump"] and kinds["play"] and kinds["sar"] + kinds["trop"] > 0


@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_every_agent_repeats_itself_for_a_match_seed(spec):
    def decisions() -> list[int]:
        match = KortMatch({"target_wins": 3}, seed=8)
        return play_with_agents(match, [make_agent(spec, game=GAME) for _ in range(4)], 8).decisions

    assert decisions() == decisions()


def test_greedy_beats_random_clearly_as_a_team_on_duplicate_deals():
    matches, result = 150, 0
    for seed in range(matches):
        for greedy_team in (0, 1):
            lineup = ["greedy" if seat % 2 == greedy_team else "random" for seat in range(4)]
            agents = [make_agent(s, game=GAME) for s in lineup]
            match = play_with_agents(KortMatch({"target_wins": 3}, seed=seed), agents, seed)
            result += 1 if match.winner_team == greedy_team else -1
    assert result / (2 * matches) > 0.8  # the mean team result, -1 to +1; even teams score 0


# ----- greedy's rules ---------------------------------------------------------------------------------


def test_greedy_names_its_longest_suit_trumps_and_never_13():
    five = "2S 9S 4S AH KH"
    assert greedy_choice(table(Phase.TRUMP, five, trump=None), [52, 53, 54, 55, TRUMP_13]) == TRUMP_BASE + SPADES
    assert greedy_choice(table(Phase.TRUMP, "2S 3S AH KH 4C", trump=None),
                         [52, 53, 54, 55, TRUMP_13]) == TRUMP_BASE + HEARTS  # equal length: the higher ranks


def test_greedy_redeals_a_weak_faceless_hand_and_keeps_a_strong_one():
    weak = "2S 5S 8S 2H 3H 4H 5H 2D 3D 4D 6C 7C AC"
    strong = "2S 5S 8S 9S TS 3H 4H 5H 2D 3D 4D 6C AC"
    assert greedy_choice(table(Phase.LEAD, weak, trick_no=0), legal_cards(weak, REDEAL)) == REDEAL
    assert greedy_choice(table(Phase.LEAD, strong, trick_no=0), legal_cards(strong, REDEAL)) != REDEAL


def test_greedy_s_redeal_rule_is_a_spec_parameter_auto_by_default():
    assert make_agent("greedy", game=GAME).redeal == "auto"
    never = make_agent("greedy:redeal=never", game=GAME)
    assert never.redeal == "never" and never.name == "greedy:redeal=never"
    with pytest.raises(AgentSpecError, match="redeal='sometimes' is unknown: use auto or never"):
        make_agent("greedy:redeal=sometimes", game=GAME)


def _greedy_decisions(spec: str, seed: int) -> list[int]:
    """The decisions of four ``spec`` seats in the match to 3 of ``seed``."""
    return play_with_agents(KortMatch({"target_wins": 3}, seed=seed), [make_agent(spec, game=GAME) for _ in range(4)],
                      seed).decisions


def test_greedy_with_redeal_never_keeps_every_deal_and_otherwise_plays_as_greedy():
    weak = "2S 5S 8S 2H 3H 4H 5H 2D 3D 4D 6C 7C AC"
    decision = table(Phase.LEAD, weak, trick_no=0)
    assert greedy_choice(decision, legal_cards(weak, REDEAL), "never") == greedy_choice(decision, legal_cards(weak))
    assert not any(REDEAL in _greedy_decisions("greedy:redeal=never", seed) for seed in range(10))


def test_greedy_s_default_redeal_rule_is_auto_decision_for_decision():
    defaults = [_greedy_decisions("greedy", seed) for seed in range(10)]
    assert defaults == [_greedy_decisions("greedy:redeal=auto", seed) for seed in range(10)]
    assert sum(REDEAL in decisions for decisions in defaults) >= 1  # these deals do hold redeals (seeds 6 and 8)


def test_greedy_leads_the_highest_trump_in_a_trop_and_to_draw_trumps():
    hand = "AS 9S 5S 4S 2S KH 3D"
    assert greedy_choice(table(Phase.LEAD, hand), legal_cards(hand)) == cards("AS")[0]
    in_trop = table(Phase.LEAD, "9S 5S AH KH", state=trop_state(1, 3))
    assert greedy_choice(in_trop, cards("5S 9S")) == cards("9S")[0]


def test_greedy_leads_a_side_ace_then_a_low_singleton_then_its_longest_suits_lowest_card():
    assert greedy_choice(table(Phase.LEAD, "AH 2H 3H AD 4S"), legal_cards("AH 2H 3H AD 4S")) == cards("AD")[0]
    singleton = "7C 2H 3H 9H 4S 5S"
    assert greedy_choice(table(Phase.LEAD, singleton), legal_cards(singleton)) == cards("7C")[0]
    plain = "7C 8C 2H 3H 9H 4S"
    assert greedy_choice(table(Phase.LEAD, plain), legal_cards(plain)) == cards("2H")[0]


def test_greedy_declares_trop_with_strong_trumps_sar_with_weak_and_trop_to_the_end_when_it_is_likely():
    declare = [SAR, TROP]
    strong = table(Phase.DECLARE, "KS 7S 5S 2H", trick=[(0, "AS")], trick_no=1)
    assert greedy_choice(strong, declare) == TROP
    weak = table(Phase.DECLARE, "7S 5S 2H 3H", trick=[(0, "9S")], trick_no=1)
    assert greedy_choice(weak, declare) == SAR
    solid = table(Phase.DECLARE, "KS QS JS TS 9S 8S 2H 3H 4H 5H 6H 7H", trick=[(0, "AS")], trick_no=0)
    assert greedy_choice(solid, [SAR, TROP, TROP_TO_END]) == TROP_TO_END
    holed = table(Phase.DECLARE, "8S 6S 5S 4S 3S 2S 2H 3H 4H 5H 6H 7H", trick=[(0, "AS")], trick_no=0)
    assert greedy_choice(holed, [SAR, TROP, TROP_TO_END]) == TROP


def test_greedy_does_not_overtake_a_partner_who_is_taking_the_trick():
    trick = [(1, "5H"), (2, "KH"), (3, "7H")]  # seat 0 plays last; its partner, seat 2, is winning
    assert greedy_choice(table(hand="AH 3H 9C", trick=trick), cards("3H AH")) == cards("3H")[0]


def test_greedy_takes_a_trick_with_its_cheapest_winner_and_ducks_when_it_cannot():
    trick = [(1, "9H")]
    assert greedy_choice(table(hand="AH TH 2H", trick=trick), cards("2H TH AH")) == cards("TH")[0]
    assert greedy_choice(table(hand="2S 9S 3C", trick=trick), cards("3C 2S 9S")) == cards("2S")[0]  # ruff low
    assert greedy_choice(table(hand="2H 3H", trick=[(1, "AH")]), cards("2H 3H")) == cards("2H")[0]


def test_greedy_stakes_a_kort_on_bavan_only_when_it_is_sure_and_it_matters():
    sure, unsure = "AS KS QS JS AH 2S", "AS KS QS JS KH 2S"
    vote = [BAVAN_YES, BAVAN_NO]
    assert greedy_choice(table(Phase.VOTE, sure, tricks=(7, 0)), vote) == BAVAN_YES
    assert greedy_choice(table(Phase.VOTE, unsure, tricks=(7, 0)), vote) == BAVAN_NO
    assert greedy_choice(table(Phase.VOTE, sure, tricks=(7, 0), holder=1), vote) == BAVAN_NO  # an At-kort
    assert greedy_choice(table(Phase.VOTE, sure, tricks=(7, 0), wins=(2, 0)), vote) == BAVAN_NO  # a Kort wins
