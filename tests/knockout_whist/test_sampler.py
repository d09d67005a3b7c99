"""The sampler of hidden hands: every deal it draws fits what the seat knows, the true deal always does, and on
small cases every consistent deal comes up equally often."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from agents.knockout_whist.decision import known_hidden_cards
from agents.knockout_whist.sampler import DealSampler, HiddenCards
from agents.knockout_whist.tracker import KnockoutWhistTracker
from sim.cards import SUIT_MASK, parse_cards, suit_of, to_set
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.rng import SplitMix64, derive_seed

OPTION_MIXES = ({}, {"card_exchange": True}, {"rainbow": True}, {"card_exchange": True, "winner_deals": True},
                {"dogs_life": False, "no_trumps_choice": True})


def _random_games(count: int):
    """Random games at 2 to 7 seats over the option mixes, yielding (game, trackers) before every decision."""
    for seed in range(count):
        n = 2 + seed % 6
        game = KnockoutWhistGame({"players": n, **OPTION_MIXES[seed % len(OPTION_MIXES)]}, seed=seed)
        trackers = [KnockoutWhistTracker(n, seat) for seat in range(n)]
        rng = SplitMix64(derive_seed(seed, 5))
        while not game.done:
            yield game, trackers
            game.apply(rng.choice(game.legal_actions()))


def _stock(game: KnockoutWhistGame) -> list[int]:
    return game.stock[len(game.stock) - game.stock_left:]


def test_the_true_deal_is_always_one_the_seat_thinks_possible():
    voids = 0
    for game, trackers in _random_games(60):
        for seat, tracker in enumerate(trackers):
            observation = game.observation(seat)
            tracker.update(observation)
            hidden = known_hidden_cards(tracker, observation)
            assert hidden.is_consistent(game.hands), (seat, game.hand_no)
            assert hidden.stock_left == game.stock_left
            voids += sum(1 for void in hidden.voids if void)
    assert voids > 1000  # the constraints do bite


def test_every_sampled_deal_fits_what_the_seat_knows():
    rng = np.array([11], dtype=np.uint64)
    drawn = 0
    for game, trackers in _random_games(40):
        seat = game.to_move
        observation = game.observation(seat)
        trackers[seat].update(observation)
        hidden = known_hidden_cards(trackers[seat], observation)
        sampler = DealSampler(hidden)
        for _ in range(2):
            hands, stock = sampler.sample(rng)
            assert hidden.is_consistent(hands)
            assert hands[seat] == 0 and len(stock) == game.stock_left
            assert not to_set(stock) & (sum(hands) | to_set(observation.hand)) and len(set(stock)) == len(stock)
            drawn += 1
    assert drawn > 3000


def _every_consistent_deal(hidden: HiddenCards) -> list[tuple]:
    """Brute force: every (hands, stock) with the right counts, no card of a void suit and no rainbow dealt."""
    pool = [card for card in range(52) if hidden.pool >> card & 1]
    seats = [s for s in range(len(hidden.counts)) if hidden.counts[s]]
    deals = set()
    for order in itertools.permutations(pool):
        hands, at = [0] * len(hidden.counts), 0
        for s in seats:
            hands[s] = to_set(order[at:at + hidden.counts[s]])
            at += hidden.counts[s]
        lacks = any(hands[s] & SUIT_MASK[suit] for s in seats for suit in range(4) if hidden.voids[s] >> suit & 1)
        rainbow = any(shown is not None and {suit_of(c) for c in range(52) if (hands[s] | shown) >> c & 1} ==
                      {0, 1, 2, 3} and (hands[s] | shown).bit_count() == 4
                      for s, shown in enumerate(hidden.rainbow_shown))
        if not lacks and not rainbow:
            deals.add((tuple(hands), order[at:at + hidden.stock_left]))
    return sorted(deals)


def _chi_square_is_uniform(hidden: HiddenCards, per_deal: int, seed: int) -> int:
    deals = _every_consistent_deal(hidden)
    sampler = DealSampler(hidden)
    rng = np.array([seed], dtype=np.uint64)
    counts = Counter()
    for _ in range(per_deal * len(deals)):
        hands, stock = sampler.sample(rng)
        counts[(tuple(hands), tuple(stock))] += 1
    assert set(counts) <= set(deals)  # nothing inconsistent
    chi2 = sum((counts[deal] - per_deal) ** 2 / per_deal for deal in deals)
    df = len(deals) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)  # a fixed seed: deterministic, far from the boundary
    return len(deals)


@pytest.mark.parametrize("case", ["one seat void", "two seats void in different suits"])
def test_every_consistent_deal_is_equally_likely(case):
    pool = to_set(parse_cards("2C 3C 4C 2D 3D 2H 2S"))
    if case == "one seat void":  # seat 1 lacks clubs; seat 2 free; two stock cards, one thrown card
        hidden = HiddenCards(0, pool, (0, 2, 2), (0, 0b0001, 0), 2, (None, None, None))
    else:  # seat 1 lacks clubs, seat 2 lacks diamonds and spades, seat 3 free
        hidden = HiddenCards(0, pool, (0, 2, 2, 1), (0, 0b0001, 0b1010, 0), 2, (None,) * 4)
    assert _chi_square_is_uniform(hidden, per_deal=300, seed=7) > 20


def test_no_seat_was_dealt_a_rainbow_in_hand_4():
    # Hand 4 with rainbow: seat 1 played 2C and 2D, so it holds no heart together with a spade.
    pool = to_set(parse_cards("3C 3D 2H 3H 2S 3S"))
    shown = to_set(parse_cards("2C 2D"))
    hidden = HiddenCards(0, pool, (0, 2, 2), (0, 0, 0), 2, (None, shown, None))
    deals = _every_consistent_deal(hidden)
    assert all(not (hands[1] & SUIT_MASK[2] and hands[1] & SUIT_MASK[3]) for hands, _ in deals)
    assert _chi_square_is_uniform(hidden, per_deal=40, seed=3) == len(deals)
