"""``knorri-sim traj``: the conformance protocol's line for each seed in a range, for any registered game."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from experiments.commands.common import ENGINE_CHOICES, add_deal_arguments, engine_name, game_settings
from experiments.errors import UsageError

CHUNK = 200_000  # seeds per call, so memory stays bounded for any range


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``traj``."""
    add_deal_arguments(parser, "seats at the table (required where the game allows several counts: Knorri 3 to 6, "
                               "Knockout Whist 2 to 7; Kort always has 4)")
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("A", "B"), required=True,
                        help="seeds A up to B-1")
    parser.add_argument("--engine", choices=ENGINE_CHOICES, default="reference",
                        help="which engine plays: the readable reference or the compiled one (same lines; "
                             "fast is the compiled engine's older name)")


def run(args: argparse.Namespace) -> int:
    """Print one line per seed."""
    start, stop = args.seeds
    if start < 0 or stop < start:
        raise UsageError(f"--seeds A B needs 0 <= A <= B, not {start} {stop}")
    if stop > 1 << 64:
        raise UsageError("--seeds must stay below 2**64: a seed is a 64-bit integer")
    adapter, n_seats, options = game_settings(args.game, args.seats, args.option, seats_required=True)
    engine = engine_name(adapter, args.engine)
    for chunk_start in range(start, stop, CHUNK):
        seeds = np.arange(chunk_start, min(stop, chunk_start + CHUNK), dtype=np.uint64)
        lines = adapter.conformance_lines(n_seats, seeds, options, args.first, engine)
        sys.stdout.write("".join(line + "\n" for line in lines))
    return 0
