"""``knorri-sim traj``: the conformance protocol's line for each seed in a range."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from sim.knorri.conformance import reference_line
from sim.knorri.reference import check_seats

FAST_CHUNK = 200_000  # seeds the compiled engine plays per call, so memory stays bounded for any range


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``traj``."""
    parser.add_argument("--seats", type=int, required=True, help="seats at the table, 3 to 6")
    parser.add_argument("--first", type=int, default=0, help="the seat that turns first (default 0)")
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("A", "B"), required=True,
                        help="seeds A up to B-1")
    parser.add_argument("--engine", choices=["reference", "fast"], default="reference",
                        help="which engine plays: the readable reference or the compiled one (same lines)")


def run(args: argparse.Namespace) -> int:
    """Print one line per seed."""
    from experiments.cli import UsageError

    n_seats = check_seats(args.seats)
    if not 0 <= args.first < n_seats:
        raise UsageError(f"--first must be a seat from 0 to {n_seats - 1}, not {args.first}")
    start, stop = args.seeds
    if start < 0 or stop < start:
        raise UsageError(f"--seeds A B needs 0 <= A <= B, not {start} {stop}")
    if stop > 1 << 64:
        raise UsageError("--seeds must stay below 2**64: a seed is a 64-bit integer")
    out = sys.stdout
    if args.engine == "fast":
        from sim.knorri.batch import play_batch
        from sim.knorri.fast_policies import PROTOCOL

        for chunk_start in range(start, stop, FAST_CHUNK):
            seeds = np.arange(chunk_start, min(stop, chunk_start + FAST_CHUNK), dtype=np.uint64)
            lines = play_batch(n_seats, seeds, args.first, PROTOCOL).protocol_lines()
            out.write("".join(line + "\n" for line in lines))
        return 0
    for seed in range(start, stop):
        out.write(reference_line(n_seats, seed, args.first) + "\n")
    return 0
