"""Properties of every Kort match, over random matches to 3 or 7 wins with any first holder (hypothesis).

Decisions are taken as the conformance protocol takes them, from the match's
seed, so a failing example is replayed exactly by its options and seed.
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import assert_each_card_once, protocol_decisions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cards import bit, card_list, to_set
from sim.errors import GameOverError, IllegalActionError
from sim.kort import rules
from sim.kort.encoding import FIRST_PACKET, NUM_ACTIONS, Options, Phase
from sim.kort.reference import KortMatch
from sim.rng import SplitMix64

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def matches(draw) -> tuple[Options, int]:
    """(options, seed) of a random match: to 3 or 7 wins, any first holder."""
    options = Options(target_wins=draw(st.sampled_from([3, 7])), first_holder=draw(st.integers(0, 3)))
    return options, draw(st.integers(0, 2**64 - 1))


def protocol_match(options: Options, seed: int) -> tuple[KortMatch, SplitMix64]:
    """The seed's match at its first decision, with the stream that deals it and takes its decisions."""
    rng = SplitMix64(seed)
    return KortMatch(options, deck_source=rng.shuffled_deck), rng


def played_this_round(match: KortMatch) -> int:
    """The cards of this round's (this deal's) completed tricks, read from the public log."""
    cards = 0
    for event in reversed(match.log):
        if event["kind"] == "deal":
            return cards
        if event["kind"] == "trick":
            cards |= to_set(card for _, card in event["plays"])
    return cards


def places(match: KortMatch) -> list[int]:
    """Where this deal's 52 cards are: each seat's hand, the trick, completed tricks, and (while the holder
    chooses trumps) the cards not dealt yet."""
    trick = to_set(card for _, card in match.trick)
    undealt = to_set(match.deck[FIRST_PACKET:]) if match.phase == Phase.TRUMP else 0
    return [*match.hands, trick, played_this_round(match), undealt]


@PROPERTY
@given(matches())
def test_every_match_ends_with_one_winning_team_and_sums_to_zero(match_spec):
    match, rng = protocol_match(*match_spec)
    for _ in protocol_decisions(match, rng):
        pass
    options = match_spec[0]
    assert match.done and sum(match.scores) == 0
    assert match.scores == rules.match_scores(match.winner_team)
    assert match.wins[match.winner_team] >= options.target_wins > match.wins[1 - match.winner_team]
    gained = [0, 0]
    for round_record in match.rounds:  # each round's wins go to one team, and they add up to the score
        gained[round_record["team"]] += round_record["wins"]
        assert round_record["score"] == gained
    assert gained == match.wins
    assert match.legal_actions() == [] and not match.legal_mask().any() and match.to_move == -1


@PROPERTY
@given(matches())
def test_every_rounds_52_cards_are_each_in_one_place_at_every_decision(match_spec):
    match, rng = protocol_match(*match_spec)
    for state in protocol_decisions(match, rng):
        assert_each_card_once(places(state))


def snapshot(match: KortMatch) -> dict:
    """A deep copy of the match's state; the long log and round records (which only grow) by their lengths."""
    state = {k: v for k, v in match.__dict__.items() if k not in ("_draw", "log", "rounds")}
    return {**copy.deepcopy(state), "log": len(match.log), "rounds": len(match.rounds)}


@PROPERTY
@given(matches(), st.data())
def test_no_illegal_action_is_accepted_and_a_refusal_changes_nothing(match_spec, data):
    match, rng = protocol_match(*match_spec)
    for state in protocol_decisions(match, rng, every=7):
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and legal == list(state.legal_mask().nonzero()[0])
        illegal = [a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]
        action = data.draw(st.sampled_from(illegal))
        before = snapshot(state)
        with pytest.raises(IllegalActionError) as error:
            state.apply(action)
        assert "\n" not in str(error.value) and f"illegal action {action} by seat {state.to_move}" in str(error.value)
        assert snapshot(state) == before
    with pytest.raises(GameOverError):
        match.apply(0)


@PROPERTY
@given(matches())
def test_a_match_is_a_function_of_its_options_and_seed(match_spec):
    first, rng1 = protocol_match(*match_spec)
    second, rng2 = protocol_match(*match_spec)
    for _ in protocol_decisions(first, rng1):
        pass
    for _ in protocol_decisions(second, rng2):
        pass
    assert first.log == second.log and first.decisions == second.decisions and first.record() == second.record()
    json.dumps(first.log)  # the public log is plain JSON data
    json.dumps(first.record())


@PROPERTY
@given(matches(), st.integers(0, 500))
def test_a_clone_is_independent_of_its_original(match_spec, stop):
    match, rng = protocol_match(*match_spec)
    reference, ref_rng = protocol_match(*match_spec)
    for step, _ in enumerate(protocol_decisions(match, rng)):
        if step == stop:
            break
    for _ in range(len(match.decisions)):
        reference.apply(ref_rng.choice(reference.legal_actions()))
    twin = match.clone()
    before = json.dumps([match.observation(s).to_dict() for s in range(4)])
    side = SplitMix64(stop)
    while not twin.done:  # other choices, and the deals they lead to, on the clone only
        twin.apply(side.choice(twin.legal_actions()))
    assert json.dumps([match.observation(s).to_dict() for s in range(4)]) == before
    for _ in protocol_decisions(match, rng):
        pass
    for _ in protocol_decisions(reference, ref_rng):
        pass
    assert match.log == reference.log and match.record() == reference.record()


def hide_differently(match: KortMatch, seat: int, pick: SplitMix64) -> KortMatch:
    """A clone that differs from ``match`` only in what ``seat`` cannot see: two other seats' cards swapped
    (never the public 13th card), another deck order for what is not dealt yet, and a pending Bavan vote."""
    twin = match.clone()

    def hidden_cards(holder: int) -> list[int]:
        public = bit(twin.thirteenth) if twin.thirteenth is not None else 0
        return card_list(twin.hands[holder] & ~public)

    others = [s for s in range(4) if s != seat and hidden_cards(s)]
    if len(others) >= 2:
        holder, other = others[pick.below(len(others))], None
        third = [s for s in others if s != holder]
        other = third[pick.below(len(third))]
        card, swapped = pick.choice(hidden_cards(holder)), pick.choice(hidden_cards(other))
        twin.hands[holder] = twin.hands[holder] & ~bit(card) | bit(swapped)
        twin.hands[other] = twin.hands[other] & ~bit(swapped) | bit(card)
    if twin.phase == Phase.TRUMP:  # the rest of the deck is not dealt yet: any order of it
        rest = twin.deck[FIRST_PACKET:]
        twin.deck = twin.deck[:FIRST_PACKET] + [rest[i] for i in pick.shuffled_deck(len(rest))]
    if twin.phase == Phase.VOTE and twin._votes and seat not in twin._votes:
        first = next(iter(twin._votes))
        twin._votes[first] = 61 + 62 - twin._votes[first]
    return twin


@PROPERTY
@given(matches(), st.integers(0, 2**64 - 1))
def test_observations_hide_other_hands_the_deck_and_a_partners_pending_vote(match_spec, swap_seed):
    match, rng = protocol_match(*match_spec)
    pick = SplitMix64(swap_seed)
    changed = 0
    for state in protocol_decisions(match, rng, every=3):
        seat = pick.below(4)
        twin = hide_differently(state, seat, pick)
        changed += (twin.hands, twin.deck, twin._votes) != (state.hands, state.deck, state._votes)
        assert twin.observation(seat) == state.observation(seat)  # field by field, the log included
    assert changed
    json.dumps(match.observation(0).to_dict())  # an observation is plain JSON data


def test_an_observation_holds_only_the_seats_own_cards_and_its_legal_ids_on_its_turn():
    match = KortMatch(seed=3)
    assert [len(match.observation(s).hand) for s in range(4)] == [5, 0, 0, 0]  # as dealt so far
    match.apply(52)
    for seat in range(4):
        seen = match.observation(seat)
        assert list(seen.hand) == card_list(match.hands[seat]) and seen.card_counts == (13, 13, 13, 13)
        assert seen.legal == (tuple(match.legal_actions()) if seat == match.to_move else ())
        assert not any("deck" in event for event in seen.log)
