"""``knorri-sim cutoffs RUN_DIR [--counterfactual RUN_DIR] [--out DIR]``: how a run's hands are cut off.

The command knows no game's rules. It reads which end reasons are cut-offs from the run's game contract
(``CUT_OFFS`` of the adapter the manifest names): a game without any gets one line saying so. Otherwise it asks
the game's cut-off analysis (``experiments.analysis.reports.cutoff_analysis_for``; Knorri's is in
``experiments.analysis.knorri``) for the statistics, prints their summary and writes the figures with a
Markdown page into ``--out`` (default ``RUN_DIR/cutoffs``). Every aggregate is computed in bounded memory.

Whether a cut-off hand would have ended is answered by the run itself when it was made with
``--continue-past-cutoff``, and otherwise by ``--counterfactual``, a second run whose paired hands count only where
they followed the cut-off hand's path up to the cut (checked from both runs' action logs, or the first run's
continuation; the page's first line says when the check is partial).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

from experiments.analysis.load import RunFolderError, read_manifest, run_game
from experiments.analysis.reports import cutoff_analysis_for
from sim import games


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run folder, the counterfactual run and where to write."""
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by knorri-sim run")
    parser.add_argument("--counterfactual", metavar="RUN_DIR",
                        help="the same config and seed run under other options (e.g. --option repeat=0 --option "
                             "cap=20000): hands are paired by seed and seating, and a pair that left the cut-off "
                             "hand's path before the cut counts as diverged (told whole with --log-actions on both "
                             "runs, or --continue-past-cutoff on the first; a run made with --continue-past-cutoff "
                             "needs no second run)")
    parser.add_argument("--out", metavar="DIR", help="where to write the PNGs and cutoffs.md (default RUN_DIR/cutoffs)")


def run(args: argparse.Namespace) -> int:
    """Analyse the run's cut-offs (and the counterfactual's), print the summary, write the page; say where."""
    matplotlib.use("Agg")
    started = time.perf_counter()
    folder = Path(args.run_dir)
    game = run_game(read_manifest(folder))
    adapter = games.adapter(game)
    if not adapter.CUT_OFFS:
        print(f"{adapter.TITLE} has no cut-offs: every {adapter.ROW} ends by the rules, so there is nothing to show")
        return 0
    if args.counterfactual is not None:
        read_manifest(Path(args.counterfactual))  # a bad second folder is refused before any work
    out = Path(args.out) if args.out else folder / "cutoffs"
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"--out {str(out)!r} is a file: give a folder for the figures and cutoffs.md")
    analysis = cutoff_analysis_for(game)
    result = analysis.analyse(folder, args.counterfactual)
    try:
        written = analysis.write(result, out)
    except OSError as error:
        raise RunFolderError(f"cannot write into {str(out)!r}: {error.strerror or error}") from None
    print(analysis.summary(result), end="")
    print(f"{len(written) - 1} figures and {written[-1].name} written to {out} in "
          f"{time.perf_counter() - started:.1f} s")
    return 0
