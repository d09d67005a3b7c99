"""``knorri-sim traj``: the conformance protocol's line for each seed in a range."""

from __future__ import annotations

import argparse
import sys

from sim.knorri.conformance import reference_line
from sim.knorri.reference import check_seats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``traj``."""
    parser.add_argument("--seats", type=int, required=True, help="seats at the table, 3 to 6")
    parser.add_argument("--first", type=int, default=0, help="the seat that turns first (default 0)")
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("A", "B"), required=True,
                        help="seeds A up to B-1")
    parser.add_argument("--engine", choices=["reference"], default="reference", help="which engine plays")


def run(args: argparse.Namespace) -> int:
    """Print one line per seed."""
    from experiments.cli import UsageError

    n_seats = check_seats(args.seats)
    if not 0 <= args.first < n_seats:
        raise UsageError(f"--first must be a seat from 0 to {n_seats - 1}, not {args.first}")
    start, stop = args.seeds
    if start < 0 or stop < start:
        raise UsageError(f"--seeds A B needs 0 <= A <= B, not {start} {stop}")
    out = sys.stdout
    for seed in range(start, stop):
        out.write(reference_line(n_seats, seed, args.first) + "\n")
    return 0
