"""``knorri-sim play``: play one hand (or a match) between agents and print it for a person."""

from __future__ import annotations

import argparse
import json

from sim.knorri.describe import describe_event, describe_result
from sim.knorri.encoding import action_text
from sim.knorri.match import play_hand, play_match
from sim.knorri.reference import KnorriHand, check_seats
from sim.seating import SeatedAgent, build_agent, play_guarded

MAX_HANDS = 10_000  # play prints a match hand by hand; longer runs are for knorri-sim run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``play``."""
    parser.add_argument("--seats", type=int, default=4, help="seats at the table, 3 to 6 (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="the hand's seed (default 0)")
    parser.add_argument("--first", type=int, default=0, help="the seat that turns first (default 0)")
    parser.add_argument("--agents", default="random",
                        help="one agent spec for every seat, or one per seat separated by ';' (default random)")
    parser.add_argument("--hands", type=int, default=1, help="play a match of this many hands (default 1)")
    parser.add_argument("--json", action="store_true", help="print the public log as JSON lines instead")


def run(args: argparse.Namespace) -> int:
    """Play and print."""
    from experiments.cli import UsageError

    n_seats = check_seats(args.seats)
    specs = [s for s in args.agents.split(";") if s.strip()]
    if len(specs) == 1:
        specs *= n_seats
    if len(specs) != n_seats:
        raise UsageError(f"--agents gives {len(specs)} specs for {n_seats} seats: give one, or one per seat")
    if args.hands < 1:
        raise UsageError(f"--hands: a match has at least one hand, not {args.hands}")
    if args.hands > MAX_HANDS:
        raise UsageError(f"--hands: a match played here has at most {MAX_HANDS:,} hands, not {args.hands:,} "
                         "(knorri-sim run plays more)")
    agents = [SeatedAgent(build_agent(spec, "knorri", seed=args.seed), spec, None) for spec in specs]
    if args.hands > 1:
        if args.first != 0:
            raise UsageError("--first applies to a single hand: a match opens at seat 0 and then after each loser")
        result = play_guarded(lambda: play_match(n_seats, args.hands, args.seed, agents), agents,
                              f"the match with seed {args.seed}", action_text)
        for index, hand in enumerate(result.hands):
            print(f"hand {index + 1}: {describe_result(hand)}")
        print(f"totals {result.totals}; winner(s): {', '.join(f'seat {s}' for s in result.winners)}")
        return 0
    if not 0 <= args.first < n_seats:
        raise UsageError(f"--first must be a seat from 0 to {n_seats - 1}, not {args.first}")
    hand = KnorriHand.from_seed(n_seats, args.seed, args.first)
    play_guarded(lambda: play_hand(hand, agents, args.seed), agents,
                 f"the hand with seed {args.seed} (first seat {args.first})", action_text)
    if args.json:
        for event in hand.log:
            print(json.dumps(event))
        return 0
    print(f"Knorri, seed {args.seed}, agents: {', '.join(specs)}")
    for event in hand.log:
        print(describe_event(event))
    print(describe_result(hand))
    return 0

