"""Knockout Whist's compiled step API for search agents: a position read from a seat's observation (with the hidden
cards given) steps on exactly as the reference game, and its playout policies are greedy's and random's."""

from __future__ import annotations

import numpy as np
import pytest

from agents.knockout_whist.greedy import greedy_action
from sim.errors import GameInputError
from sim.knockout_whist import compiled
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import SplitMix64, agent_seed, derive_seed

OPTION_MIXES = ({}, {"card_exchange": True, "winner_deals": True, "no_trumps_choice": True},
                {"rainbow": True, "safe_first_hand": True}, {"dogs_life": False, "card_exchange": True})


def _games_part_played(count: int):
    """Random games at 2 to 7 seats over the option mixes, stopped after a varying number of decisions."""
    for seed in range(count):
        game = KnockoutWhistGame({"players": 2 + seed % 6, **OPTION_MIXES[seed % len(OPTION_MIXES)]}, seed=seed)
        rng = SplitMix64(derive_seed(seed, 3))
        for _ in range(seed * 7 % 90):
            if game.done:
                break
            game.apply(rng.choice(game.legal_actions()))
        if not game.done:
            yield game, rng


def _true_rows(game: KnockoutWhistGame) -> tuple[np.ndarray, ...]:
    """The position the seat to move sees, completed by the true hands, stock and the game's own deal stream."""
    stock = game.stock[len(game.stock) - game.stock_left:]
    return compiled.position_rows(game.observation(game.to_move), game.hands, stock, game._draw.__self__.state)


def test_a_position_read_with_the_true_hidden_cards_plays_on_exactly_as_the_reference_game():
    checked = 0
    legal = np.zeros(compiled.NUM_ACTIONS, dtype=np.int64)
    for game, rng in _games_part_played(120):
        cards, ints, deck, streams = _true_rows(game)
        while not game.done:
            assert not compiled.is_over(ints) and compiled.to_move(ints) == game.to_move
            assert compiled.hand_number(ints) == game.hand_no and compiled.stock_left(ints) == game.stock_left
            assert [compiled.seat_status(ints, s) for s in range(game.n_seats)] == list(game.status)
            count = compiled.legal_actions(cards, ints, legal)
            assert legal[:count].tolist() == game.legal_actions()
            action = rng.choice(game.legal_actions())
            game.apply(action)
            compiled.apply_action(cards, ints, deck, streams, action)
        assert compiled.is_over(ints) and compiled.winner(ints) == game.winner
        assert compiled.scores(ints) == game.scores
        checked += 1
    assert checked > 100


def test_a_copied_position_with_other_hidden_cards_dealt_in_plays_on_from_those_cards():
    for game, _ in _games_part_played(20):
        seat = game.to_move
        twin = game.clone()
        others = [s for s in range(game.n_seats) if s != seat and game.hands[s]]
        if len(others) >= 2:  # swap two other seats' hands where the counts allow it
            a, b = others[:2]
            if game.hands[a].bit_count() == game.hands[b].bit_count():
                twin.hands[a], twin.hands[b] = game.hands[b], game.hands[a]
        rows = _true_rows(game)
        work = compiled.new_position()
        compiled.copy_position(rows, work)
        hands = np.array(twin.hands + [0] * (7 - game.n_seats), dtype=np.uint64)
        stock = np.zeros(52, dtype=np.int64)
        compiled.deal_hidden(work, hands, stock, seat)
        assert np.array_equal(work[0], _true_rows(twin)[0])


def test_compiled_greedy_makes_greedys_choice_at_every_decision():
    checked = 0
    for seed in range(40):
        options = {"players": 2 + seed % 6, **OPTION_MIXES[seed % len(OPTION_MIXES)]}
        game = KnockoutWhistGame(options, seed=seed)
        rng = SplitMix64(seed)
        while not game.done:
            cards, ints, _, streams = _true_rows(game)
            expected = greedy_action(game.observation(game.to_move), game.legal_actions())
            assert compiled.policy_choice(compiled.GREEDY, cards, ints, streams) == expected
            checked += 1
            game.apply(expected if seed % 2 else rng.choice(game.legal_actions()))
    assert checked > 2000


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_a_playout_plays_the_policy_at_every_seat_to_the_end(policy):
    for game, _ in _games_part_played(30):
        cards, ints, deck, streams = _true_rows(game)
        seed = int(streams[compiled.DEAL_STREAM])
        seat_streams = [SplitMix64(agent_seed(seed, s)) for s in range(game.n_seats)]
        compiled.play_out(cards, ints, deck, streams, compiled.POLICY_IDS[policy])
        while not game.done:
            legal = game.legal_actions()
            seat = game.to_move
            game.apply(greedy_action(game.observation(seat), legal) if policy == "greedy"
                       else seat_streams[seat].choice(legal))
        assert compiled.scores(ints) == game.scores


def test_a_position_that_does_not_fit_the_observation_is_refused_in_one_line():
    game = KnockoutWhistGame({"players": 4}, seed=1)
    observation = game.observation(game.to_move)
    stock = game.stock[len(game.stock) - game.stock_left:]
    short = list(game.hands)
    short[(game.to_move + 1) % 4] &= short[(game.to_move + 1) % 4] - 1  # one card fewer
    with pytest.raises(GameInputError, match="hand does not fit the observation"):
        compiled.position_rows(observation, short, stock)
    with pytest.raises(GameInputError, match="the stock holds"):
        compiled.position_rows(observation, game.hands, stock[1:])
