"""``mcts``'s opponent models: a posterior over how each other seat plays, learned from the deal's decisions."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents.base import make_agent
from agents.knorri.opponent_models import Belief, add_choice_evidence, parse_models, parse_prior
from agents.knorri.search_rules import GREEDY_MODEL, LOOKAHEAD_MODEL, MAXN, OPPONENT_MODELS, RANDOM_MODEL
from agents.knorri.tracker import KnorriTracker
from sim.knorri.compiled import position_rows
from sim.knorri.reference import KnorriHand
from sim.seating import play_with_agents

ALL_MODELS = ("random", "greedy", "loginf", "maxn")


def _belief_after_hand(specs: list[str], seed: int, observer: int) -> Belief:
    """The observer's belief after reading a whole hand played by ``specs``."""
    agents = [make_agent(spec, seed=0) for spec in specs]
    hand = KnorriHand.from_seed(len(specs), seed)
    play_with_agents(hand, agents, seed)
    tracker = KnorriTracker(len(specs))
    tracker.update(hand.observation(observer))
    belief = Belief(len(specs), observer, ALL_MODELS, parse_prior("", 4), 0.05)
    if tracker.phase == 2:
        deal = KnorriHand(len(specs), tracker.deal_table + tracker.turned_order, tracker.first_seat)
        belief.observe(position_rows(deal), tracker.decisions)
    return belief


def test_the_posterior_names_each_fixed_policy_that_plays():
    """After a hand, a greedy seat is most likely greedy, a loginf seat loginf and a random seat random."""
    right = {1: 0, 2: 0, 3: 0}
    expected = {1: RANDOM_MODEL, 2: GREEDY_MODEL, 3: LOOKAHEAD_MODEL}
    hands = 0
    for seed in range(12):
        belief = _belief_after_hand(["greedy", "random", "greedy", "loginf"], seed, observer=0)
        if belief.seen < 20:
            continue
        hands += 1
        models = belief.current_models()
        for seat, model in expected.items():
            right[seat] += int(models[seat] == model)
        if models[3] == GREEDY_MODEL:  # loginf made greedy's choice every time: the two are equally likely
            assert belief.loglik[3, GREEDY_MODEL] == belief.loglik[3, LOOKAHEAD_MODEL]
            right[3] += 1
    assert hands >= 8
    assert right == {1: hands, 2: hands, 3: hands}


def test_one_surprise_does_not_rule_a_model_out():
    """Smoothing: a greedy seat that deviates once after agreeing often is still most likely greedy."""
    loglik = np.zeros((4, len(OPPONENT_MODELS)))
    for _ in range(6):
        add_choice_evidence(loglik, 1, 10, 4, 10, 12, 0.05)  # greedy chose 10, loginf would take 12
    add_choice_evidence(loglik, 1, 7, 4, 10, 12, 0.05)
    assert np.isfinite(loglik).all()
    assert int(np.argmax(loglik[1])) == GREEDY_MODEL


def test_a_seat_no_fixed_policy_explains_is_searched_for_as_itself():
    """Choices that follow the heuristics most of the time but neither one always make the seat a searcher."""
    loglik = np.zeros((4, len(OPPONENT_MODELS)))
    for i in range(30):
        greedy_choice, lookahead = 10, 12
        action = (greedy_choice, lookahead, 20)[i % 3]
        add_choice_evidence(loglik, 2, action, 6, greedy_choice, lookahead, 0.05)
    assert int(np.argmax(loglik[2])) == MAXN


def test_the_prior_decides_before_any_evidence():
    """With nothing seen, each seat's model is the candidate with the largest prior weight."""
    belief = Belief(4, 0, ("greedy", "loginf"), parse_prior("1+3", 2), 0.05)
    assert belief.current_models().tolist() == [MAXN, LOOKAHEAD_MODEL, LOOKAHEAD_MODEL, LOOKAHEAD_MODEL]


@pytest.mark.parametrize("spec, message", [
    ("mcts:models=greedy+alien", "models='greedy+alien'"),
    ("mcts:models=greedy+greedy", "twice"),
    ("mcts:prior=1+2", "prior='1+2'"),
    ("mcts:prior=1+0+1+1", "positive"),
    ("mcts:others=psychic", "others"),
    ("mcts:eps=1.5", "eps"),
])
def test_bad_model_parameters_are_refused_in_one_line(spec, message):
    with pytest.raises(Exception, match=re.escape(message)) as error:
        make_agent(spec, seed=0)
    assert "\n" not in str(error.value)


def test_parse_models_keeps_the_order_given():
    assert parse_models("maxn+random") == ("maxn", "random")


@pytest.mark.parametrize("others", ["loginf", "greedy", "maxn", "random"])
def test_every_fixed_model_stays_reachable_by_spec_and_plays_legally(others):
    """``others=loginf`` is the model ``mcts`` used before posteriors; every fixed model still plays whole hands."""
    specs = ["greedy", f"mcts:iters=40,others={others}", "random", "loginf"]
    agents = [make_agent(spec, seed=0) for spec in specs]
    for seed in range(2):
        hand = KnorriHand.from_seed(4, seed)
        play_with_agents(hand, agents, seed)
        assert hand.done and sum(hand.scores) == 0
