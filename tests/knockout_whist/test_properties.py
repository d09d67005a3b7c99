"""Properties of every Knockout Whist game, over random games with 2 to 7 seats and any options (hypothesis).

Decisions are taken as the conformance protocol takes them, from the game's
seed, so a failing example is replayed exactly by its options and seed.
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import assert_each_card_once, play_out_by_protocol, protocol_decisions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cards import bit, card_list, to_set
from sim.errors import GameOverError, IllegalActionError
from sim.knockout_whist.encoding import KNOCK, MAX_SEATS, MIN_SEATS, NUM_ACTIONS, Options, Phase, Status
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import SplitMix64

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw) -> tuple[Options, int]:
    """(options, seed) of a random game: any seat count, each variant on or off."""
    flags = {name: draw(st.booleans()) for name in ("dogs_life", "safe_first_hand", "winner_deals", "card_exchange",
                                                     "no_trumps_choice", "rainbow")}
    return Options(players=draw(st.integers(MIN_SEATS, MAX_SEATS)), **flags), draw(st.integers(0, 2**64 - 1))


def protocol_game(options: Options, seed: int) -> tuple[KnockoutWhistGame, SplitMix64]:
    """The seed's game at its first decision, with the stream that deals it and takes its decisions."""
    rng = SplitMix64(seed)
    return KnockoutWhistGame(options, deck_source=rng.shuffled_deck), rng


def played_this_hand(game: KnockoutWhistGame) -> int:
    """The cards of this hand's completed tricks, read from the public log."""
    cards = 0
    for event in reversed(game.log):
        if event["kind"] == "hand":
            return cards
        if event["kind"] == "trick":
            cards |= to_set(action for _, action in event["plays"] if action != KNOCK)
    return cards


def places(game: KnockoutWhistGame) -> list[int]:
    """Where the current hand's cards are: each seat's hand, the trick, completed tricks, thrown away, the stock
    not yet drawn, and hand 1's turned card."""
    trick = to_set(action for _, action in game.trick if action != KNOCK)
    stock = to_set(game.stock[len(game.stock) - game.stock_left:])
    turned = 0 if game.turned is None else bit(game.turned)
    return [*game.hands, trick, played_this_hand(game), *game.thrown, stock, turned]


@PROPERTY
@given(games())
def test_every_game_ends_with_one_winner_and_sums_to_zero(game_spec):
    game, rng = protocol_game(*game_spec)
    play_out_by_protocol(game, rng)
    n = game.n_seats
    assert game.done and sum(game.scores) == 0
    assert game.scores[game.winner] == n - 1 and game.scores.count(-1) == n - 1
    assert game.status[game.winner] != Status.OUT and 1 <= game.hands_played <= 7
    assert game.legal_actions() == [] and not game.legal_mask().any() and game.to_move == -1


@PROPERTY
@given(games())
def test_every_card_is_in_exactly_one_place_at_every_decision(game_spec):
    game, rng = protocol_game(*game_spec)
    for state in protocol_decisions(game, rng):
        assert_each_card_once(places(state))


@PROPERTY
@given(games(), st.data())
def test_no_illegal_action_is_accepted_and_a_refusal_changes_nothing(game_spec, data):
    game, rng = protocol_game(*game_spec)
    for state in protocol_decisions(game, rng):
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and legal == list(state.legal_mask().nonzero()[0])
        illegal = [a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]
        action = data.draw(st.sampled_from(illegal))
        before = copy.deepcopy({k: v for k, v in state.__dict__.items() if k != "_draw"})
        with pytest.raises(IllegalActionError) as error:
            state.apply(action)
        assert "\n" not in str(error.value)
        assert {k: v for k, v in state.__dict__.items() if k != "_draw"} == before
    with pytest.raises(GameOverError):
        game.apply(0)


@PROPERTY
@given(games())
def test_a_game_is_a_function_of_its_options_and_seed(game_spec):
    first, rng1 = protocol_game(*game_spec)
    second, rng2 = protocol_game(*game_spec)
    play_out_by_protocol(first, rng1)
    play_out_by_protocol(second, rng2)
    assert first.log == second.log and first.decisions == second.decisions and first.record() == second.record()


@PROPERTY
@given(games(), st.integers(0, 200))
def test_a_clone_is_independent_of_its_original(game_spec, stop):
    game, rng = protocol_game(*game_spec)
    reference, ref_rng = protocol_game(*game_spec)
    for step, _ in enumerate(protocol_decisions(game, rng)):
        if step == stop:
            break
    for _ in range(len(game.decisions)):
        reference.apply(ref_rng.choice(reference.legal_actions()))
    twin = game.clone()
    before = json.dumps([game.observation(s).to_dict() for s in range(game.n_seats)])
    side = SplitMix64(stop)
    while not twin.done:  # other choices, and the deals they lead to, on the clone only
        twin.apply(side.choice(twin.legal_actions()))
    assert json.dumps([game.observation(s).to_dict() for s in range(game.n_seats)]) == before
    play_out_by_protocol(game, rng)
    play_out_by_protocol(reference, ref_rng)
    assert game.log == reference.log and game.record() == reference.record()


def hide_differently(game: KnockoutWhistGame, seat: int, pick: SplitMix64) -> KnockoutWhistGame:
    """A clone that differs from ``game`` only in what ``seat`` cannot see: another seat's card swapped with
    a stock card or a third seat's card, a card someone else threw away, and the order of the stock."""
    twin = game.clone()

    def hidden_cards(holder: int) -> list[int]:  # cards held, except picks of an exchange in progress
        return card_list(twin.hands[holder] & ~(twin._picked if holder == twin.to_move else 0))

    others = [s for s in range(game.n_seats) if s != seat and hidden_cards(s)]
    drawn = len(twin.stock) - twin.stock_left
    stock = list(twin.stock[drawn:])
    if others:
        holder = pick.choice(others)
        card = pick.choice(hidden_cards(holder))
        third = [s for s in others if s != holder]
        if stock and (not third or pick.below(2)):
            index = pick.below(len(stock))
            stock[index], swapped = card, stock[index]
            twin.hands[holder] = twin.hands[holder] & ~bit(card) | bit(swapped)
        elif third:
            other = pick.choice(third)
            swapped = pick.choice(hidden_cards(other))
            twin.hands[holder] = twin.hands[holder] & ~bit(card) | bit(swapped)
            twin.hands[other] = twin.hands[other] & ~bit(swapped) | bit(card)
    thrown_by_others = [s for s in range(game.n_seats) if s != seat and twin.thrown[s]]
    if thrown_by_others and stock:
        thrower = pick.choice(thrown_by_others)
        card = pick.choice(card_list(twin.thrown[thrower]))
        stock[0], swapped = card, stock[0]
        twin.thrown[thrower] = twin.thrown[thrower] & ~bit(card) | bit(swapped)
    order = pick.shuffled_deck(len(stock)) if stock else []
    twin.stock = twin.stock[:drawn] + [stock[i] for i in order]
    return twin


@PROPERTY
@given(games(), st.integers(0, 2**64 - 1))
def test_observations_hide_other_hands_the_stock_and_thrown_cards(game_spec, swap_seed):
    game, rng = protocol_game(*game_spec)
    pick = SplitMix64(swap_seed)
    changed = 0
    for state in protocol_decisions(game, rng):
        seat = pick.below(state.n_seats)
        twin = hide_differently(state, seat, pick)
        changed += (twin.hands, twin.stock, twin.thrown) != (state.hands, state.stock, state.thrown)
        seen = state.observation(seat).to_dict()
        assert twin.observation(seat).to_dict() == seen
        json.dumps(seen)  # an observation is plain JSON data
    assert changed


def test_an_observation_shows_the_seats_own_picks_but_only_others_exchange_counts():
    game = KnockoutWhistGame(Options(card_exchange=True), seed=5)
    assert game.phase == Phase.EXCHANGE
    picker = game.to_move
    game.apply(game.legal_actions()[0])
    picked = game.legal_actions()  # the first pick is no longer offered
    assert game.observation(picker).picked and all(p not in picked for p in game.observation(picker).picked)
    for seat in range(game.n_seats):
        if seat != picker:
            assert game.observation(seat).picked == () and game.observation(seat).exchanged[picker] is None
    game.apply(58)
    assert all(game.observation(s).exchanged[picker] == 1 for s in range(game.n_seats))
    assert game.observation(picker).thrown and not game.observation((picker + 1) % game.n_seats).thrown
