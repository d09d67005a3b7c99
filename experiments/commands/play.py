"""``knorri-sim play``: play one deal (or a match of several) between agents and print it for a person.

A deal is the game's row: a Knorri hand, a Knockout Whist game, a Kort match. The
seed is the one a run's ``seed`` column holds, and agents are reset as the runner
resets them, so ``play`` with a row's seed and lineup replays that row. ``--hands``
plays a match of several rows, as the runner does, for a game whose matches hold more
than one (Knorri).
"""

from __future__ import annotations

import argparse
import json
import math
from types import ModuleType

from agents import lineup
from agents.lineup import parse_lineup
from experiments.commands.common import add_deal_arguments, game_settings
from experiments.errors import UsageError
from experiments.runner import compiling, routes
from experiments.runner.config import DECISION_TIMEOUT
from experiments.runner.parts_beside import parts_compiled_beside
from experiments.runner.seating import agents_print_to_stderr, build_agent
from sim.decision_limit import limit_decisions
from sim.reference_base import ReferenceGame
from sim.rng import derive_seed
from sim.seating import SeatedAgent, play_guarded, play_with_agents

MAX_SEED = 1 << 64
MAX_HANDS = 10_000  # play prints a match deal by deal; longer runs are for knorri-sim run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``play``."""
    add_deal_arguments(parser, "seats at the table: 3 to 6 for Knorri, 2 to 7 for Knockout Whist, 4 for Kort "
                               "(default: the game's, 4 for all three)")
    parser.add_argument("--seed", type=int, default=0, help="the deal's seed, 0 to 2**64 - 1 (default 0): a run's "
                        "seed column replays that row")
    parser.add_argument("--agents", metavar="SPECS", default="random", help=f"{lineup.SYNTAX} (default random)")
    parser.add_argument("--hands", type=int, default=1,
                        help="play a match of this many rows, seeded as the runner seeds a match (default 1: one "
                             "deal from --seed); for games whose matches hold several (Knorri)")
    parser.add_argument("--json", action="store_true", help="print the public log as JSON lines instead")
    parser.add_argument("--decision-timeout", type=float, metavar="SECONDS", default=DECISION_TIMEOUT,
                        help=f"stop if a Python agent takes longer than this over one decision (default "
                             f"{DECISION_TIMEOUT:g}, as for knorri-sim run; 0: no limit; compiling its kernels does "
                             "not count)")


def run(args: argparse.Namespace) -> int:
    """Check the options, play and print."""
    if not 0 <= args.seed < MAX_SEED:
        raise UsageError(f"--seed must be from 0 to 2**64 - 1 (a 64-bit seed), not {args.seed}")
    if args.hands < 1:
        raise UsageError(f"--hands: a match has at least one deal, not {args.hands}")
    if args.hands > MAX_HANDS:
        raise UsageError(f"--hands: a match played here has at most {MAX_HANDS:,} deals, not {args.hands:,} "
                         "(knorri-sim run plays more)")
    if not (math.isfinite(args.decision_timeout) and args.decision_timeout >= 0):
        raise UsageError(f"--decision-timeout must be a finite number of seconds, 0 or more (0: no limit), not "
                         f"{args.decision_timeout:g}")
    adapter, n_seats, options = game_settings(args.game, args.seats, args.option)
    if args.hands > max(adapter.MATCH_HANDS):
        raise UsageError(f"--hands: {adapter.TITLE} plays one {adapter.ROW} per seed, not a match of several")
    specs = parse_lineup(args.agents, n_seats)
    if args.hands > 1 and args.first is not None:
        raise UsageError("--first applies to a single deal: a match opens as the runner opens one")
    with agents_print_to_stderr():
        agents = [SeatedAgent(build_agent(spec, args.game, seed=args.seed), spec, None) for spec in specs]
    # the agents' searches call the kernels the game's lineup splits off: a first play compiles them beside
    parts = routes.compile_parts(args.game, routes.LINEUP, specs)
    code = routes.compiled_code(adapter, args.game, routes.REFERENCE, specs)  # what the agents run, compiled
    if args.hands > 1:
        compiling.announce(code)
        with parts_compiled_beside(parts):
            _play_match(adapter, n_seats, options, agents, args.seed, args.hands, args.decision_timeout)
        return 0
    deal = adapter.deal(n_seats, args.seed, options, args.first)
    where = f"the {adapter.ROW} with seed {args.seed}" + ("" if args.first is None else f" (first seat {args.first})")
    compiling.announce(code)
    with parts_compiled_beside(parts), limit_decisions(args.decision_timeout), agents_print_to_stderr():
        play_guarded(lambda: play_with_agents(deal, agents, args.seed), agents, where, adapter.action_text)
    if args.json:
        for event in deal.log:
            print(json.dumps(event))
        return 0
    print(f"{adapter.TITLE}, seed {args.seed}, agents: {'; '.join(specs)}")
    for event in deal.log:
        print(adapter.describe_event(event))
    print(adapter.describe_end(deal))
    return 0


def _play_match(adapter: ModuleType, n_seats: int, options: dict, agents: list[SeatedAgent], seed: int,
                rows: int, decision_timeout: float) -> None:
    """Play and print a match of ``rows`` deals from match seed ``seed``: each deal's end, then the totals."""
    totals = [0] * n_seats
    previous: ReferenceGame | None = None
    for index in range(rows):
        deal_seed = derive_seed(seed, index)
        deal = adapter.deal(n_seats, deal_seed, options, previous=previous)
        with limit_decisions(decision_timeout), agents_print_to_stderr():
            play_guarded(lambda deal=deal, deal_seed=deal_seed: play_with_agents(deal, agents, deal_seed), agents,
                         f"{adapter.ROW} {index} of the match with seed {seed}", adapter.action_text)
        print(f"{adapter.ROW} {index + 1}: {adapter.describe_end(deal)}")
        totals = [total + score for total, score in zip(totals, deal.scores, strict=True)]
        previous = deal
    best = max(totals)
    winners = ", ".join(f"seat {seat}" for seat, total in enumerate(totals) if total == best)
    print(f"totals {totals}; winner(s): {winners}")

