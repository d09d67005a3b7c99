"""The compiled Kort batch against the reference engine, step by step: the same legal masks, seats to move and
observation tensors, illegal actions refused with the batch untouched, and nothing hidden in the tensor."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_step_refused

from sim.errors import GameInputError, IllegalActionError
from sim.kort.compiled.batch import OBSERVATION_SLICES, KortBatch
from sim.kort.compiled.state import C_HAND, I_FIRST_VOTER, I_VOTE, I_VOTES_CAST
from sim.kort.encoding import BAVAN_NO, BAVAN_YES, NUM_ACTIONS, Options, Phase
from sim.kort.reference import KortMatch
from sim.kort.tensor import OBSERVATION_SIZE, encode_observation


def random_steps(batch: KortBatch, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for every match of the batch (0 for finished matches)."""
    mask = batch.legal_mask()
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def state_arrays(batch: KortBatch) -> list[np.ndarray]:
    return [batch._cards, batch._ints, batch._decks, batch._rngs, batch._rounds]


@pytest.mark.parametrize("options", [Options(target_wins=3), Options(target_wins=7, first_holder=1)],
                         ids=lambda o: f"target{o.target_wins}_holder{o.first_holder}")
def test_masks_turns_and_observations_equal_the_reference_at_every_step(options):
    seeds = list(range(24))
    batch = KortBatch.from_seeds(seeds, options)
    matches = [KortMatch(options, seed=seed) for seed in seeds]
    rng = np.random.default_rng(options.target_wins)
    phases_seen = set()
    while True:
        mask, tensor = batch.legal_mask(), batch.observation_tensor()
        phases_seen |= set(batch.phase.tolist())
        assert batch.done.tolist() == [match.done for match in matches]
        assert batch.to_move.tolist() == [match.to_move for match in matches]
        assert batch.phase.tolist() == [int(match.phase) for match in matches]
        assert batch.scores.tolist() == [match.scores for match in matches]
        assert batch.card_counts.tolist() == [match.card_counts() for match in matches]
        for g, match in enumerate(matches):
            assert np.array_equal(mask[g], match.legal_mask()), (g, match.legal_actions())
            assert np.array_equal(tensor[g], encode_observation(match.observation(max(match.to_move, 0)))), g
        if all(match.done for match in matches):
            break
        actions = random_steps(batch, rng)
        batch.step(actions)
        for match, action in zip(matches, actions.tolist(), strict=True):
            if not match.done:
                match.apply(action)
    assert phases_seen == set(Phase)  # declarations and Bavan votes included
    results = batch.results()
    assert [results.record(g) for g in range(len(seeds))] == [match.record() for match in matches]
    assert batch.winner_team.tolist() == [match.winner_team for match in matches]
    assert (batch.scores.sum(axis=1) == 0).all()


def test_the_vector_api_shapes_and_types():
    batch = KortBatch.from_seeds(np.arange(6), {"target_wins": 3, "first_holder": 2})
    assert batch.legal_mask().shape == (6, NUM_ACTIONS) and batch.legal_mask().dtype == np.bool_
    assert batch.legal_mask()[:, 52:57].all() and batch.legal_mask().sum() == 6 * 5  # trump: 52..56 only
    assert batch.to_move.tolist() == [2] * 6 and batch.holder.tolist() == [2] * 6
    assert batch.done.dtype == np.bool_ and not batch.done.any()
    assert batch.observation_tensor().shape == (6, OBSERVATION_SIZE)
    assert batch.scores.shape == (6, 4) and batch.card_counts.tolist() == [[0, 0, 5, 0]] * 6
    assert (batch.phase == Phase.TRUMP).all() and (batch.trump == -1).all()
    assert batch.tricks.tolist() == batch.wins.tolist() == batch.lead_states.tolist() == [[0, 0]] * 6


def test_an_illegal_action_is_refused_naming_index_seat_and_action_and_nothing_changes():
    batch = KortBatch.from_seeds(np.arange(8))
    rng = np.random.default_rng(0)
    for _ in range(7):
        batch.step(random_steps(batch, rng))
    before = [array.copy() for array in state_arrays(batch)]
    actions = random_steps(batch, rng)
    assert_step_refused(batch, actions, 5, lambda: state_arrays(batch))
    for wrong in (-1, NUM_ACTIONS, 2**63):
        actions[5] = random_steps(batch, rng)[5]
        actions_wrong = actions.astype(np.uint64) if wrong > 0 else actions.copy()
        actions_wrong[2] = wrong
        with pytest.raises(IllegalActionError, match=f"illegal action {wrong} by batch index 2"):
            batch.step(actions_wrong)
    for old, new in zip(before, state_arrays(batch), strict=True):
        assert np.array_equal(old, new)
    with pytest.raises(GameInputError, match="one integer action per match"):
        batch.step(actions[:3])


def _deal_hidden_cards_again(batch: KortBatch, g: int, rng: np.random.Generator) -> None:
    """Give the other three seats of match g other cards from their pooled hands (same counts), and a new deck."""
    seat = int(batch.to_move[g])
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in range(52) if int(batch._cards[g, C_HAND + s]) >> c & 1]
    rng.shuffle(pool)
    for other in others:
        count = int(batch._cards[g, C_HAND + other]).bit_count()
        batch._cards[g, C_HAND + other] = np.uint64(sum(1 << c for c in pool[:count]))
        pool = pool[count:]
    rng.shuffle(batch._decks[g])


def test_the_tensor_hides_every_other_hand_the_deck_and_a_partners_pending_vote():
    """Along random matches, the acting seat's tensor is unchanged when the other seats' cards (its partner's
    included) are dealt again among them, the deck is reshuffled, or the first Bavan vote is the other one."""
    batch = KortBatch.from_seeds(np.arange(80), Options(target_wins=3))
    rng = np.random.default_rng(2)
    pending_votes = 0
    while not batch.done.all():
        seen = batch.observation_tensor()
        for g in np.flatnonzero(~batch.done):
            own = np.flatnonzero(seen[g, OBSERVATION_SLICES["own_hand"]]).tolist()
            hand = int(batch._cards[g, C_HAND + batch.to_move[g]])
            assert own == [c for c in range(52) if hand >> c & 1]
        arrays = [array.copy() for array in state_arrays(batch)]
        for g in np.flatnonzero(~batch.done):
            _deal_hidden_cards_again(batch, g, rng)
            if batch.phase[g] == Phase.VOTE and batch._ints[g, I_VOTES_CAST] == 1:
                first = batch._ints[g, I_FIRST_VOTER]
                batch._ints[g, I_VOTE + first] = BAVAN_YES + BAVAN_NO - batch._ints[g, I_VOTE + first]
                pending_votes += 1
        assert np.array_equal(batch.observation_tensor(), seen)
        batch._cards, batch._ints, batch._decks, batch._rngs, batch._rounds = arrays
        batch.step(random_steps(batch, rng))
    assert pending_votes >= 3  # the seeds reach the partner's vote a few times
