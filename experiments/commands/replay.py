"""``knorri-sim replay``: one deal of any game as a self-contained HTML page that steps through it.

``knorri-sim replay RUN_DIR --hand-index N`` replays a run's row (from its actions
table when the run logged one, else rebuilt from its seed and lineup);
``knorri-sim replay --game G --seats N --seed S --agents SPECS`` plays a new one.
Written once against the game contract (``experiments.replay``): no game is named here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents import lineup
from agents.lineup import parse_lineup
from experiments.commands.common import add_deal_arguments, game_settings
from experiments.commands.play import MAX_SEED
from experiments.errors import UsageError
from experiments.replay.build import fresh_replay, run_replay
from experiments.replay.page import write_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``replay``."""
    parser.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="a run folder written by knorri-sim run "
                        "(with --hand-index); without one, --seed and --agents play a new deal")
    parser.add_argument("--hand-index", type=int, default=None, metavar="N",
                        help="the run's row to replay: its hand_index column (a Knorri hand, a Knockout Whist "
                             "game, a Kort match)")
    parser.add_argument("--seat", type=int, default=None, metavar="S",
                        help="draw only what seat S may know (default: the whole deal, as an analyst sees it)")
    parser.add_argument("--out", metavar="FILE.html", default=None,
                        help="where to write the page (default replay-<hand index or seed>.html here)")
    add_deal_arguments(parser, "seats at the table, for a new deal (default: the game's)")
    parser.add_argument("--seed", type=int, default=None, help="a new deal's seed, 0 to 2**64 - 1")
    parser.add_argument("--agents", metavar="SPECS", default=None, help=f"a new deal's agents: {lineup.SYNTAX}")


MAX_HAND_INDEX = 1 << 63  # hand_index is an int64 column


def run(args: argparse.Namespace) -> int:
    """Rebuild or play the deal, write its page and say where it is."""
    if args.run_dir is not None:
        given = [name for name, value in (("--seed", args.seed), ("--agents", args.agents), ("--seats", args.seats),
                                          ("--first", args.first)) if value is not None]
        if given or args.option:
            raise UsageError(f"{(given or ['--option'])[0]} is for a new deal: a run's row is replayed as it was "
                             "played (give RUN_DIR and --hand-index, or --seed and --agents without RUN_DIR)")
        if args.hand_index is None:
            raise UsageError("--hand-index is required with RUN_DIR: which of the run's rows to replay")
        if not 0 <= args.hand_index < MAX_HAND_INDEX:
            raise UsageError(f"--hand-index must be from 0 to 2**63 - 1 (a run's hand_index column), not "
                             f"{args.hand_index}")
        out = _page_path(args.out, f"replay-{args.hand_index}.html")
        replay = run_replay(args.run_dir, args.hand_index, args.seat)
    else:
        if args.hand_index is not None:
            raise UsageError("--hand-index needs RUN_DIR: the run folder whose row to replay")
        if args.seed is None or args.agents is None:
            raise UsageError("give RUN_DIR --hand-index N to replay a run's row, or --seed and --agents for a new "
                             "deal")
        if not 0 <= args.seed < MAX_SEED:
            raise UsageError(f"--seed must be from 0 to 2**64 - 1 (a 64-bit seed), not {args.seed}")
        _, n_seats, options = game_settings(args.game, args.seats, args.option)
        specs = parse_lineup(args.agents, n_seats)
        out = _page_path(args.out, f"replay-seed-{args.seed}.html")
        replay = fresh_replay(args.game, n_seats, args.seed, specs, options, args.first, args.seat)
    try:
        written = write_page(replay, out)
    except OSError as error:
        raise UsageError(f"cannot write {str(out)!r}: {error.strerror or error}") from None
    size = written.stat().st_size
    print(f"{replay.steps} steps written to {written} ({size / 1e6:.2f} MB): {replay.result.splitlines()[0]}")
    return 0


def _page_path(given: str | None, default: str) -> Path:
    """Where the page goes: ``--out``, else ``default`` here; refused before anything is played if it is a folder."""
    out = Path(given or default)
    if out.is_dir():
        raise UsageError(f"--out {str(out)!r} is a folder: give a file name such as replay.html")
    return out
