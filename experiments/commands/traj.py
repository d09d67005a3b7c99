"""``knorri-sim traj``: the conformance protocol's line for each seed in a range, for Knorri, Knockout Whist or Kort."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import numpy as np

from experiments.errors import UsageError

FAST_CHUNK = 200_000  # seeds the compiled engine plays per call, so memory stays bounded for any range
GAMES = ("knorri", "knockout-whist", "kort")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``traj``."""
    parser.add_argument("--game", choices=GAMES, default="knorri", help="which game (default knorri)")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats at the table: 3 to 6 for Knorri, 2 to 7 for Knockout Whist (required for "
                             "those); Kort always has 4")
    parser.add_argument("--first", type=int, default=None, help="Knorri only: the seat that turns first (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="Knockout Whist: a variant option, e.g. dogs_life=false or rainbow=true; Kort: "
                             "target_wins=3 or first_holder=1 (repeatable)")
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("A", "B"), required=True,
                        help="seeds A up to B-1")
    parser.add_argument("--engine", choices=["reference", "fast"], default="reference",
                        help="which engine plays: the readable reference or the compiled one (same lines)")


def run(args: argparse.Namespace) -> int:
    """Print one line per seed."""

    start, stop = args.seeds
    if start < 0 or stop < start:
        raise UsageError(f"--seeds A B needs 0 <= A <= B, not {start} {stop}")
    if stop > 1 << 64:
        raise UsageError("--seeds must stay below 2**64: a seed is a 64-bit integer")
    if args.game == "kort":
        return _kort(args, start, stop, sys.stdout)
    if args.seats is None:
        raise UsageError("--seats is required for Knorri and Knockout Whist")
    if args.game == "knockout-whist":
        return _knockout_whist(args, start, stop, sys.stdout)
    if args.option:
        raise UsageError("--option is for --game knockout-whist; Knorri has no options")
    return _knorri(args, start, stop, sys.stdout)


def _knorri(args: argparse.Namespace, start: int, stop: int, out: TextIO) -> int:
    from sim.knorri.conformance import reference_line
    from sim.knorri.reference import check_seats

    n_seats = check_seats(args.seats)
    first = 0 if args.first is None else args.first
    if not 0 <= first < n_seats:
        raise UsageError(f"--first must be a seat from 0 to {n_seats - 1}, not {first}")
    if args.engine == "fast":
        from sim.knorri.batch import play_batch
        from sim.knorri.fast_policies import PROTOCOL

        for chunk_start in range(start, stop, FAST_CHUNK):
            seeds = np.arange(chunk_start, min(stop, chunk_start + FAST_CHUNK), dtype=np.uint64)
            lines = play_batch(n_seats, seeds, first, PROTOCOL).protocol_lines()
            out.write("".join(line + "\n" for line in lines))
        return 0
    for seed in range(start, stop):
        out.write(reference_line(n_seats, seed, first) + "\n")
    return 0


def _knockout_whist(args: argparse.Namespace, start: int, stop: int, out: TextIO) -> int:
    from sim.knockout_whist.conformance import reference_line
    from sim.knockout_whist.encoding import MAX_SEATS, MIN_SEATS, parse_options

    if args.first is not None:
        raise UsageError("--first is for Knorri; in Knockout Whist seat 0 deals the first hand and seat 1 leads")
    if not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"Knockout Whist is for {MIN_SEATS} to {MAX_SEATS} seats, not {args.seats}")
    if any(setting.partition("=")[0].strip() == "players" for setting in args.option):
        raise UsageError("the number of players is set by --seats, not --option players=...")
    options = parse_options([f"players={args.seats}", *args.option])
    if args.engine == "fast":
        from sim.knockout_whist.batch import play_batch

        for chunk_start in range(start, stop, FAST_CHUNK):
            seeds = np.arange(chunk_start, min(stop, chunk_start + FAST_CHUNK), dtype=np.uint64)
            out.write("".join(line + "\n" for line in play_batch(options, seeds, "protocol").protocol_lines()))
        return 0
    for seed in range(start, stop):
        out.write(reference_line(options, seed) + "\n")
    return 0


def _kort(args: argparse.Namespace, start: int, stop: int, out: TextIO) -> int:
    from sim.kort.conformance import reference_line
    from sim.kort.encoding import NUM_SEATS, parse_options

    if args.seats is not None and args.seats != NUM_SEATS:
        raise UsageError(f"Kort is always played by {NUM_SEATS} seats, not {args.seats}")
    if args.first is not None:
        raise UsageError("--first is for Knorri; Kort's first trump holder is --option first_holder=SEAT")
    options = parse_options(args.option)
    if args.engine == "fast":
        from sim.kort.batch import play_batch

        for chunk_start in range(start, stop, FAST_CHUNK):
            seeds = np.arange(chunk_start, min(stop, chunk_start + FAST_CHUNK), dtype=np.uint64)
            lines = play_batch(options, seeds, "protocol", keep_rounds=False).protocol_lines()
            out.write("".join(line + "\n" for line in lines))
        return 0
    for seed in range(start, stop):
        out.write(reference_line(options, seed) + "\n")
    return 0
