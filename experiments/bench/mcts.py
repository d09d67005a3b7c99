"""How fast a game's ``mcts`` decides, and (Knorri) what its searches alone cost a hand.

    python -m experiments.bench.mcts --game knockout-whist --seats 4,7 --iters 100,1000 --repeat 3
    python -m experiments.bench.mcts --game knorri --floor --agents "random;greedy;loginf;mcts:iters=100"

Decisions per second: every decision with a choice of a few seeded deals of ``greedy`` self-play, replayed by a
fresh ``mcts`` per seat and deal after warm-up decisions that compile; the median over repeats is printed, with the
median and largest time of one decision. ``--floor`` (Knorri) adds up the time inside the compiled search kernels
of the lineup's ``mcts`` seats per hand, so ``1 / floor`` is the most hands per second any path could reach with
that lineup. More in docs/internals.md, ``experiments.bench.mcts``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

from agents.base import make_agent
from agents.knorri.mcts import GAME as FLOOR_GAME  # --floor times this game's compiled searches
from experiments.bench.lineups import lineup
from experiments.runner import routes
from sim import games
from sim.engine_words import REFERENCE
from sim.rng import agent_seed

Position = tuple[int, int, Any, list[int]]  # (deal seed, seat, observation, legal ids)


def positions(game: str, n_seats: int, deals: int) -> list[Position]:
    """Every decision of ``deals`` deals of ``greedy`` self-play, in order."""
    adapter = games.adapter(game)
    options = adapter.check_options({})
    found = []
    for seed in range(deals):
        deal = adapter.deal(n_seats, seed, options)
        greedy = [make_agent("greedy", game=game) for _ in range(n_seats)]
        for seat, agent in enumerate(greedy):
            agent.reset(seat, n_seats, agent_seed(seed, seat))
        while not deal.done:
            seat, legal = deal.to_move, deal.legal_actions()
            observation = deal.observation(seat)
            found.append((seed, seat, observation, legal))
            deal.apply(greedy[seat].act(observation, legal))
    return found


def time_decisions(game: str, spec: str, n_seats: int, recorded: Sequence[Position]) -> list[float]:
    """Seconds ``act`` took at each recorded decision with a choice, a fresh agent per seat and deal."""
    agents: dict[tuple[int, int], Any] = {}
    times = []
    for seed, seat, observation, legal in recorded:
        agent = agents.get((seed, seat))
        if agent is None:
            agent = agents[seed, seat] = make_agent(spec, game=game)
            agent.reset(seat, n_seats, agent_seed(seed, seat))
        start = time.perf_counter()
        agent.act(observation, legal)
        if len(legal) > 1:
            times.append(time.perf_counter() - start)
    return times


def warm_up(recorded: Sequence[Position]) -> list[Position]:
    """The positions that compile what a pass will run: the first decision, then the first with a choice in each
    phase (a game's phases may search with different kernels)."""
    first: dict[Any, Position] = {}
    for position in recorded:
        if len(position[3]) > 1:
            first.setdefault(getattr(position[2], "phase", None), position)
    return recorded[:1] + list(first.values())


def search_floor(n_seats: int, specs: Sequence[str], hands: int, seed: int = 1) -> float:
    """CPU seconds per Knorri hand spent inside the ``mcts`` seats' compiled decisions (reference path, timed)."""
    from agents.knorri import decision

    spent = [0.0]

    def timed(function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - started
        return run

    saved = decision.decide
    decision.decide = timed(saved)
    try:
        routes.play_matches(FLOOR_GAME, n_seats, [seed], [list(specs)], 1, engine=REFERENCE)  # warm-up
        spent[0] = 0.0
        routes.play_matches(FLOOR_GAME, n_seats, [seed + 1 + i for i in range(hands)], [list(specs)] * hands, 1,
                            engine=REFERENCE)
    finally:
        decision.decide = saved
    return spent[0] / hands


def _counts(text: str | None, default: Sequence[int], parser: argparse.ArgumentParser, option: str) -> list[int]:
    if text is None:
        return list(default)
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"{option} takes whole numbers separated by commas, not {text!r}")
        raise


def main(argv: Sequence[str] | None = None) -> int:
    """Print one line per seat count and budget (or, with ``--floor``, the Knorri lineup's search floor)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=games.DEFAULT_GAME, choices=tuple(games.names()))
    parser.add_argument("--seats", help="comma-separated seat counts (default: the game's bench seats)")
    parser.add_argument("--iters", default="100,1000", help="comma-separated iteration budgets (default 100,1000)")
    parser.add_argument("--deals", type=int, default=6, help="greedy deals whose decisions are timed (default 6)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; medians are reported (default 3)")
    parser.add_argument("--floor", action="store_true", help="time the mcts searches of --agents alone (Knorri)")
    parser.add_argument("--agents", help="with --floor: the lineup (one spec fills every seat)")
    parser.add_argument("--hands", type=int, default=20, help="with --floor: hands played (default 20)")
    args = parser.parse_args(argv)
    adapter = games.adapter(args.game)
    seat_counts = _counts(args.seats, adapter.BENCH.seats, parser, "--seats")
    if args.floor:
        if args.game != FLOOR_GAME or not args.agents:
            parser.error("--floor times Knorri's searches: give --agents (and no other --game)")
        specs = lineup(args.agents, seat_counts[0] if args.seats else None, FLOOR_GAME)
        floor = search_floor(len(specs), specs, args.hands)
        print(f"{';'.join(specs)}: {floor * 1000:.1f} ms of mcts search per hand over {args.hands} hands, so at "
              f"most {1 / floor:.1f} hands/s" if floor > 0 else f"{';'.join(specs)}: no mcts search ran")
        return 0
    for n_seats in seat_counts:
        recorded = positions(args.game, n_seats, args.deals)
        for iters in _counts(args.iters, (), parser, "--iters"):
            spec = f"mcts:iters={iters}"
            time_decisions(args.game, spec, n_seats, warm_up(recorded))
            passes = [time_decisions(args.game, spec, n_seats, recorded) for _ in range(args.repeat)]
            rates = [len(p) / sum(p) for p in passes]
            every = sorted(t for p in passes for t in p)
            print(f"{adapter.TITLE}, {n_seats} seats, {spec}: {statistics.median(rates):,.0f} decisions/s "
                  f"(median of {args.repeat}; {len(passes[0])} decisions a pass), one decision: median "
                  f"{1000 * statistics.median(every):.2f} ms, largest {1000 * every[-1]:.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
