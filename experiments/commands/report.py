"""``knorri-sim report RUN_DIR``: draw every analysis figure of a run as PNG, with a Markdown summary.

The figures are the notebooks' (cut-offs, scores, the bot ladder); they go to
``RUN_DIR/report/`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

from experiments.analysis.load import load_run
from experiments.analysis.report import write_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run folder and where to write."""
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by knorri-sim run")
    parser.add_argument("--out", metavar="DIR", help="where to write the PNGs and report.md (default RUN_DIR/report)")


def run(args: argparse.Namespace) -> int:
    """Load the run's complete chunks, write the figures and the summary, and say where they are."""
    matplotlib.use("Agg")
    started = time.perf_counter()
    loaded = load_run(args.run_dir)
    out = Path(args.out) if args.out else Path(args.run_dir) / "report"
    written = write_report(loaded, out)
    partial = "" if loaded.complete else f" (partial run: {loaded.chunks_read} of {loaded.chunks_total} chunks)"
    print(f"{len(loaded.hands):,} hands{partial}: {len(written) - 1} figures and report.md written to {out} "
          f"in {time.perf_counter() - started:.1f} s")
    return 0
