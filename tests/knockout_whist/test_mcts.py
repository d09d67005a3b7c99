"""Knockout Whist's ``mcts``: its spec, legal and repeatable play in every kind of decision, blindness to the
cards it cannot see, and a clear win over random."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import advance_by_protocol, fresh_choices

from agents.base import AgentSpecError, RandomAgent, make_agent
from agents.knockout_whist.decision import known_hidden_cards
from agents.knockout_whist.mcts import MCTSAgent
from agents.knockout_whist.sampler import DealSampler
from agents.knockout_whist.tracker import KnockoutWhistTracker
from sim.knockout_whist.encoding import Phase
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import SplitMix64, derive_seed
from sim.seating import play_with_agents

GAME = "knockout-whist"
FAST = "mcts:iters=60"


def test_a_spec_sets_the_search_parameters_and_refuses_bad_ones_in_one_line():
    agent = make_agent("mcts:iters=50,c=0.5,rollout=random,seed=3", game=GAME)
    assert isinstance(agent, MCTSAgent)
    assert (agent.iters, agent.c, agent.rollout, agent.time_budget) == (50, 0.5, "random", 0.0)
    assert agent.name.startswith("mcts:iters=50,c=0.5,rollout=random")
    for spec, message in (("mcts:iters=0", "iters=0"), ("mcts:c=-1", "c=-1"), ("mcts:rollout=smart", "smart"),
                          ("mcts:time=-2", "time=-2"), ("mcts:depth=3", "no parameter 'depth'"),
                          ("mcts:iters=many", "not a valid int")):
        with pytest.raises(AgentSpecError, match=message) as error:
            make_agent(spec, game=GAME)
        assert "\n" not in str(error.value)


def _decisions_by_phase(game: KnockoutWhistGame, seats: set[int]) -> Counter:
    phases = Counter()
    for event in game.log:
        if event["kind"] == "trumps" and event["seat"] in seats:
            phases[Phase.CHOOSE] += 1
        elif event["kind"] == "exchange" and event["seat"] in seats:
            phases[Phase.EXCHANGE] += 1
        elif event["kind"] in ("play", "knock") and event["seat"] in seats:
            phases[Phase.PLAY] += 1
    return phases


@pytest.mark.parametrize("options", [{}, {"card_exchange": True}, {"no_trumps_choice": True, "winner_deals": True},
                                     {"rainbow": True, "safe_first_hand": True, "dogs_life": False}])
def test_mcts_plays_legally_through_whole_games_at_every_seat_count(options):
    phases = Counter()
    for n in range(2, 8):
        seed = derive_seed(n, len(options))
        specs = [FAST if seat % 2 == 0 else "random" for seat in range(n)]
        game = play_with_agents(KnockoutWhistGame({"players": n, **options}, seed=seed),
                         [make_agent(spec, game=GAME) for spec in specs], seed)  # an illegal choice would raise
        assert game.done
        phases += _decisions_by_phase(game, {seat for seat in range(n) if seat % 2 == 0})
    assert phases[Phase.PLAY] > 0 and phases[Phase.CHOOSE] > 0
    assert phases[Phase.EXCHANGE] > 0 or not options.get("card_exchange")


def test_mcts_repeats_itself_for_a_seed_and_varies_with_its_spec_seed():
    def decisions(spec: str) -> list[int]:
        game = KnockoutWhistGame({"players": 4}, seed=5)
        return play_with_agents(game, [make_agent(spec, game=GAME) for _ in range(4)], 5).decisions

    assert decisions(FAST) == decisions(FAST)
    assert decisions(FAST) != decisions(FAST + ",seed=1")


def test_mcts_decides_the_same_whatever_the_cards_it_cannot_see():
    checked = 0
    for seed in range(16):
        n = 3 + seed % 4
        game = KnockoutWhistGame({"players": n, "card_exchange": seed % 3 == 0}, seed=seed)
        advance_by_protocol(game, SplitMix64(seed), seed * 7 % 60)
        seat = game.to_move
        if game.done or len(game.legal_actions()) == 1:
            continue
        twin = _redealt(game, seat, seed)
        assert twin.hands != game.hands or twin.stock != game.stock
        assert twin.observation(seat) == game.observation(seat)
        choices = fresh_choices(FAST, GAME, seat, n, seed, (game, twin))
        assert choices[0] == choices[1]
        checked += 1
    assert checked >= 10


def _redealt(game: KnockoutWhistGame, seat: int, seed: int) -> KnockoutWhistGame:
    """A copy of ``game`` whose cards hidden from ``seat`` (other hands, the stock) are dealt again, consistently."""
    tracker = KnockoutWhistTracker(game.n_seats, seat)
    observation = game.observation(seat)
    tracker.update(observation)
    hands, stock = DealSampler(known_hidden_cards(tracker, observation)).sample(
        np.array([seed + 1], dtype=np.uint64))
    twin = game.clone()
    twin.hands = [game.hands[s] if s == seat else hands[s] for s in range(game.n_seats)]
    twin.stock = twin.stock[:len(twin.stock) - game.stock_left] + stock
    return twin


def test_mcts_beats_random_clearly():
    games, mean = 120, {"mcts": 0.0, "random": 0.0}
    for seed in range(games):
        lineup = ["mcts", "random", "mcts", "random"] if seed % 2 else ["random", "mcts", "random", "mcts"]
        agents = [make_agent(FAST, game=GAME) if name == "mcts" else RandomAgent() for name in lineup]
        game = play_with_agents(KnockoutWhistGame({"players": 4}, seed=seed // 2), agents, seed // 2)
        for seat, name in enumerate(lineup):
            mean[name] += game.scores[seat] / (2 * games)
    assert mean["mcts"] > 0.5 > -0.5 > mean["random"]


def test_a_time_budget_searches_until_the_clock_runs_out():
    game = KnockoutWhistGame({"players": 4}, seed=2)
    agent = make_agent("mcts:time=0.02", game=GAME)
    agent.reset(game.to_move, 4, 2)
    children = agent.search(game.observation(game.to_move))
    assert sum(visits for _, visits, _ in children) > 64  # more than the first chunk of iterations
    assert {action for action, _, _ in children} == set(game.legal_actions())
