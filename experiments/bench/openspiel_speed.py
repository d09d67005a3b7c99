"""How fast OpenSpiel's algorithms can drive our games through ``pyspiel``: clone, random play, ``random_sim_test``.

    python -m experiments.bench.openspiel_speed --repeats 5 --sim-test 5 --late-deals 200

All on one core in CPU time, each figure the median of ``--repeats`` runs: **clone** (``state.clone()`` for each
game registered with OpenSpiel, on states reached by random play), **late clone** (``--late-deals N``: the state
before the last decision of the longest of N random deals), **random loop** (decisions per CPU second of random
play on the default game) and **random_sim_test** (``--sim-test N``). What each times exactly, the random loop's
code included, is in docs/internals.md, ``experiments.bench.openspiel_speed``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

import pyspiel

from rl import openspiel_game
from sim.games import DEFAULT_GAME

SIM_TEST_SEATS = 5
"""The seats of the default game that ``random_sim_test`` plays."""


def load(name: str, seats: int) -> pyspiel.Game:
    """The registered OpenSpiel game, at ``seats`` where the game has a choice of seat counts."""
    choice = len(openspiel_game.GAME_CLASSES[name].FACTS.seats) > 1
    return pyspiel.load_game(openspiel_game.short_name(name), {"players": seats} if choice else {})


def seats_problem(seats: int) -> str | None:
    """Why ``--seats`` is no seat count of every game that has a choice of them (None: it is)."""
    choosing = [facts for facts in (cls.FACTS for cls in openspiel_game.GAME_CLASSES.values()) if len(facts.seats) > 1]
    low, high = max(facts.seats[0] for facts in choosing), min(facts.seats[-1] for facts in choosing)
    if low <= seats <= high:
        return None
    titles = " and ".join(facts.title for facts in choosing)
    return f"--seats is for {titles} together: {low} to {high}, not {seats}"


def random_state(game: pyspiel.Game, rng: random.Random, decisions: int) -> pyspiel.State:
    """A state ``decisions`` random decisions into a random deal (fewer if the deal ends first; then a new deal)."""
    while True:
        state = game.new_initial_state()
        for byte in rng.randbytes(openspiel_game.SEED_BYTES):
            state.apply_action(byte)
        for _ in range(decisions):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


def clone_micros(game: pyspiel.Game, rng: random.Random, clones: int) -> float:
    """CPU microseconds of one ``state.clone()``, averaged over ``clones`` clones of one random state."""
    state = random_state(game, rng, rng.randint(5, 60))
    start = time.process_time()
    for _ in range(clones):
        state.clone()
    return (time.process_time() - start) / clones * 1e6


def late_clone_micros(game: pyspiel.Game, rng: random.Random, deals: int, clones: int) -> tuple[float, int]:
    """CPU microseconds of one clone of the state before the last decision of the longest of ``deals`` random deals
    (its information-state strings asked for first, so their cached log text is copied too), and its decisions."""
    longest, seed = -1, b""
    for _ in range(deals):
        seed_bytes, actions = rng.randbytes(openspiel_game.SEED_BYTES), 0
        state = game.new_initial_state()
        for byte in seed_bytes:
            state.apply_action(byte)
        replay = random.Random(seed_bytes)
        while not state.is_terminal():
            state.apply_action(replay.choice(state.legal_actions()))
            actions += 1
        if actions > longest:
            longest, seed = actions, seed_bytes
    state, replay = game.new_initial_state(), random.Random(seed)
    for byte in seed:
        state.apply_action(byte)
    for _ in range(longest - 1):
        state.apply_action(replay.choice(state.legal_actions()))
    state.information_state_string(state.current_player())
    start = time.process_time()
    for _ in range(clones):
        state.clone()
    return (time.process_time() - start) / clones * 1e6, longest


def decisions_per_second(game: pyspiel.Game, rng: random.Random, seconds: float) -> float:
    """Decisions per CPU second of the random loop in this module's docstring, run for ``seconds``."""
    decisions = 0
    choice = rng.choice
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        for byte in rng.randbytes(openspiel_game.SEED_BYTES):
            state.apply_action(byte)
        while not state.is_terminal():
            state.current_player()
            state.apply_action(choice(state.legal_actions()))
            decisions += 1
    return decisions / (time.process_time() - start)


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print each figure (median of the repeats, and every repeat)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=4, help="seats for every game with a choice of seat counts")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--clones", type=int, default=2000, help="clones timed per repeat")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of random play per repeat")
    parser.add_argument("--late-deals", type=int, default=0, help="random deals whose longest is cloned late")
    parser.add_argument("--sim-test", type=int, default=0,
                        help=f"random_sim_test's num_sims on the default game at {SIM_TEST_SEATS} seats")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.clones < 1 or args.seconds <= 0 or args.sim_test < 0 or args.late_deals < 0:
        parser.error("--repeats and --clones must be at least 1, --seconds above 0, --sim-test and --late-deals 0 "
                     "or more")
    if problem := seats_problem(args.seats):
        parser.error(problem)
    rng = random.Random(args.seed)
    for name in openspiel_game.GAME_CLASSES:
        game = load(name, args.seats)
        runs = [clone_micros(game, rng, args.clones) for _ in range(args.repeats)]
        print(f"clone {name}: {statistics.median(runs):.1f} us (runs: {', '.join(f'{r:.1f}' for r in runs)})")
        if args.late_deals:
            micros, decisions = late_clone_micros(game, rng, args.late_deals, args.clones)
            print(f"late clone {name}: {micros:.1f} us, before the last of {decisions} decisions "
                  f"(the longest of {args.late_deals} deals)")
    game = load(DEFAULT_GAME, args.seats)
    runs = [decisions_per_second(game, rng, args.seconds) for _ in range(args.repeats)]
    print(f"random loop {DEFAULT_GAME} ({args.seats} seats): {statistics.median(runs):,.0f} decisions per CPU second "
          f"(runs: {', '.join(f'{r:,.0f}' for r in runs)})")
    if args.sim_test:
        game = load(DEFAULT_GAME, SIM_TEST_SEATS)
        start = time.process_time()
        pyspiel.random_sim_test(game, num_sims=args.sim_test, serialize=True, verbose=False)
        print(f"random_sim_test {DEFAULT_GAME} ({SIM_TEST_SEATS} seats, num_sims={args.sim_test}, serialize): "
              f"{time.process_time() - start:.1f} CPU s")


if __name__ == "__main__":
    main()
