"""Greedy: the Python heuristic and its compiled twin make the same choices; greedy beats random."""

from __future__ import annotations

import numpy as np

from agents.base import RandomAgent
from agents.knorri.greedy import GreedyAgent, greedy_action
from sim.knorri.compiled import policies
from sim.knorri.compiled.state import I_OPENING, I_PHASE, NUM_CARD_FIELDS, NUM_INT_FIELDS, NUM_RNG
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64, derive_seed
from sim.seating import play_with_agents


def _compiled_choice(hand: KnorriHand, legal: list[int]) -> int:
    cards_row = np.zeros(NUM_CARD_FIELDS, dtype=np.uint64)
    ints_row = np.zeros(NUM_INT_FIELDS, dtype=np.int64)
    ints_row[I_PHASE] = hand.phase
    ints_row[I_OPENING] = int(hand.opening)
    buffer = np.zeros(65, dtype=np.int64)
    buffer[: len(legal)] = legal
    rng = np.zeros(NUM_RNG, dtype=np.uint64)
    return int(policies.choose(policies.GREEDY, hand.to_move, buffer, len(legal), cards_row, ints_row, rng))


def test_compiled_greedy_policy_matches_greedy_action_at_every_decision():
    """Every decision of 60 random hands (3 to 6 seats): both versions pick the same id."""
    checked = 0
    for seed in range(60):
        n_seats = 3 + seed % 4
        hand = KnorriHand.from_seed(n_seats, seed)
        rng = SplitMix64(seed)
        while not hand.done:
            legal = hand.legal_actions()
            expected = greedy_action(hand.phase, hand.hands[hand.to_move], hand.top_card, hand.opening, legal)
            assert _compiled_choice(hand, legal) == expected
            checked += 1
            hand.apply(rng.choice(legal))
    assert checked > 10_000


def test_greedy_is_deterministic_and_plays_only_legal_ids():
    first = play_with_agents(KnorriHand.from_seed(5, 3), [GreedyAgent(seed=s) for s in range(5)], 3)
    again = play_with_agents(KnorriHand.from_seed(5, 3), [GreedyAgent(seed=9) for _ in range(5)], 3)
    assert first.decisions == again.decisions and first.scores == again.scores


def test_greedy_beats_random_clearly_on_duplicate_deals():
    """Greedy at each seat in turn against three random agents, 150 deals: mean score far above 0."""
    per_deal = []
    for deal in range(150):
        seed = derive_seed(99, deal)
        total = 0
        for hero in range(4):
            agents = [GreedyAgent() if seat == hero else RandomAgent() for seat in range(4)]
            total += play_with_agents(KnorriHand.from_seed(4, seed), agents, seed).scores[hero]
        per_deal.append(total / 4)
    mean = float(np.mean(per_deal))
    half_width = 1.96 * float(np.std(per_deal, ddof=1)) / np.sqrt(len(per_deal))
    assert mean - half_width > 1.5, (mean, half_width)
