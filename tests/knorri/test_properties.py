"""Properties of every Knorri hand, checked over random hands for 3 to 6 seats (hypothesis).

Decisions are taken as the conformance protocol takes them, from the hand's
seed, so any failing example is replayed exactly by its seed.
"""

from __future__ import annotations

import json
import random

from conftest import assert_each_card_once, play_out_by_protocol, protocol_decisions
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sim.cards import card_list, to_set
from sim.errors import IllegalActionError
from sim.knorri.encoding import NUM_ACTIONS, TABLE_SIZE
from sim.knorri.reference import KnorriHand
from sim.knorri.scenario import snapshot
from sim.rng import SplitMix64

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def deals(draw) -> tuple[int, int, int]:
    """(seats, seed, first seat) of a random hand."""
    n_seats = draw(st.integers(3, 6))
    return n_seats, draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, n_seats - 1))


def protocol_hand(n_seats: int, seed: int, first_seat: int) -> tuple[KnorriHand, SplitMix64]:
    """The seed's hand at its first decision, with the stream its decisions come from."""
    rng = SplitMix64(seed)
    return KnorriHand(n_seats, rng.shuffled_deck(), first_seat, redeal=rng.shuffled_deck), rng


def turns_this_deal(hand: KnorriHand) -> int:
    """How many stock cards the current deal has turned, counted from the public log."""
    turns = 0
    for event in reversed(hand.log):
        if event["kind"] == "deal":
            return turns
        turns += event["kind"] == "turn"
    return turns


def places(hand: KnorriHand) -> list[int]:
    """The card sets a card can be in: table, unturned stock, the turned card awaiting a choice, each seat's
    cards, the trick, set aside."""
    stock = to_set(hand.deck[TABLE_SIZE + turns_this_deal(hand):]) if hand.phase == 1 else 0
    turned = hand.observation(0).turned
    trick = to_set(card for play in hand.trick for card in play)
    return [hand.table, stock, 0 if turned is None else 1 << turned, *hand.hands, trick, hand.set_aside]


@PROPERTY
@given(deals())
def test_every_hand_sums_to_zero_and_ends_for_a_reason(deal):
    hand, rng = protocol_hand(*deal)
    play_out_by_protocol(hand, rng)
    assert sum(hand.scores) == 0 and hand.end_reason is not None and hand.loser is not None
    assert hand.scores[hand.loser] == min(hand.scores) < 0
    assert hand.phase2_actions <= 1500


@PROPERTY
@given(deals())
def test_every_card_is_in_exactly_one_place_at_every_decision(deal):
    hand, rng = protocol_hand(*deal)
    checked = 0
    for state in protocol_decisions(hand, rng):
        assert_each_card_once(places(state))
        checked += 1
    assert_each_card_once(places(hand))
    assert checked == len(hand.decisions)


@PROPERTY
@given(deals(), st.integers(25, 120))
def test_every_legal_action_is_accepted_and_every_other_id_refused(deal, every):
    hand, rng = protocol_hand(*deal)
    for state in protocol_decisions(hand, rng, every):
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and legal
        for action in legal:
            state.clone().apply(action)
        before = snapshot(state)
        for action in sorted(set(range(NUM_ACTIONS)) - set(legal)):
            try:
                state.apply(action)
            except IllegalActionError:
                continue
            raise AssertionError(f"illegal action {action} was accepted")
        assert snapshot(state) == before


@PROPERTY
@given(deals())
def test_the_same_seed_always_gives_the_same_hand(deal):
    first, rng = protocol_hand(*deal)
    again, rng_again = protocol_hand(*deal)
    play_out_by_protocol(first, rng)
    play_out_by_protocol(again, rng_again)
    assert (first.deck, first.decisions, first.log, first.scores) == (again.deck, again.decisions, again.log,
                                                                       again.scores)


@PROPERTY
@given(deals(), st.integers(0, 2000), st.integers(0, 2**64 - 1))
def test_a_clone_is_independent_of_its_original(deal, at, other_seed):
    hand, rng = protocol_hand(*deal)
    for index, _ in enumerate(protocol_decisions(hand, rng)):
        if index == at:
            break
    twin = hand.clone()
    before = snapshot(hand)
    other = SplitMix64(other_seed)
    play_out_by_protocol(twin, other)
    assert snapshot(hand) == before, "acting on the clone changed the original"
    twin_after = snapshot(twin)
    play_out_by_protocol(hand, rng)
    assert snapshot(twin) == twin_after, "acting on the original changed the clone"


def test_a_clone_redeals_from_its_own_copy_of_the_stream():
    """A redeal (nobody captured in phase 1) draws the next deck from the hand's stream; so rare in play that no
    hand of the conformance vectors has one, it is drawn here directly: the clone's must not advance the
    original's, or the original would deal another deck than its seed gives."""
    hand = KnorriHand.from_seed(4, 11)
    twin = hand.clone()
    twin_deck = twin._redeal_source()
    assert hand._redeal_source() == KnorriHand.from_seed(4, 11)._redeal_source() == twin_deck


@PROPERTY
@given(deals(), st.integers(0, 8), st.randoms(use_true_random=False))
def test_the_order_of_the_unturned_stock_never_shows_in_an_observation(deal, at, shuffler: random.Random):
    hand, rng = protocol_hand(*deal)
    for _ in range(at):
        if hand.phase != 1:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    assume(hand.phase == 1 and not hand.redeals)
    turned = TABLE_SIZE + turns_this_deal(hand)
    unturned = hand.deck[turned:][::-1]  # reversed, then all but its first card shuffled: a different order
    rest = unturned[1:]
    shuffler.shuffle(rest)
    unturned = unturned[:1] + rest
    twin = KnorriHand(hand.n_seats, hand.deck[:turned] + unturned, hand.first_seat)
    for action in hand.decisions:
        twin.apply(action)
    assert twin.deck != hand.deck or len(unturned) <= 1
    for seat in range(hand.n_seats):
        assert twin.observation(seat) == hand.observation(seat)


@PROPERTY
@given(deals(), st.integers(100, 300))
def test_an_observation_shows_no_other_seats_cards_outside_the_log(deal, every):
    hand, rng = protocol_hand(*deal)
    for state in protocol_decisions(hand, rng, every):
        for seat in range(state.n_seats):
            view = state.observation(seat).to_dict()
            json.dumps(view)  # plain data
            shown = set(view["hand"]) | set(view["table"]) | {c for play in view["trick"] for c in play}
            shown |= {a for a in view["legal"] if a < 52} | ({view["turned"]} if view["turned"] is not None else set())
            for other in range(state.n_seats):
                if other != seat:
                    assert not shown & set(card_list(state.hands[other])), f"seat {seat} sees seat {other}'s cards"
            assert set(view["hand"]) == set(card_list(state.hands[seat]))
