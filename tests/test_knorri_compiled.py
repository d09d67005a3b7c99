"""The compiled step API for search agents: positions read from reference hands step on exactly as the reference."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import numpy as np

from sim.knorri import compiled
from sim.knorri.encoding import NUM_ACTIONS
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "agents"


def _mid_hand(n_seats: int, seed: int, actions: int) -> KnorriHand:
    """A hand after ``actions`` phase-2 actions of random play (it remembers the positions since its last trick)."""
    hand = KnorriHand.from_seed(n_seats, seed)
    stream = SplitMix64(seed)
    while not hand.done and (hand.phase == 1 or hand.phase2_actions < actions):
        hand.apply(stream.choice(hand.legal_actions()))
    return hand


def _working_copy(hand: KnorriHand) -> tuple[np.ndarray, ...]:
    position = compiled.new_position()
    compiled.copy_position(*compiled.position_rows(hand), *position[:3], *position[4:])
    return position


# Each engine's internals: every submodule of a game's compiled package, and the bits all of them share.
# An agent imports the package itself (``sim.<game>.compiled``), which re-exports what search agents need.
ENGINE_INTERNALS = {
    f"sim.{game}.compiled.{module.name}": f"sim.{game}.compiled"
    for game in ("knorri", "knockout_whist", "kort")
    for module in pkgutil.iter_modules([str(ROOT / "sim" / game / "compiled")])
} | {"sim.compiled_bits": "the game's compiled package"}


def test_agents_use_only_the_compiled_api_of_each_engine():
    assert "sim.kort.compiled.kernels" in ENGINE_INTERNALS  # the list is read from the packages, so never empty
    for path in AGENTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                internal = next((m for m in ENGINE_INTERNALS if name == m or name.startswith(m + ".")), None)
                use = ENGINE_INTERNALS.get(internal)
                assert internal is None, f"{path.name} imports engine internals {name}: use {use}"


def test_a_copied_position_steps_on_exactly_as_the_reference_hand():
    checked = 0
    for n_seats in (3, 4, 5, 6):
        for seed in range(6):
            hand = _mid_hand(n_seats, seed, 30)
            if hand.done:
                continue
            cards, ints, deck, rng, keys, records, slots = _working_copy(hand)
            legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
            stream = SplitMix64(seed + 99)
            while True:
                assert compiled.is_over(ints) == hand.done
                assert compiled.seat_count(ints) == n_seats
                assert [compiled.score(ints, s) for s in range(n_seats)] == hand.scores
                if hand.done:
                    break
                assert compiled.to_move(ints) == hand.to_move
                count = compiled.legal_actions(cards, ints, legal)
                assert legal[:count].tolist() == hand.legal_actions()
                action = stream.choice(hand.legal_actions())
                hand.apply(action)
                compiled.apply_action(cards, ints, deck, rng, keys, records, slots, action)
            assert compiled.scores(ints) == hand.scores
            checked += 1
    assert checked > 15


def test_a_random_playout_draws_each_seat_from_its_own_stream():
    hand = _mid_hand(4, 7, 20)
    cards, ints, deck, rng, keys, records, slots = _working_copy(hand)
    streams = [SplitMix64(1000 + s) for s in range(4)]
    for s in range(4):
        rng[compiled.SEAT_STREAMS + s] = 1000 + s
    compiled.play_to_end(cards, ints, deck, rng, keys, records, slots, np.zeros(NUM_ACTIONS, dtype=np.int64),
                         compiled.RANDOM)
    while not hand.done:
        hand.apply(streams[hand.to_move].choice(hand.legal_actions()))
    assert compiled.scores(ints) == hand.scores
    assert compiled.is_over(ints)
