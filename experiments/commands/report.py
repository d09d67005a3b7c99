"""``knorri-sim report RUN_DIR``: draw every analysis figure of a run as PNG, with a Markdown summary.

The run's manifest names its game, and ``experiments.analysis.generic.report_for``
gives that game's report: its own, registered by its analysis (Knorri's cut-offs
and scores, Knockout Whist's seats and dog's lives, Kort's rounds and trump
holder, each with the bot ladder), or the generic one any game gets from its
adapter's metadata (``experiments.analysis.generic``). They go to
``RUN_DIR/report/`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

from experiments.analysis.generic import report_for
from experiments.analysis.load import RunFolderError, read_manifest, run_game
from experiments.duel.figures import write_duel_report
from experiments.duel.reading import read_duel
from experiments.train.report import is_training, write_training_report
from sim.contract import plural


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The run folder and where to write."""
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by knorri-sim run (or a training "
                        "folder of knorri-sim train: its learning curve and model card)")
    parser.add_argument("--out", metavar="DIR", help="where to write the PNGs and report.md (default RUN_DIR/report)")


def run(args: argparse.Namespace) -> int:
    """Load the run's complete chunks, write its game's figures and the summary, and say where they are."""
    matplotlib.use("Agg")
    started = time.perf_counter()
    if is_training(args.run_dir):
        return training_report(Path(args.run_dir), Path(args.out) if args.out else None, started)
    manifest = read_manifest(Path(args.run_dir))
    game = run_game(manifest)
    out = Path(args.out) if args.out else Path(args.run_dir) / "report"
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"--out {str(out)!r} is a file: give a folder for the figures and report.md")
    report = report_for(game)
    loaded = report.load_run(args.run_dir)
    try:
        written = report.write(loaded, out)
    except OSError as error:
        raise RunFolderError(f"cannot write the report into {str(out)!r}: {error.strerror or error}") from None
    duel = read_duel(args.run_dir, manifest)
    if duel is not None:
        written += write_duel_report(duel, out)
    partial = "" if loaded.complete or duel else f" (partial run: {loaded.chunks_read} of {loaded.chunks_total} chunks)"
    pages = sum(1 for path in written if path.suffix == ".html")
    shown = f"{sum(1 for path in written if path.suffix == '.png')} figures" + \
        (f", {pages} {plural('replay', pages)}" if pages else "")
    print(f"{loaded.row_count:,} {plural(loaded.row)}{partial}: {shown} and report.md "
          f"written to {out} in {time.perf_counter() - started:.1f} s")
    if duel is not None:
        print(duel.state_line())
    elif not loaded.complete:
        print(partial_note(args.run_dir, manifest))
    return 0


def training_report(folder: Path, out: Path | None, started: float) -> int:
    """A training folder's learning curve and model card (``experiments.train.report``)."""
    out = out or folder / "report"
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"--out {str(out)!r} is a file: give a folder for the figure and report.md")
    written = write_training_report(folder, out)
    print(f"training {folder}: the learning curve and the model card (report.md) written to {out} in "
          f"{time.perf_counter() - started:.1f} s ({len(written)} files)")
    return 0


STOPPED = {"failed": "stopped on an error", "interrupted": "was interrupted",
           "running": "is still being written, or was killed"}


def partial_note(run_dir: str, manifest: dict) -> str:
    """What to do about a run that is not finished: its chunks are kept, and the command that finishes it."""
    state = STOPPED.get(str(manifest.get("status")), "is not finished")
    return (f"this run {state}; its finished chunks are kept: knorri-sim run --resume {run_dir} plays the rest, "
            "then report again for the whole run")
