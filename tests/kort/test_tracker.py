"""Kort's tracker and sampler: what a seat deduces from its observations is true of the real hands at every step
of many random matches, every drawn deal fits it, and on small cases every consistent deal is equally likely."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from agents.base import make_agent
from agents.kort.decision import known_hidden_hands
from agents.kort.sampler import HandSampler, HiddenHands
from agents.kort.tracker import KortTracker
from sim.cards import SUIT_MASK, card_list, parse_cards, popcount, suit_of, to_set
from sim.kort.encoding import FIRST_PACKET, Phase
from sim.kort.reference import KortMatch
from sim.rng import SplitMix64, derive_seed

GAME = "kort"


def _random_matches(count: int):
    """Matches to 3 wins, random play (greedy's in every third), yielding (match, trackers) before each decision."""
    greedy = make_agent("greedy", game=GAME)
    for seed in range(count):
        match = KortMatch({"target_wins": 3, "first_holder": seed % 4}, seed=seed)
        trackers = [KortTracker(seat) for seat in range(4)]
        rng = SplitMix64(derive_seed(seed, 5))
        while not match.done:
            yield match, trackers
            legal = match.legal_actions()
            mover = match.to_move
            match.apply(greedy.act(match.observation(mover), legal) if seed % 3 == 0 else rng.choice(legal))


def test_the_trackers_deductions_are_true_of_the_real_hands_at_every_step():
    shown = Counter()
    for match, trackers in _random_matches(40):
        for seat, tracker in enumerate(trackers):
            tracker.update(match.observation(seat))
            for other in range(4):
                held = match.hands[other]
                if other == seat:
                    assert tracker.possible(other) == held
                    continue
                assert held & tracker.cannot_hold(other) == 0, (seat, other)
                low, high = tracker.trump_bounds(other)
                if match.trump is not None:
                    assert low <= popcount(held & SUIT_MASK[match.trump]) <= high, (seat, other)
                shown["void"] += tracker.voids[other] != 0
                shown["bound"] += low > 0 or high < 13
                shown["known"] += tracker.known[other] != 0
    assert shown["void"] > 5000 and shown["bound"] > 5000 and shown["known"] > 100  # the deductions do say something


def test_a_seat_that_fails_to_follow_suit_is_known_void_in_it():
    voids = 0
    for match, _ in _random_matches(10):
        if match.phase != Phase.FOLLOW or not match.trick:
            continue
        mover, led = match.to_move, suit_of(match.trick[0][1])
        if match.hands[mover] & SUIT_MASK[led]:
            continue
        observer = (mover + 1) % 4
        card = match.legal_actions()[0]
        twin = match.clone()
        twin.apply(card)
        if twin.rounds_played != match.rounds_played:
            continue  # the trick ended the round: a new deal, new knowledge
        tracker = KortTracker(observer)
        tracker.update(twin.observation(observer))
        assert tracker.voids[mover] & SUIT_MASK[led] == SUIT_MASK[led]
        voids += 1
    assert voids > 20


def test_a_declaration_bounds_the_leaders_trumps():
    bounded = Counter()
    for match, _ in _random_matches(25):
        events = match.log
        if not events or events[-1]["kind"] != "declare":
            continue
        leader, word = events[-1]["seat"], events[-1]["declaration"]
        tracker = KortTracker((leader + 1) % 4)
        tracker.update(match.observation((leader + 1) % 4))
        low, high = tracker.trump_bounds(leader)
        if word == "sar_auto_fewer_than_3":
            assert high <= 1
        elif word == "alltrump":
            assert tracker.voids[leader] & ~SUIT_MASK[match.trump] == ~SUIT_MASK[match.trump] & ((1 << 52) - 1)
        else:
            assert low >= 2
        bounded[word] += 1
    assert bounded["sar_auto_fewer_than_3"] and bounded["sar"] + bounded["trop"] > 0


def test_the_true_hands_are_always_a_deal_the_seat_thinks_possible():
    for match, trackers in _random_matches(30):
        for seat, tracker in enumerate(trackers):
            observation = match.observation(seat)
            tracker.update(observation)
            hidden = known_hidden_hands(tracker, observation)
            assert hidden.is_consistent(match.hands), (seat, match.round_no)
            assert hidden.undealt == (match.phase == Phase.TRUMP)
            if hidden.undealt:
                assert popcount(hidden.pool) - sum(hidden.counts) == 52 - FIRST_PACKET


def test_every_drawn_deal_fits_what_the_seat_knows():
    rng = np.array([11], dtype=np.uint64)
    drawn = 0
    for match, trackers in _random_matches(25):
        seat = match.to_move
        observation = match.observation(seat)
        trackers[seat].update(observation)
        hidden = known_hidden_hands(trackers[seat], observation)
        sampler = HandSampler(hidden)
        for _ in range(2):
            hands, undealt = sampler.sample(rng)
            assert hidden.is_consistent(hands)
            if hidden.undealt:
                assert to_set(undealt) | sum(hands) == hidden.pool and len(undealt) == 52 - FIRST_PACKET
            else:
                assert undealt == []
            drawn += 1
    assert drawn > 2000


def _every_consistent_deal(hidden: HiddenHands) -> list[tuple[int, ...]]:
    pool = card_list(hidden.pool)
    seats = [s for s in range(4) if hidden.counts[s]]
    deals = []
    for order in itertools.permutations(pool):
        hands, start = [0, 0, 0, 0], 0
        for s in seats:
            hands[s] = to_set(order[start:start + hidden.counts[s]]) | hidden.known[s]
            start += hidden.counts[s]
        if hidden.is_consistent(hands) and tuple(hands) not in deals:
            deals.append(tuple(hands))
    return deals


CASES = {
    # seat 1 lacks clubs, seat 3 holds at most one spade (trumps); seat 2 is known to hold the 13th card, 5S
    "voids and trump bounds": HiddenHands(0, to_set(parse_cards("2C 3C 2D 3D 2S 3S 4S")), (0, 2, 3, 2),
                                          (0, 0, to_set(parse_cards("5S")), 0),
                                          ((0,) * 4, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)),
                                          ((0,) * 4, (0, 2, 2, 2), (2, 2, 2, 3), (2, 2, 2, 1)), False),
    # seat 2 holds at least two spades
    "a lower trump bound": HiddenHands(0, to_set(parse_cards("2C 3C 4C 2S 3S 4S")), (0, 2, 2, 2), (0,) * 4,
                                       ((0,) * 4, (0,) * 4, (0, 0, 0, 2), (0,) * 4),
                                       ((0,) * 4, (3, 0, 0, 3), (3, 0, 0, 3), (3, 0, 0, 3)), False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_consistent_deal_is_equally_likely(case):
    hidden = CASES[case]
    deals = _every_consistent_deal(hidden)
    per_deal = 300
    sampler = HandSampler(hidden)
    rng = np.array([7], dtype=np.uint64)
    counts = Counter(tuple(sampler.sample(rng)[0]) for _ in range(per_deal * len(deals)))
    assert set(counts) == set(deals)  # every consistent deal comes up, nothing else does
    chi2 = sum((counts[deal] - per_deal) ** 2 / per_deal for deal in deals)
    df = len(deals) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)  # a fixed seed: deterministic, far from the boundary
    assert len(deals) > 5
