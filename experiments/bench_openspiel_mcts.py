"""Our ``mcts`` against OpenSpiel's own ``MCTSBot`` in Knorri, side by side on the same deals, on one core.

For each deal (seeds from ``--seed``) the same seat is played once by ``mcts:iters=N``
and once by ``MCTSBot(max_simulations=N)`` with OpenSpiel's ``RandomRolloutEvaluator``
(one random rollout per leaf) through ``rl.openspiel_game``; the other seats are
``greedy`` both times. Reported: mean score per hand of that seat with a 95% interval,
the paired difference, and CPU ms per decision of each. MCTSBot searches cloned true
states, so it sees the stock order in phase 1 (phase 2 is public in Knorri): it plays
with perfect information, our ``mcts`` without.

    python -m experiments.bench_openspiel_mcts --seats 3 --sims 200 --budget 480
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as openspiel_mcts

from agents.base import make_agent
from rl import openspiel_game
from sim.knorri.reference import KnorriHand
from sim.rng import agent_seed, derive_seed


def play(n_seats: int, seed: int, seat: int, choose, others) -> tuple[float, list[float]]:
    """Play the hand dealt from ``seed`` through OpenSpiel; ``choose(state)`` decides for ``seat``. Returns the
    seat's score and the CPU seconds of each of its decisions."""
    state = pyspiel.load_game(openspiel_game.short_name("knorri"), {"players": n_seats}).new_initial_state()
    for byte in seed.to_bytes(openspiel_game.SEED_BYTES, "big"):
        state.apply_action(byte)
    for other, agent in others.items():
        agent.reset(other, n_seats, agent_seed(seed, other))
    times = []
    while not state.is_terminal():
        mover = state.current_player()
        if mover == seat:
            start = time.process_time()
            action = choose(state)
            times.append(time.process_time() - start)
        else:
            action = others[mover].act(state.game.observation(mover), state.legal_actions())
        state.apply_action(int(action))
    return state.returns()[seat], times


def interval(values: list[float]) -> str:
    """Mean +- 1.96 standard errors."""
    a = np.asarray(values, dtype=float)
    half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():+.2f} ± {half:.2f}"


def main() -> None:
    """Play deals until the CPU budget is spent and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--budget", type=float, default=480.0, help="CPU seconds to spend (both sides)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--uct-c", type=float, default=2.0)
    args = parser.parse_args()
    n, seat = args.seats, 0
    ours = make_agent(f"mcts:iters={args.sims}", game="knorri")
    rng = np.random.RandomState(args.seed)
    game = pyspiel.load_game(openspiel_game.short_name("knorri"), {"players": n})
    bot = openspiel_mcts.MCTSBot(game, uct_c=args.uct_c, max_simulations=args.sims,
                                 evaluator=openspiel_mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    others = {s: make_agent("greedy", game="knorri") for s in range(n) if s != seat}
    scores: dict[str, list[float]] = {"mcts": [], "MCTSBot": []}
    times: dict[str, list[float]] = {"mcts": [], "MCTSBot": []}
    warm = derive_seed(args.seed + 1, 0)  # compile our search before timing it
    ours.reset(seat, n, agent_seed(warm, seat))
    play(n, warm, seat, lambda state: ours.act(state.game.observation(seat), state.legal_actions()), others)
    start = time.process_time()
    deal = 0
    while time.process_time() - start < args.budget:
        seed = derive_seed(args.seed, deal)
        deal += 1
        if KnorriHand.from_seed(n, seed, 0).done:
            continue

        ours.reset(seat, n, agent_seed(seed, seat))

        def our_choice(state):
            return ours.act(state.game.observation(seat), state.legal_actions())

        for name, choose in (("mcts", our_choice), ("MCTSBot", bot.step)):
            score, spent = play(n, seed, seat, choose, others)
            scores[name].append(score)
            times[name].extend(spent)
        print(f"deal {len(scores['mcts'])}: mcts {scores['mcts'][-1]:+.0f}, MCTSBot {scores['MCTSBot'][-1]:+.0f}",
              flush=True)
    diff = [a - b for a, b in zip(scores["mcts"], scores["MCTSBot"], strict=True)]
    print(f"\nKnorri, {n} seats, seat {seat} against greedy, {args.sims} simulations per decision, "
          f"{len(diff)} deals (each played by both), one core")
    print("| agent | mean score per hand (95% CI) | CPU ms per decision | decisions |")
    print("|---|---|---|---|")
    for name in ("mcts", "MCTSBot"):
        print(f"| {name} | {interval(scores[name])} | {1000 * np.mean(times[name]):.1f} | {len(times[name])} |")
    print(f"| mcts - MCTSBot (paired) | {interval(diff)} | | |")


if __name__ == "__main__":
    main()
