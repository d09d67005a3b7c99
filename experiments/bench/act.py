"""How long an agent thinks: CPU seconds inside ``act`` per decision, in self-play or against other agents.

    python -m experiments.bench.act --agents random,greedy,loginf --against itself,greedy --hands 20
    python -m experiments.bench.act --compare mcts:version=1/mcts --against itself,greedy --hands 3 --repeats 5

Each spec of ``--agents`` holds every seat (``itself`` in ``--against``), or seat 0 against copies of each other
spec given; ``--compare OLD/NEW`` times two specs in one process, their passes in turn so that a change in the
machine's load falls on both alike, and adds a row of NEW's time over OLD's. The deals come through the game's
adapter, so every game takes it. The table goes to ``<out>.csv`` and ``<out>.md`` (``runs/bench/act`` unless
``--out`` says otherwise; ``--out experiments/results/speed`` refreshes the committed table).
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.base import AgentSpecError, make_agent
from sim import games
from sim.contract import check_seats
from sim.errors import GameInputError
from sim.rng import derive_seed
from sim.seating import play_with_agents

DEFAULT_OUT = Path("runs") / "bench" / "act"
ITSELF = "itself"  # the word of --against for self-play, and the opponent column's
FIRST_DEAL = 10_000  # timed deals are numbered from here, clear of the deals other tables use

Calls = list[tuple[float, bool]]  # each act call's CPU seconds, and whether it had two or more legal ids


def timed_pass(game: str, spec: str, n_seats: int, indices: Sequence[int], base_seed: int,
               opponent: str | None) -> Calls:
    """CPU seconds of every ``act`` call of ``spec`` over the deals ``indices`` (at every seat, or at seat 0 against
    ``opponent``), each with whether it had a choice."""
    adapter = games.adapter(game)
    options = adapter.check_options({})
    calls: Calls = []

    def timed(agent):
        inner = agent.act

        def act(observation, legal):
            start = time.process_time()
            action = inner(observation, legal)
            calls.append((time.process_time() - start, len(legal) > 1))
            return action

        agent.act = act
        return agent

    for index in indices:
        seed = derive_seed(base_seed, FIRST_DEAL + index)
        if opponent is None:
            agents = [timed(make_agent(spec, seed, game)) for _ in range(n_seats)]
        else:
            agents = [timed(make_agent(spec, seed, game))] + [make_agent(opponent, seed, game)
                                                             for _ in range(n_seats - 1)]
        play_with_agents(adapter.deal(n_seats, seed, options), agents, seed)
    return calls


def speed_row(spec: str, n_seats: int, passes: list[Calls], opponent: str | None) -> dict:
    """A table row from timed passes: medians over passes of the mean per call, and of the calls with a choice."""
    means = [sum(t for t, _ in calls) / max(1, len(calls)) for calls in passes]
    choices = [t for calls in passes for t, choice in calls if choice]
    per = statistics.median(means)
    return {"agent": spec, "seats": n_seats, "opponent": opponent or ITSELF, "decisions": len(passes[-1]),
            "repeats": len(passes), "s_per_decision": per, "decisions_per_s": (1 / per) if per else math.inf,
            "s_per_choice": statistics.median(choices) if choices else 0.0}


def time_agent(game: str, spec: str, n_seats: int, hands: int, base_seed: int, opponent: str | None = None,
               repeats: int = 3) -> dict:
    """CPU seconds inside ``act`` per decision of ``spec``: at every seat, or at seat 0 against ``opponent``.

    CPU time, not wall time: on a shared machine the wall clock counts other work too. One untimed deal first
    (loading compiled code), then ``repeats`` timed passes over the same ``hands`` deals. ``s_per_decision`` is
    the median over passes of the mean over all calls (a forced move included); ``s_per_choice`` is the median
    time of the calls with a choice, where a search agent actually searches.
    """
    timed_pass(game, spec, n_seats, [hands], base_seed, opponent)  # warm-up, untimed
    passes = [timed_pass(game, spec, n_seats, range(hands), base_seed, opponent) for _ in range(max(1, repeats))]
    return speed_row(spec, n_seats, passes, opponent)


def compare_speed(game: str, old: str, new: str, n_seats: int, hands: int, base_seed: int,
                  opponent: str | None = None, repeats: int = 3) -> list[dict]:
    """``time_agent`` for two specs in one process, their timed passes taken in turn (old then new, then new then
    old, ...) so that a change in the machine's load falls on both alike; the third row is new over old."""
    for spec in (old, new):
        timed_pass(game, spec, n_seats, [hands], base_seed, opponent)  # warm-up, untimed
    passes: dict[str, list[Calls]] = {old: [], new: []}
    for repeat in range(max(1, repeats)):
        for spec in ((old, new) if repeat % 2 == 0 else (new, old)):
            passes[spec].append(timed_pass(game, spec, n_seats, range(hands), base_seed, opponent))
    rows = [speed_row(spec, n_seats, passes[spec], opponent) for spec in (old, new)]
    rows.append({"agent": f"{new} / {old}", "seats": n_seats, "opponent": opponent or ITSELF,
                 "decisions": rows[1]["decisions"], "repeats": max(1, repeats),
                 "s_per_decision": rows[1]["s_per_decision"] / rows[0]["s_per_decision"],
                 "decisions_per_s": rows[1]["decisions_per_s"] / rows[0]["decisions_per_s"],
                 "s_per_choice": (rows[1]["s_per_choice"] / rows[0]["s_per_choice"]) if rows[0]["s_per_choice"]
                 else math.nan})
    return rows


def write_table(rows: list[dict], stem: str) -> str:
    """Write ``rows`` as ``<stem>.csv`` and ``<stem>.md`` (``stem`` a path without suffix); return the Markdown."""
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    columns = list(rows[0])
    with open(f"{stem}.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(f"{row[c]:.4g}" if isinstance(row[c], float) else str(row[c]) for c in columns)
              + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    Path(f"{stem}.md").write_text(text)
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m experiments.bench.act``."""
    parser = argparse.ArgumentParser(prog="python -m experiments.bench.act", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=games.DEFAULT_GAME, choices=tuple(games.names()))
    parser.add_argument("--agents", default="random,greedy,loginf", help="comma-separated specs to time")
    parser.add_argument("--compare", metavar="OLD/NEW", help="time two specs side by side instead, and their ratio")
    parser.add_argument("--against", default=ITSELF,
                        help=f"comma-separated specs at the other seats, {ITSELF!r} for self-play (default {ITSELF})")
    parser.add_argument("--hands", type=int, default=20, help="deals timed per pass (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes; medians are reported (default 3)")
    parser.add_argument("--seats", type=int, help="seats at the table (default: the game's default)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="path stem of the table (default runs/bench/act)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Time the agents (or compare two); print the Markdown table and write it as CSV and Markdown."""
    args = build_parser().parse_args(argv)
    try:
        adapter = games.adapter(args.game)
        n_seats = check_seats(adapter, adapter.DEFAULT_SEATS if args.seats is None else args.seats)
        opponents = [None if spec == ITSELF else spec for spec in args.against.split(",") if spec]
        if args.compare:
            old, sep, new = args.compare.partition("/")
            if not sep or not old or not new:
                raise AgentSpecError(f"--compare {args.compare!r}: write OLD/NEW, e.g. mcts:version=1/mcts")
            specs = [old, new]
        else:
            specs = [spec for spec in args.agents.split(",") if spec]
        for spec in specs + [o for o in opponents if o]:
            make_agent(spec, game=args.game)  # a bad spec fails now, in one line
        rows = []
        for opponent in opponents:
            if args.compare:
                rows += compare_speed(args.game, old, new, n_seats, args.hands, args.seed, opponent, args.repeats)
            else:
                rows += [time_agent(args.game, spec, n_seats, args.hands, args.seed, opponent, args.repeats)
                         for spec in specs]
        print(write_table(rows, args.out))
    except (AgentSpecError, GameInputError, ValueError) as error:
        print(f"act: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
