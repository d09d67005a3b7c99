"""Our ``mcts`` against OpenSpiel's ``ISMCTSBot`` in Knorri on duplicate deals, at equal CPU per decision.

    nice -n 5 python -m experiments.bench.openspiel_ismcts --seats 4 --deals 200 \\
        --out experiments/results/openspiel_ismcts.md

Each deal is played twice, once with ``mcts`` in the tested seat and once with ISMCTS there (worlds drawn by
``resample_from_infostate``), the seat rotated over the deals and ``--others`` at the other seats. ISMCTS searches
until a CPU budget is spent: ``mcts``'s mean CPU per decision with a choice, measured first on ``--calibrate``
deals (or ``--budget-ms``). The table gives each side's mean score with a 95% interval, the paired difference and
the CPU each spent; it is rewritten after every deal, and ``--resume`` carries on. More in docs/internals.md,
``experiments.bench.openspiel_ismcts``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts
from open_spiel.python.algorithms import mcts as openspiel_mcts

from agents.base import make_agent
from experiments.bench.openspiel import GAME, interval, play, thrown_in
from rl import openspiel_game
from sim import games
from sim.contract import check_seats
from sim.errors import GameInputError
from sim.rng import agent_seed, derive_seed

MIN_SIMULATIONS = 2
"""ISMCTS's fewest simulations a decision: the first only expands the root, the second visits a child."""
AGENTS = ("mcts", "ISMCTS")


class BudgetedISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot``, simulating until ``budget`` CPU seconds are spent on a decision (at least
    ``MIN_SIMULATIONS``), so that it can be held to another agent's CPU per decision."""

    def __init__(self, game: pyspiel.Game, budget: float, uct_c: float, seed: int) -> None:
        rng = np.random.RandomState(seed)
        super().__init__(game, openspiel_mcts.RandomRolloutEvaluator(1, rng), uct_c, MIN_SIMULATIONS,
                         random_state=rng)
        self.budget = budget
        self.simulations: list[int] = []
        sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
        self.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))

    def run_search(self, state: pyspiel.State) -> list[tuple[int, float]]:
        """The final policy after simulating from worlds resampled at the root until the budget is spent."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        self.reset()
        self._root_node = self.create_new_node(state)
        start, done = time.process_time(), 0
        while done < MIN_SIMULATIONS or time.process_time() - start < self.budget:
            self.run_simulation(self.sample_root_state(state))
            done += 1
        self.simulations.append(done)
        return self.get_final_policy(state, self._root_node)


def dealt_seeds(seed: int, seats: int):
    """The seeds of the deals played, in order: ``derive_seed(seed, i)`` for each i whose hand needs a choice."""
    deal = 0
    while True:
        value = derive_seed(seed, deal)
        deal += 1
        if not thrown_in(seats, value):
            yield value


def mcts_chooser(agent, seat: int):
    """Our agent deciding for ``seat`` from its reference observation."""
    return lambda state: agent.act(state.game.observation(seat), state.legal_actions())


def calibrate(args: argparse.Namespace) -> float:
    """``mcts``'s mean CPU seconds per decision with a choice over ``--calibrate`` deals of its own (the first of
    which also compiles its search, and is not counted)."""
    spent: list[float] = []
    seeds = dealt_seeds(args.seed + 1, args.seats)
    for index in range(args.calibrate + 1):
        seed, seat = next(seeds), index % args.seats
        ours = make_agent(args.mcts, game=GAME)
        ours.reset(seat, args.seats, agent_seed(seed, seat))
        others = {s: make_agent(args.others, game=GAME) for s in range(args.seats) if s != seat}
        _, times, choices = play(args.seats, seed, seat, mcts_chooser(ours, seat), others)
        if index:
            spent += [t for t, chose in zip(times, choices, strict=True) if chose]
    return float(np.mean(spent))


def table(args: argparse.Namespace, budget: float, rows: list[dict]) -> str:
    """The comparison as Markdown: the set-up, one row per agent, the paired difference."""
    lines = [f"Knorri, {args.seats} seats, the tested seat rotated over the deals, {args.others} in the other seats, "
             f"{len(rows)} duplicate deals (deal seeds derived from {args.seed}), one core, CPU time. ISMCTS: "
             f"OpenSpiel's ISMCTSBot (uct_c {args.uct_c}, one random rollout a leaf) held to {1000 * budget:.2f} "
             f"CPU ms a decision with a choice (at least {MIN_SIMULATIONS} simulations).", "",
             "| agent | mean score per hand (95% CI) | CPU ms per decision with a choice | decisions with a choice "
             "| simulations per decision with a choice |", "|---|---|---|---|---|"]
    for name in AGENTS:
        chosen = sum(row[name]["choices"] for row in rows)
        spent = sum(row[name]["cpu"] for row in rows)
        sims = f"{sum(row[name]['simulations'] for row in rows) / chosen:.1f}" if name == "ISMCTS" else ""
        lines.append(f"| {name} | {interval([row[name]['score'] for row in rows])} | "
                     f"{1000 * spent / chosen:.2f} | {chosen:,} | {sims} |")
    diff = [row["mcts"]["score"] - row["ISMCTS"]["score"] for row in rows]
    lines.append(f"| mcts - ISMCTS (paired) | {interval(diff)} | | | |")
    return "\n".join(lines) + "\n"


def play_deal(args: argparse.Namespace, budget: float, seed: int, seat: int, index: int) -> dict:
    """One duplicate deal: its seat, and each side's score, CPU seconds over its decisions with a choice, their
    number, and (ISMCTS) its simulations over them."""
    row: dict = {"seed": seed, "seat": seat}
    game = pyspiel.load_game(openspiel_game.short_name(GAME), {"players": args.seats})
    ours = make_agent(args.mcts, game=GAME)
    ours.reset(seat, args.seats, agent_seed(seed, seat))
    bot = BudgetedISMCTSBot(game, budget, args.uct_c, derive_seed(args.seed, 1 << 20, index) & 0x7FFFFFFF)
    for name, choose in (("mcts", mcts_chooser(ours, seat)), ("ISMCTS", bot.step)):
        others = {s: make_agent(args.others, game=GAME) for s in range(args.seats) if s != seat}
        score, times, choices = play(args.seats, seed, seat, choose, others)
        row[name] = {"score": score, "cpu": sum(t for t, c in zip(times, choices, strict=True) if c),
                     "choices": sum(choices)}
    row["ISMCTS"]["simulations"] = sum(bot.simulations)
    return row


def main(argv: Sequence[str] | None = None) -> None:
    """Calibrate the budget, play the duplicate deals (or carry on from ``--resume``) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--mcts", default="mcts", help="our agent's spec (default: mcts at its defaults; "
                        "mcts:version=1 is the first mcts)")
    parser.add_argument("--others", default="greedy", help="agent spec of every other seat")
    parser.add_argument("--uct-c", type=float, default=2.0, help="ISMCTS's UCT constant (scores are raw points)")
    parser.add_argument("--calibrate", type=int, default=8, help="deals that measure mcts's CPU per decision")
    parser.add_argument("--budget-ms", type=float, default=None, help="ISMCTS's CPU ms a decision (skips calibrating)")
    parser.add_argument("--out", type=Path, default=None, help="Markdown table; its rows go beside it as .jsonl")
    parser.add_argument("--resume", action="store_true", help="carry on from the deals already in --out's .jsonl")
    args = parser.parse_args(argv)
    if args.deals <= 0 or args.calibrate <= 0:
        parser.error("--deals and --calibrate must be at least 1")
    try:
        check_seats(games.adapter(GAME), args.seats)
    except GameInputError as error:
        parser.error(str(error))
    if args.budget_ms is not None and args.budget_ms <= 0:
        parser.error("--budget-ms must be above 0")
    for option, spec in (("--mcts", args.mcts), ("--others", args.others)):
        try:
            make_agent(spec, game=GAME)
        except ValueError as error:  # an unknown spec, or parameters its agent does not take
            parser.error(f"{option}: {error}")
    rows_path = None if args.out is None else args.out.with_suffix(".jsonl")
    rows: list[dict] = []
    budget = None if args.budget_ms is None else args.budget_ms / 1000
    if args.resume and rows_path is not None and rows_path.exists():
        saved = [json.loads(line) for line in rows_path.read_text().splitlines() if line.strip()]
        budget, rows = saved[0]["budget"], saved[1:]
    if budget is None:
        budget = calibrate(args)
        print(f"mcts: {1000 * budget:.2f} CPU ms a decision with a choice; ISMCTS gets the same", flush=True)
    if rows_path is not None and not rows:
        rows_path.write_text(json.dumps({"budget": budget, "args": vars(args) | {"out": str(args.out)}}) + "\n")
    seeds = dealt_seeds(args.seed, args.seats)
    for index in range(args.deals):
        seed, seat = next(seeds), index % args.seats
        if index < len(rows):
            continue
        row = play_deal(args, budget, seed, seat, index)
        rows.append(row)
        print(f"deal {index + 1} (seat {seat}): mcts {row['mcts']['score']:+.0f}, "
              f"ISMCTS {row['ISMCTS']['score']:+.0f}", flush=True)
        if rows_path is not None:
            with rows_path.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            if len(rows) > 1:
                args.out.write_text(table(args, budget, rows) + f"\nLoad average at the last deal: "
                                    f"{os.getloadavg()[0]:.2f}\n")
    print()
    print(table(args, budget, rows))


if __name__ == "__main__":
    main()
