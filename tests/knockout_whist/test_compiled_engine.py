"""The compiled Knockout Whist engine against the reference engine: same lines, same records, same legal sets
and observations at every step, illegal actions refused with the batch untouched, hidden cards hidden."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DATA, assert_step_refused

from experiments.cli import main
from knockout_whist.test_conformance import vector_options
from sim.errors import GameInputError, IllegalActionError
from sim.knockout_whist.compiled.batch import END_REASONS, OBSERVATION_SLICES, KnockoutWhistBatch, play_batch
from sim.knockout_whist.compiled.state import C_HAND, C_THROWN
from sim.knockout_whist.conformance import reference_line
from sim.knockout_whist.encoding import FLAG_OPTIONS, NUM_ACTIONS, Options, Phase
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knockout_whist.tensor import OBSERVATION_SIZE, encode_observation
from sim.rng import SplitMix64, agent_seed

VECTORS = sorted((DATA / "conformance" / "knockout_whist").glob("traj_seats*_*.txt"))


def mixed_options(count: int, seed: int = 7) -> list[Options]:
    """``count`` option sets over every seat count, each variant on or off at random, all-on and all-off first."""
    rng = np.random.default_rng(seed)
    chosen = [Options(players=7, **{name: True for name in FLAG_OPTIONS}),
              Options(players=2, **{name: False for name in FLAG_OPTIONS})]
    while len(chosen) < count:
        flags = {name: bool(rng.integers(2)) for name in FLAG_OPTIONS}
        options = Options(players=int(rng.integers(2, 8)), **flags)
        if options not in chosen:
            chosen.append(options)
    return chosen


def random_steps(batch: KnockoutWhistBatch, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for every game of the batch (0 for finished games)."""
    mask = batch.legal_mask()
    weights = rng.random(mask.shape) * mask
    return weights.argmax(axis=1)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_compiled_traj_prints_every_conformance_line(path, capsys):
    options = vector_options(path)
    expected = path.read_text().splitlines()
    flags = [f"{name}={str(value).lower()}" for name, value in options.to_dict().items()
             if name != "players" and value != getattr(Options(), name)]
    argv = ["traj", "--game", "knockout-whist", "--engine", "fast", "--seats", str(options.players),
            "--seeds", "0", str(len(expected))]
    assert main(argv + [arg for flag in flags for arg in ("--option", flag)]) == 0
    got = capsys.readouterr().out.splitlines()
    mismatches = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not mismatches, f"{len(mismatches)} lines differ; first expected, got: {mismatches[0]}"


@pytest.mark.parametrize("options", mixed_options(12), ids=lambda o: f"{o.players}seats_flags{o.flags()}")
def test_compiled_engine_equals_reference_on_further_seeds_and_option_mixes(options):
    seeds = np.arange(10_000, 10_250, dtype=np.uint64)
    results = play_batch(options, seeds, "protocol", workers=1)
    assert results.protocol_lines() == [reference_line(options, seed) for seed in seeds.tolist()]


def test_compiled_records_equal_the_reference_records():
    for options in mixed_options(6, seed=11):
        seeds = np.arange(300, 400, dtype=np.uint64)
        results = play_batch(options, seeds, "protocol", workers=1)
        for g, seed in enumerate(seeds.tolist()):
            rng = SplitMix64(seed)
            game = KnockoutWhistGame(options, deck_source=rng.shuffled_deck)
            while not game.done:
                game.apply(rng.choice(game.legal_actions()))
            record = game.record()
            assert END_REASONS[results.end_reason[g]].value == record["end_reason"]
            assert results.out_hand[g].tolist() == [h or 0 for h in record["out_hand"]]
            assert results.dog_hand[g].tolist() == [h or 0 for h in record["dog_hand"]]
            assert results.dog_saved[g].tolist() == record["dog_saved"]


def test_random_policy_draws_each_seat_from_its_own_stream():
    options = Options(players=5, card_exchange=True)
    seeds = np.arange(40, dtype=np.uint64)
    results = play_batch(options, seeds, "random", workers=1)
    for g, seed in enumerate(seeds.tolist()):
        game = KnockoutWhistGame(options, seed=seed)
        streams = [SplitMix64(agent_seed(seed, seat)) for seat in range(5)]
        while not game.done:
            game.apply(streams[game.to_move].choice(game.legal_actions()))
        assert (results.hands_played[g], results.winner[g], results.decisions[g]) == (
            game.hands_played, game.winner, len(game.decisions))


def test_results_do_not_depend_on_the_number_of_workers():
    seeds = np.arange(500, dtype=np.uint64)
    one = play_batch(Options(players=6), seeds, "random", workers=1).to_dict()
    two = play_batch(Options(players=6), seeds, "random", workers=2).to_dict()
    assert one.keys() == two.keys() and all(np.array_equal(one[k], two[k]) for k in one if k != "options")


@pytest.mark.parametrize("options", mixed_options(5, seed=3), ids=lambda o: f"{o.players}seats_flags{o.flags()}")
def test_masks_and_observations_equal_the_reference_at_every_step(options):
    seeds = list(range(30))
    batch = KnockoutWhistBatch.from_seeds(seeds, options)
    games = [KnockoutWhistGame(options, seed=seed) for seed in seeds]
    rng = np.random.default_rng(options.flags())
    while True:
        mask, tensor = batch.legal_mask(), batch.observation_tensor()
        assert batch.done.tolist() == [game.done for game in games]
        assert batch.to_move.tolist() == [game.to_move for game in games]
        assert batch.hand_no.tolist() == [game.hand_no for game in games]
        assert batch.scores.tolist() == [game.scores for game in games]
        for g, game in enumerate(games):
            assert np.array_equal(mask[g], game.legal_mask()), (g, game.legal_actions())
            seat = max(game.to_move, 0)
            assert np.array_equal(tensor[g], encode_observation(game.observation(seat))), g
        if all(game.done for game in games):
            break
        actions = random_steps(batch, rng)
        batch.step(actions)
        for game, action in zip(games, actions.tolist(), strict=True):
            if not game.done:
                game.apply(action)
    assert batch.winner.tolist() == [game.winner for game in games]
    assert (batch.scores.sum(axis=1) == 0).all()


def test_the_vector_api_shapes_and_types():
    batch = KnockoutWhistBatch.from_seeds(np.arange(6), {"players": 3})
    assert batch.legal_mask().shape == (6, NUM_ACTIONS) and batch.legal_mask().dtype == np.bool_
    assert batch.to_move.dtype == np.int64 and batch.done.dtype == np.bool_
    assert batch.observation_tensor().shape == (6, OBSERVATION_SIZE)
    assert batch.scores.shape == (6, 3) and batch.card_counts.tolist() == [[7, 7, 7]] * 6
    assert (batch.phase == Phase.PLAY).all()


def test_an_illegal_action_is_refused_naming_index_seat_and_action_and_nothing_changes():
    batch = KnockoutWhistBatch.from_seeds(np.arange(8), Options(players=4, card_exchange=True))
    rng = np.random.default_rng(0)
    for _ in range(5):
        batch.step(random_steps(batch, rng))
    actions = random_steps(batch, rng)
    assert_step_refused(batch, actions, 5, lambda: [batch._cards, batch._ints, batch._decks, batch._rngs])
    for wrong in (-1, NUM_ACTIONS, 2**63):
        actions[5] = 0
        actions_wrong = actions.astype(np.uint64) if wrong > 0 else actions.copy()
        actions_wrong[2] = wrong
        with pytest.raises(IllegalActionError, match=f"illegal action {wrong} by batch index 2"):
            batch.step(actions_wrong)
    with pytest.raises(GameInputError, match="one integer action per game"):
        batch.step(actions[:3])


def test_observations_hide_the_other_hands_their_thrown_cards_and_the_stock():
    options = Options(players=5, card_exchange=True)
    batch = KnockoutWhistBatch.from_seeds(np.arange(40), options)
    rng = np.random.default_rng(1)
    for _ in range(12):  # past the exchanges: some seats have thrown cards away
        batch.step(random_steps(batch, rng))
    seen = batch.observation_tensor()
    for g in range(len(batch)):
        seat = int(batch.to_move[g])
        if seat < 0:
            continue
        own = batch._cards[g, C_HAND + seat]
        assert np.flatnonzero(seen[g, OBSERVATION_SLICES["own_hand"]]).tolist() == [
            c for c in range(52) if own >> np.uint64(c) & np.uint64(1)]
        others = [s for s in range(5) if s != seat]
        hidden = np.uint64(0)
        for other in others:
            hidden |= batch._cards[g, C_HAND + other] | batch._cards[g, C_THROWN + other]
        for name in ("own_hand", "picked", "thrown"):
            cards = np.flatnonzero(seen[g, OBSERVATION_SLICES[name]])
            assert not any(hidden >> np.uint64(c) & np.uint64(1) for c in cards), name
        # Deal the hidden cards out again among the other seats (same counts) and reshuffle the stock.
        pool = [c for c in range(52) if hidden >> np.uint64(c) & np.uint64(1) and all(
            not batch._cards[g, C_THROWN + o] >> np.uint64(c) & np.uint64(1) for o in others)]
        rng.shuffle(pool)
        for other in others:
            count = bin(int(batch._cards[g, C_HAND + other])).count("1")
            batch._cards[g, C_HAND + other] = np.uint64(sum(1 << c for c in pool[:count]))
            pool = pool[count:]
            batch._cards[g, C_THROWN + other] = np.uint64(0)
        rng.shuffle(batch._decks[g])
    assert np.array_equal(batch.observation_tensor(), seen)


def test_bench_times_both_engines_at_4_and_7_seats(capsys):
    assert main(["bench", "--game", "knockout-whist", "--games", "20", "--repeat", "1", "--workers", "1",
                 "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(row["engine"], row["seats"]) for row in rows] == [("reference", 4), ("reference", 7), ("compiled", 4),
                                                               ("compiled", 7)]
    assert all(row["games_per_s"] > 0 and row["game"] == "knockout-whist" for row in rows)
    assert all("times_reference" in row for row in rows if row["engine"] == "fast")


@pytest.mark.parametrize(("argv", "says"), [
    (["--game", "knockout-whist", "--hands", "5"], "a Knockout Whist timing counts games: use --games"),
    (["--game", "knockout-whist", "--seats", "8"], "Knockout Whist is for 2 to 7 seats, not 8"),
    (["--games", "5"], "a Knorri timing counts hands: use --hands"),
])
def test_bench_refuses_options_of_the_other_game_in_one_line(capsys, argv, says):
    assert main(["bench", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
