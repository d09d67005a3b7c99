"""``knorri-sim league``: a pool of agents in a balanced design on duplicate deals, at each seat count.

The design and its runs are ``experiments.league.play``'s (``DESIGN`` below says it for ``--help``), what they say
``experiments.league.results``'s. It prints, per seat count, each agent's mean score, finishing places and
rating, and writes the ratings figure and the printout into ``OUT``; the same command resumes a stopped league.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

from agents.lineup import split_agent_specs
from experiments.commands.common import seat_count_list
from experiments.league.play import run_league
from experiments.league.results import format_result
from experiments.runner.config import ConfigError, option_settings
from sim import games

LEAGUE_FIGURE = "league_ratings.png"
LEAGUE_SUMMARY = "league.md"


DESIGN = ("The design: every ordering of the agents is dealt out one per seat (one per team in Kort), wrapping "
          "round when there are more seats than agents, and every seating plays every deal (duplicate deals). "
          "Each agent holds each seat equally often and sits at the table equally often: with 4 agents, the 24 "
          "permutations at 4 seats, the 24 ordered choices of 3 at 3 seats, the 24 orderings with the first one "
          "or two agents taking a second seat at 5 and 6 seats, and in Kort the 12 ordered pairs of teams, both "
          "ways round. Each seat count is a run folder OUT/seats-N of the same dataset as knorri-sim run "
          "(knorri-sim report reads it). Printed per seat count: mean score per seat-row with a 95% CI clustered "
          "by deal, the share of each finishing place (Knorri: the order of going out, from the scores; Knockout "
          "Whist: the game's placing; Kort: the team result), and openskill's Plackett-Luce rating of whole "
          "finishing orders as mu ± 2 sigma; OUT/league_ratings.png draws the ratings, OUT/league.md keeps the "
          "printout.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``league``; the design is explained below them in ``--help``."""
    parser.epilog = DESIGN
    parser.add_argument("--game", metavar="|".join(games.names()), default=games.DEFAULT_GAME,
                        help="which game (default knorri)")
    parser.add_argument("--seats", metavar="N[,N…]",
                        help="seat counts, one run each (default: every count the game allows)")
    parser.add_argument("--agents", metavar="SPECS", required=True,
                        help="the pool of different agent specs, e.g. 'random,greedy,loginf,mcts' (separated "
                             "like run's --agents: 'mcts:iters=400,c=1.4' stays one spec); any number")
    parser.add_argument("--deals", type=int, default=100, metavar="N",
                        help="duplicate deals per seat count, each played by every seating (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the master seed (default 0)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                        help="a game option, e.g. cap=20000 or repeat=3 for Knorri (repeatable)")
    parser.add_argument("--out", metavar="DIR", help="the league's folder (default runs/league-<game>-<time>); "
                        "give an existing one with the same options to resume it")
    parser.add_argument("--workers", type=int, metavar="W", help="local worker processes (default: every core)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Play or resume every seat count, print the league's tables, write its figure and printout."""
    matplotlib.use("Agg")
    adapter = games.adapter(args.game)
    seat_counts = _seat_counts(args.seats, adapter.MIN_SEATS, adapter.MAX_SEATS)
    out = Path(args.out) if args.out else Path("runs") / f"league-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {args.workers}")
    options = option_settings(args.option) if args.option else {}
    agents = split_agent_specs(args.agents)
    played = run_league(args.game, seat_counts, agents, args.deals, out, args.seed, options, args.workers,
                        progress=not args.no_progress)
    text = "\n\n".join(format_result(result, args.game) for result in played)
    print(text)
    from experiments.analysis.figures import league_ratings_figure

    title = f"{adapter.TITLE} league: {', '.join(agents)} ({args.deals:,} deals per seat count)"
    league_ratings_figure({r.seats: r.ratings for r in played}, title).savefig(out / LEAGUE_FIGURE)
    (out / LEAGUE_SUMMARY).write_text(f"# {title}\n\n```\n{text}\n```\n\n![ratings]({LEAGUE_FIGURE})\n")
    print(f"\nruns: {', '.join(str(out / f'seats-{r.seats}') for r in played)}; ratings figure "
          f"{out / LEAGUE_FIGURE}; printout {out / LEAGUE_SUMMARY}")
    return 0


def _seat_counts(text: str | None, low: int, high: int) -> list[int]:
    """``--seats`` as a list of counts (the game's range when not given)."""
    return list(range(low, high + 1)) if text is None else seat_count_list(text)
