"""``knorri-sim duel A B``: two agents on duplicate deals until a sequential probability ratio test decides.

The design and the batches are ``experiments.duel.play``'s, the statistics ``experiments.duel.sprt``'s. The run
folder is an ordinary dataset of the runner (``knorri-sim report DIR`` reads it), and the same command with the
same ``--out`` resumes it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from agents.lineup import split_agent_specs
from experiments.compile_notice import claim
from experiments.duel.play import BATCH_DEALS, MIN_DEALS, DuelResult, DuelState, duel_setup, play_duel
from experiments.duel.sprt import Sprt, llr_against_bounds, signed, test_words, verdict_words
from experiments.errors import UsageError
from experiments.runner.compiling import code_to_compile, cold_routes, compile_notice
from experiments.runner.config import option_settings
from experiments.runner.execute import RunStopped
from experiments.runner.plan import table_plans
from sim import games
from sim.contract import plural

DEFAULT_MAX_DEALS = 2000
PROGRESS_SECONDS = 10.0  # off a terminal, a progress line at most this often

DESIGN = (f"Each duplicate deal is played twice at every rotation of the tested seat (in Kort, the tested team of "
          f"two partners): once with A there, once with B, the same --others at the other seats and the same seeds. "
          f"A deal's paired difference is A's mean score per hand at the tested seat over the rotations minus B's. "
          f"The test is Wald's sequential probability ratio test on the mean difference, under a normal "
          f"approximation with the sample variance: H1, A better by at least delta1 points per hand, against H0, "
          f"better by at most delta0, with error rates alpha and beta. Deals are played in batches of "
          f"{BATCH_DEALS} (one chunk of the run each, in parallel with --workers); the test looks after each batch "
          f"from {MIN_DEALS} deals on, in deal order, and stops at the first look past a bound, or says undecided at "
          f"--max-deals. The folder is a run dataset (knorri-sim report reads it); the same command resumes it.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``duel``; the design is explained below them in ``--help``."""
    parser.epilog = DESIGN
    parser.add_argument("a", metavar="A", help="the agent spec tested, e.g. mcts or 'mcts:iters=400'")
    parser.add_argument("b", metavar="B", help="the agent spec it is compared with, e.g. greedy")
    parser.add_argument("--game", metavar="|".join(games.names()), default=games.DEFAULT_GAME,
                        help="which game (default knorri)")
    parser.add_argument("--seats", type=int, metavar="N", help="seats at the table (default: the game's default)")
    parser.add_argument("--others", metavar="SPECS", default="random",
                        help="the agents at the other seats: one spec for all (default random), or one per other "
                             "seat in seat order, separated like run's --agents ('greedy;loginf;random')")
    parser.add_argument("--delta0", type=float, default=0.0, metavar="D0",
                        help="H0: A is better by at most D0 points per hand (default 0)")
    parser.add_argument("--delta1", type=float, default=0.05, metavar="D1",
                        help="H1: A is better by at least D1 points per hand (default 0.05)")
    parser.add_argument("--alpha", type=float, default=0.05, metavar="A",
                        help="the chance of accepting H1 when A is better by D0 (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, metavar="B",
                        help="the chance of accepting H0 when A is better by D1 (default 0.05)")
    parser.add_argument("--max-deals", type=int, default=DEFAULT_MAX_DEALS, metavar="M",
                        help=f"stop undecided after this many deals (default {DEFAULT_MAX_DEALS:,})")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the master seed (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. target_wins=3 (Kort); repeatable")
    parser.add_argument("--workers", type=int, metavar="W", help="local worker processes (default: every core)")
    parser.add_argument("--out", metavar="DIR", help="the duel's run folder (default runs/duel-<game>-<time>); "
                        "give an existing one with the same options to resume it")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON: decision, deals, "
                        "mean_diff, ci95, llr, bounds")
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def run(args: argparse.Namespace) -> int:
    """Check everything, play or resume the duel, print the decision (and the JSON line). Bad input is exit 2 with
    nothing written; an agent that fails stops the duel with exit 1, its finished batches kept."""
    try:
        test = Sprt(args.delta0, args.delta1, args.alpha, args.beta)
    except ValueError as error:
        raise UsageError(f"--{error}") from None
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")
    adapter = games.adapter(args.game)
    seats = adapter.DEFAULT_SEATS if args.seats is None else args.seats
    others = split_agent_specs(args.others, "--others")
    out = args.out or f"runs/duel-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    setup = duel_setup(args.game, seats, args.a.strip(), args.b.strip(), others, args.max_deals, args.seed,
                       option_settings(args.option), args.workers, out)
    notice = compile_notice(code_to_compile(setup.config, cold_routes(setup.config, table_plans(setup.config))))
    progress = None if args.no_progress else Progress(test)
    try:
        result = play_duel(setup, test, progress, claim(notice))
    except RunStopped as error:
        print(f"knorri-sim: error: {error}", file=sys.stderr)
        return 1
    finally:
        if progress is not None:
            progress.close()
    print(format_result(result, test))
    if args.json:
        print(json.dumps(json_line(result, test), allow_nan=False))
    return 0


class Progress:
    """The progress line on stderr: deals, the LLR against its bounds, the mean difference so far (rewritten in
    place on a terminal; elsewhere a line at most every ``PROGRESS_SECONDS``)."""

    def __init__(self, test: Sprt) -> None:
        self.test = test
        self.tty = sys.stderr.isatty()
        self.last = -math.inf
        self.shown = False

    def __call__(self, state: DuelState) -> None:
        now = time.monotonic()
        if not self.tty and now - self.last < PROGRESS_SECONDS and state.verdict.decision == "continue":
            return
        self.last = now
        verdict = state.verdict
        played = sum(len(deals) for deals in state.differences.values())
        if verdict.deals == 0:
            line = f"duel: {played:,} deals played; the test looks from {MIN_DEALS} in deal order"
        else:
            line = (f"duel: {played:,} deals played; at {verdict.deals:,}: "
                    f"{llr_against_bounds(verdict.llr, self.test)}, mean A-B {verdict.mean:+.3f}")
        if self.tty:
            print(f"\r\033[K{line}", end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)
        self.shown = True

    def close(self) -> None:
        """End the line rewritten in place."""
        if self.tty and self.shown:
            print(file=sys.stderr, flush=True)


def format_result(result: DuelResult, test: Sprt) -> str:
    """The decision, the mean difference with its interval, the LLR and the deals, in words."""
    state, setup = result.state, result.state.setup
    adapter = games.adapter(setup.config.game)
    row = adapter.ROW
    a, b, others = setup.agents[0], setup.agents[1], setup.agents[2:]
    verdict = state.verdict
    lower, upper = test.bounds
    tested = "team" if len(setup.design[0].tested) > 1 else "seat"
    unit = f"points per {row}"
    lines = [f"{adapter.TITLE} duel at {setup.seats} seats: A = {a} against B = {b}, others "
             f"{', '.join(dict.fromkeys(others))}; the tested {tested} turns over {setup.rotations} positions",
             test_words(test, row)]
    rows = verdict.deals * len(setup.design)
    lines.append(f"after {verdict.deals:,} deals ({rows:,} {plural(row)}): "
                 + verdict_words(state.decision, verdict, test, a, b, row))
    lines.append(f"LLR {signed(verdict.llr, 3)}, bounds {lower:+.3f} and {upper:+.3f}; sd of a deal's difference "
                 f"{verdict.sd:.3f} {unit}")
    lines.append(f"run folder {setup.config.out}: {result.deals_in_folder:,} deals (knorri-sim report reads it; "
                 f"the same command resumes it); this command took {result.seconds:.1f} s wall, the batches it "
                 f"played {result.cpu_seconds:.1f} s of CPU (not counting any abandoned when the test decided)")
    return "\n".join(lines)


def json_line(result: DuelResult, test: Sprt) -> dict[str, Any]:
    """The ``--json`` line's fields (a value that is not finite, such as the LLR of differences that are all
    equal, is null)."""
    verdict = result.state.verdict

    def number(value: float) -> float | None:
        return float(value) if math.isfinite(value) else None

    return {"decision": result.state.decision, "deals": verdict.deals, "mean_diff": number(verdict.mean),
            "ci95": [number(verdict.ci95[0]), number(verdict.ci95[1])], "llr": number(verdict.llr),
            "bounds": list(test.bounds)}
