"""Decisions per second of Knockout Whist's ``mcts`` at a few seat counts and iteration budgets.

    python -m experiments.bench_knockout_whist_mcts --seats 4,7 --iters 100,1000 --repeat 3

The positions are every decision of a few seeded games of ``greedy`` self-play (the
default options). Each repeat replays them with a fresh ``mcts`` per seat and game and
times ``act`` on every decision with a choice (a forced move costs nothing); the numba
compile and the per-seat-count value table are paid on a warm-up decision first. The
median over repeats of decisions per second is printed, with the median and largest
time of one decision.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from agents.base import make_agent
from agents.knockout_whist.greedy import greedy_action
from sim.knockout_whist.reference import KnockoutWhistGame

GAME = "knockout-whist"


def positions(n_seats: int, games: int) -> list[tuple[int, int, Any, list[int]]]:
    """(game seed, seat, observation, legal ids) of every decision of ``games`` greedy games."""
    found = []
    for seed in range(games):
        game = KnockoutWhistGame({"players": n_seats}, seed=seed)
        while not game.done:
            seat, legal = game.to_move, game.legal_actions()
            observation = game.observation(seat)
            found.append((seed, seat, observation, legal))
            game.apply(greedy_action(observation, legal))
    return found


def time_decisions(spec: str, n_seats: int, recorded: list[tuple[int, int, Any, list[int]]]) -> list[float]:
    """Seconds ``act`` took at each recorded decision with a choice, a fresh agent per seat and game."""
    agents: dict[tuple[int, int], Any] = {}
    times = []
    for seed, seat, observation, legal in recorded:
        agent = agents.get((seed, seat))
        if agent is None:
            agent = agents[seed, seat] = make_agent(spec, game=GAME)
            agent.reset(seat, n_seats, seed)
        start = time.perf_counter()
        agent.act(observation, legal)
        if len(legal) > 1:
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    """Print one line per seat count and budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", default="4,7", help="comma-separated seat counts (default 4,7)")
    parser.add_argument("--iters", default="100,1000", help="comma-separated iteration budgets (default 100,1000)")
    parser.add_argument("--games", type=int, default=6, help="greedy games whose decisions are timed (default 6)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; medians are reported (default 3)")
    args = parser.parse_args()
    for n_seats in (int(n) for n in args.seats.split(",")):
        recorded = positions(n_seats, args.games)
        for iters in (int(i) for i in args.iters.split(",")):
            spec = f"mcts:iters={iters}"
            time_decisions(spec, n_seats, recorded[:1] + [r for r in recorded if len(r[3]) > 1][:1])  # warm up
            passes = [time_decisions(spec, n_seats, recorded) for _ in range(args.repeat)]
            rates = [len(p) / sum(p) for p in passes]
            every = sorted(t for p in passes for t in p)
            print(f"{n_seats} seats, {spec}: {statistics.median(rates):,.0f} decisions/s "
                  f"(median of {args.repeat}; {len(passes[0])} decisions a pass), one decision: median "
                  f"{1000 * statistics.median(every):.2f} ms, largest {1000 * every[-1]:.1f} ms")


if __name__ == "__main__":
    main()
