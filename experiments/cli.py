"""The ``knorri-sim`` command: one entry point, one module per subcommand.

Every user-facing error is one line on stderr and a non-zero exit: 2 for bad input, 1 when an agent
failed while playing (its file and line named; ``--debug`` or ``KNORRI_SIM_DEBUG=1`` adds its traceback) or a
run's files are damaged (the file named).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import pickle
import sys
import traceback
from collections.abc import Sequence

from experiments import compile_notice
from experiments.allocator import keep_freed_memory
from experiments.errors import DEBUG_VARIABLE, RunDamaged, UsageError, print_trace
from sim.agent import AgentSpecError
from sim.cards import CardParseError
from sim.errors import AgentFailure, GameInputError
from sim.seating import described

# Subcommand name -> module under experiments.commands with add_arguments(parser) and run(args) -> int.
COMMANDS = {
    "play": "Play one Knorri hand (or match), Knockout Whist game or Kort match and print the log and the result.",
    "traj": "Print the conformance protocol's line for each seed.",
    "bench": "Measure hands/s and actions/s of random play on each engine, per core and on all cores.",
    "run": "Play a configured experiment in parallel into a parquet dataset (resumable).",
    "league": "Play a pool of agents in a balanced design on duplicate deals at each seat count (one run each, "
              "resumable); print mean scores, finishing places and openskill ratings, and draw the ratings.",
    "duel": "Play agent A against agent B on duplicate deals, each in the tested seat at every rotation, until a "
            "sequential probability ratio test decides whether A is better by at least delta1 (resumable).",
    "report": "Draw a run's analysis figures as PNG with a Markdown summary (Knorri: cut-offs, scores, bot ladder; "
              "Knockout Whist: wins by seat, game length, dog's lives, agents; Kort: round results, the trump "
              "holder's value, redeals, match length, the ladder of teams).",
    "replay": "Write one deal (a run's row, or a new one) as a self-contained HTML page that steps through it, "
              "each position drawn as SVG.",
    "cutoffs": "How a run's hands are cut off (Knorri: repeat and cap): shares per table, the anatomy of every loop, "
               "hand length as a survival curve, and with --counterfactual what the cut-off changes; figures and a "
               "Markdown page.",
    "verify": "Check every shard of a run against the SHA-256, rows and run id its writer recorded, the journal "
              "against the manifest and the code against the run's; one line per problem (exit 1), and with "
              "--repair play the damaged chunks again.",
    "train": "Train a learned agent's network by self-play Deep Monte-Carlo on the compiled batch, with checkpoints "
             "(resumable) and an evaluation against greedy at each (needs the train extra).",
    "cache": "Show where the compiled engine code is kept and its size (info), or delete it (clear).",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of argparse's usage block
        self.exit(2, f"knorri-sim: error: {message} (see '{help_command(self.prog)}')\n")


def help_command(prog: str) -> str:
    """The help command for a parser's ``prog`` (``knorri-sim`` or ``knorri-sim run``), the program named once."""
    words = prog.split()
    return " ".join(["knorri-sim", *words[1:], "--help"])


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered; with ``only``, the options of that subcommand alone.

    A command's module is imported to read its options, and some import much (``report`` draws with
    matplotlib): ``main`` reads only the command it runs, so ``run`` does not wait on the others.
    """
    parser = _Parser(prog="knorri-sim",
                     description="Simulate Knorri, Knockout Whist and Kort (choose with --game) at scale for game-AI "
                                 "research.")
    parser.add_argument("--version", action="version", version=f"knorri-sim {installed_version()}",
                        help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, summary in COMMANDS.items():
        command = sub.add_parser(name, help=summary, description=summary)
        if only is None or name == only:
            importlib.import_module(f"experiments.commands.{name}").add_arguments(command)
        command.add_argument("--debug", action="store_true",
                             help=f"when an agent fails, print its whole traceback too (or set {DEBUG_VARIABLE}=1)")
    return parser


def installed_version() -> str:
    """The version of the installed package, for ``--version`` and bug reports; ``unknown`` for a tree run from
    source without an install (no package metadata to read)."""
    try:
        return importlib.metadata.version("knorri-sim")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def command_word(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names (its first word that is not an option), if it names one."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    return word if word in COMMANDS else None


def damaged_compile_cache(error: BaseException) -> bool:
    """Whether ``error`` came from numba loading a cached kernel (a file of the cache cut short or garbled)."""
    return "numba/core/caching.py" in "".join(traceback.format_exception(error)).replace("\\", "/")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(command_word(words) or "").parse_args(words)
    compile_notice.listen()
    keep_freed_memory()
    module = importlib.import_module(f"experiments.commands.{args.command}")
    try:
        return int(module.run(args) or 0)
    except AgentFailure as error:  # the input was fine; an agent failed while playing
        print_trace(error.trace, args)
        print(f"knorri-sim: error: {error}", file=sys.stderr)
        return 1
    except RunDamaged as error:  # the input was fine; the run's files are not what was written
        print(f"knorri-sim: error: {error}", file=sys.stderr)
        return 1
    except (GameInputError, AgentSpecError, CardParseError, UsageError) as error:
        print(f"knorri-sim: error: {error}", file=sys.stderr)
        return 2
    except (pickle.UnpicklingError, EOFError) as error:
        if not damaged_compile_cache(error):
            raise
        print(f"knorri-sim: error: the compiled code cache is damaged ({described(error)}): run knorri-sim cache "
              "clear, and the next command compiles the engine afresh", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as interrupt:  # a run's says what it kept and how to resume (execute.RunInterrupted)
        print(f"knorri-sim: {str(interrupt) or 'interrupted (Ctrl-C)'}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
