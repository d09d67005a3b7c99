"""Our ``mcts`` against OpenSpiel's own ``MCTSBot`` in Knorri, side by side on the same deals, on one core.

    python -m experiments.bench.openspiel --seats 3 --sims 200 --deals 120 --budget 0 \\
        --out experiments/results/openspiel_mcts.md

For each deal one seat, rotated over the deals, is played once by ``mcts:iters=N`` and once by
``MCTSBot(max_simulations=N)`` through ``rl.openspiel_game``, ``--opponents`` at the other seats both times.
Reported: that seat's mean score per hand with a 95% interval, the paired difference, and CPU ms per decision of
each. MCTSBot searches cloned true states, so it plays with perfect information, our ``mcts`` without. The table is
rewritten to ``--out`` after every deal. The settings compared are in docs/internals.md,
``experiments.bench.openspiel``; ``openspiel_speed`` and ``openspiel_ismcts`` reuse ``play`` from here.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as openspiel_mcts

from agents.base import Agent, make_agent
from rl import openspiel_game
from sim import games
from sim.rng import agent_seed, derive_seed

GAME = "knorri"
"""The game both searches play: its phase 1 hides the stock from a seat and not from a cloned state."""


def thrown_in(n_seats: int, seed: int) -> bool:
    """Whether the deal of ``seed`` is over as dealt (no decision to compare), asked of the game's adapter."""
    return games.adapter(GAME).deal(n_seats, seed, {}).done


def play(n_seats: int, seed: int, seat: int, choose: Callable[[pyspiel.State], int],
         others: Mapping[int, Agent]) -> tuple[float, list[float], list[bool]]:
    """Play the hand dealt from ``seed`` through OpenSpiel; ``choose(state)`` decides for ``seat``, ``others`` (reset
    here as the runner resets them) for the rest. Returns the seat's score, the CPU seconds of each of its decisions
    and whether each had more than one legal action."""
    state = pyspiel.load_game(openspiel_game.short_name(GAME), {"players": n_seats}).new_initial_state()
    for byte in seed.to_bytes(openspiel_game.SEED_BYTES, "big"):
        state.apply_action(byte)
    for other, agent in others.items():
        agent.reset(other, n_seats, agent_seed(seed, other))
    times, choices = [], []
    while not state.is_terminal():
        mover = state.current_player()
        if mover == seat:
            choices.append(len(state.legal_actions()) > 1)
            start = time.process_time()
            action = choose(state)
            times.append(time.process_time() - start)
        else:
            action = others[mover].act(state.game.observation(mover), state.legal_actions())
        state.apply_action(int(action))
    return state.returns()[seat], times, choices


def interval(values: Sequence[float]) -> str:
    """Mean +- 1.96 standard errors."""
    a = np.asarray(values, dtype=float)
    half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():+.2f} ± {half:.2f}"


AGENTS = ("mcts", "MCTSBot")


def table(args: argparse.Namespace, scores: dict[str, list[float]], times: dict[str, list[float]],
          choices: dict[str, list[bool]]) -> str:
    """The comparison as Markdown: the setup, then one row per agent and the paired difference."""
    deals = len(scores[args.agents[0]])
    lines = [f"Knorri, {args.seats} seats, the seat rotated over the deals, against {args.opponents} in the other "
             f"seats, {args.sims} simulations per decision, {deals} deals (each played by {' and '.join(args.agents)}"
             f"; deal seeds derived from {args.seed}), one core, CPU time",
             "", "| agent | mean score per hand (95% CI) | CPU ms per decision | CPU ms per decision with a choice "
             "| decisions (with a choice) |", "|---|---|---|---|---|"]
    for name in args.agents:
        spent, chosen = np.asarray(times[name]), np.asarray(choices[name], dtype=bool)
        lines.append(f"| {name} | {interval(scores[name])} | {1000 * spent.mean():.1f} "
                     f"| {1000 * spent[chosen].mean():.1f} | {len(spent):,} ({int(chosen.sum()):,}) |")
    if len(args.agents) == 2:
        diff = [a - b for a, b in zip(scores["mcts"], scores["MCTSBot"], strict=True)]
        lines.append(f"| mcts - MCTSBot (paired) | {interval(diff)} | | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Play deals until ``--deals`` are played or the CPU budget is spent, and print (and save) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--deals", type=int, default=0, help="deals to play (0: until the budget is spent)")
    parser.add_argument("--budget", type=float, default=480.0, help="CPU seconds to spend (both sides; 0: no limit)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--opponents", default="greedy", help="agent spec of every other seat")
    parser.add_argument("--agents", default=",".join(AGENTS),
                        help="which of mcts,MCTSBot play each deal (one alone replays its side, e.g. to time it)")
    parser.add_argument("--out", type=Path, default=None, help="Markdown file the table is written to")
    args = parser.parse_args()
    if args.deals <= 0 and args.budget <= 0:
        parser.error("give --deals or --budget (or both) above 0")
    args.agents = tuple(name for name in AGENTS if name in args.agents.split(","))
    if not args.agents:
        parser.error(f"--agents names one or both of {', '.join(AGENTS)}")
    n = args.seats
    ours = make_agent(f"mcts:iters={args.sims}", game=GAME)
    rng = np.random.RandomState(args.seed)
    game = pyspiel.load_game(openspiel_game.short_name(GAME), {"players": n})
    bot = openspiel_mcts.MCTSBot(game, uct_c=args.uct_c, max_simulations=args.sims,
                                 evaluator=openspiel_mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    scores: dict[str, list[float]] = {name: [] for name in AGENTS}
    times: dict[str, list[float]] = {name: [] for name in AGENTS}
    choices: dict[str, list[bool]] = {name: [] for name in AGENTS}
    warm = derive_seed(args.seed + 1, 0)  # compile our search before timing it
    ours.reset(0, n, agent_seed(warm, 0))
    play(n, warm, 0, lambda state: ours.act(state.game.observation(0), state.legal_actions()),
         {s: make_agent(args.opponents, game=GAME) for s in range(1, n)})
    start = time.process_time()
    deal = 0
    played = 0
    while (args.budget <= 0 or time.process_time() - start < args.budget) and \
            (args.deals <= 0 or played < args.deals):
        seed = derive_seed(args.seed, deal)
        deal += 1
        if thrown_in(n, seed):
            continue
        seat = played % n
        played += 1
        others = {s: make_agent(args.opponents, game=GAME) for s in range(n) if s != seat}
        ours.reset(seat, n, agent_seed(seed, seat))

        def our_choice(state, seat=seat):
            return ours.act(state.game.observation(seat), state.legal_actions())

        for name, choose in (("mcts", our_choice), ("MCTSBot", bot.step)):
            if name in args.agents:
                score, spent, chose = play(n, seed, seat, choose, others)
                scores[name].append(score)
                times[name].extend(spent)
                choices[name].extend(chose)
        print(f"deal {played} (seat {seat}): " + ", ".join(f"{name} {scores[name][-1]:+.0f}" for name in args.agents),
              flush=True)
        if args.out is not None and played > 1:
            text = table(args, scores, times, choices) + f"\nLoad average at the last deal: {os.getloadavg()[0]:.2f}\n"
            args.out.write_text(text)
    print()
    print(table(args, scores, times, choices))


if __name__ == "__main__":
    main()
