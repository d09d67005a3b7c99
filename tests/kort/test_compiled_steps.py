"""Kort's compiled step API for search agents: a position read from a seat's observation (with the hidden cards
given) steps on exactly as the reference match, copies and determinizations work, and playouts are random's."""

from __future__ import annotations

import numpy as np
import pytest

from sim.errors import GameInputError
from sim.kort import compiled
from sim.kort.compiled.batch import play_batch
from sim.kort.encoding import FIRST_PACKET, Options, Phase
from sim.kort.reference import KortMatch
from sim.rng import SplitMix64, derive_seed


def _matches_part_played(count: int):
    """Random matches stopped after a varying number of decisions; some run on to a trump choice, a declaration
    or a Bavan vote. Yields the match and the stream that takes its later decisions."""
    for seed in range(count):
        match = KortMatch(Options(target_wins=3 + 4 * (seed % 2), first_holder=seed % 4), seed=seed)
        rng = SplitMix64(derive_seed(seed, 5))
        wanted = {0: Phase.TRUMP, 1: Phase.DECLARE, 2: Phase.VOTE, 3: Phase.VOTE}.get(seed % 5)
        votes_cast = 1 if seed % 5 == 3 else 0  # the partner's turn to vote, the first vote hidden from it
        for step in range(100_000):
            if match.done or (step >= seed * 37 % 300 and (wanted is None or (
                    match.phase == wanted and len(match._votes) == votes_cast))):
                break
            match.apply(rng.choice(match.legal_actions()))
        if not match.done:
            yield match, rng


def _true_rows(match: KortMatch, seat: int) -> tuple[np.ndarray, ...]:
    """The position ``seat`` sees, completed by the true hands, undealt cards, first vote and the deal stream."""
    undealt = match.deck[FIRST_PACKET:] if match.phase == Phase.TRUMP else ()
    first_vote = match._votes.get(match._voters[0]) if match.phase == Phase.VOTE and match._votes else 61
    return compiled.position_rows(match.observation(seat), match.hands, undealt, match._draw.__self__.state,
                                  first_vote)


def test_a_position_read_with_the_true_hidden_cards_plays_on_exactly_as_the_reference_match():
    checked, phases, second_votes = 0, set(), 0
    legal = np.zeros(compiled.NUM_ACTIONS, dtype=np.int64)
    for match, rng in _matches_part_played(250):
        seat = match.to_move if checked % 2 == 0 else (match.to_move + 1) % 4  # the seat to move, or another
        phases.add(match.phase)
        second_votes += match.phase == Phase.VOTE and len(match._votes) == 1
        cards, ints, deck, streams = _true_rows(match, seat)
        while not match.done:
            assert not compiled.is_over(ints) and compiled.to_move(ints) == match.to_move
            assert compiled.phase(ints) == match.phase and compiled.holder(ints) == match.holder
            assert [compiled.tricks(ints, t) for t in (0, 1)] == match.tricks
            assert [compiled.wins(ints, t) for t in (0, 1)] == match.wins
            assert compiled.round_no(ints) == match.round_no and compiled.rounds_played(ints) == match.rounds_played
            assert compiled.trump(ints) == (-1 if match.trump is None else match.trump)
            count = compiled.legal_actions(cards, ints, legal)
            assert legal[:count].tolist() == match.legal_actions()
            action = rng.choice(match.legal_actions())
            assert compiled.is_legal(cards, ints, action)
            match.apply(action)
            compiled.apply_action(cards, ints, deck, streams, action)
        assert compiled.is_over(ints) and compiled.winner_team(ints) == match.winner_team
        assert [compiled.team_result(ints, t) for t in (0, 1)] == [match.scores[0], match.scores[1]]
        checked += 1
    assert checked > 100 and phases == set(Phase) - {Phase.OVER} and second_votes >= 3


def test_a_copied_position_with_other_hidden_hands_dealt_in_holds_those_hands():
    for match, _ in _matches_part_played(30):
        seat = match.to_move
        others = [s for s in range(4) if s != seat]
        pool = [c for s in others for c in range(52) if match.hands[s] >> c & 1]
        np.random.default_rng(seat).shuffle(pool)
        hands = np.zeros(4, dtype=np.uint64)
        for s in others:
            count = match.hands[s].bit_count()
            hands[s] = sum(1 << c for c in pool[:count])
            pool = pool[count:]
        rows = _true_rows(match, seat)
        work = compiled.new_position()
        compiled.copy_position(rows, work)
        compiled.deal_hidden(work[0], hands, seat)
        twin = match.clone()
        twin.hands = [match.hands[seat] if s == seat else int(hands[s]) for s in range(4)]
        assert np.array_equal(work[0], _true_rows(twin, seat)[0])
        assert all(np.array_equal(a, b) for a, b in zip(work[1:], rows[1:], strict=True))


def test_a_new_match_played_out_at_random_is_the_batchs_random_match():
    seeds = np.arange(30, dtype=np.uint64)
    results = play_batch(Options(target_wins=3, first_holder=1), seeds, "random", workers=1)
    cards, ints, deck, rng = compiled.new_position()
    for g, seed in enumerate(seeds.tolist()):
        compiled.new_match(cards, ints, deck, rng, 3, 1, seed)
        compiled.play_out(cards, ints, deck, rng, True)
        assert compiled.rounds_played(ints) == 1 and results.round_result[g, 0] >= 0
        assert [compiled.wins(ints, t) for t in (0, 1)] == results.round_score[g, 0].tolist()
        compiled.play_out(cards, ints, deck, rng, False)
        assert compiled.is_over(ints) and compiled.winner_team(ints) == results.winner_team[g]
        assert compiled.rounds_played(ints) == results.rounds_played[g]


def test_a_position_that_cannot_be_is_refused_in_one_line():
    match = KortMatch(seed=3)
    match.apply(52)
    hands = list(match.hands)
    with pytest.raises(GameInputError, match="needs 4 hands"):
        compiled.position_rows(match.observation(0), hands[:3])
    with pytest.raises(GameInputError, match="seat 1's hand does not fit"):
        compiled.position_rows(match.observation(0), [hands[0], hands[0], hands[2], hands[3]])
    with pytest.raises(GameInputError, match="undealt cards"):
        compiled.position_rows(match.observation(0), hands, undealt=match.deck[5:])
    fresh = KortMatch(seed=3)
    with pytest.raises(GameInputError, match="undealt cards"):
        compiled.position_rows(fresh.observation(0), fresh.hands)
