"""Strength and speed of Knorri agents, measured on duplicate deals; anyone can rerun it.

Strength: one agent (the hero) against copies of another at every other seat.
Each deal is played once per seat rotation (the hero at seat 0, then 1, ...),
always from the same seed, so luck of the cards cancels across rotations. A
deal's sample is the hero's mean score over its rotations; the table gives the
mean over deals with a 95% confidence interval (normal, 1.96 standard errors).
Scores sum to zero per hand, so a hero no stronger than its opponents averages
0, and an interval above 0 means the hero is significantly stronger.

Tables go to ``<out>.csv`` and ``<out>.md`` (``--out``, a path stem: ``runs/ladder/ladder`` unless
given, so a trial never overwrites the committed tables; ``--out experiments/results/ladder``
refreshes those). Every finished deal is appended to a journal, ``<out>_deals/<pairing>.csv``;
a rerun plays only the deals the journal lacks, so a long pairing can be stopped
(or cut by ``--time-limit``) and continued. ``wall_s`` is then the deals' summed
seconds divided by the workers: the wall time the pairing takes on that many.

Speed: decisions per second of each agent playing against copies of itself
(CPU time inside ``act`` only), and for MCTS the seconds per decision at given
iteration budgets (median over timed passes, after an untimed warm-up hand).
``--compare OLD/NEW`` times two specs in one process, their passes in turn, and
gives NEW's time over OLD's, in self-play and against the ``--against`` seats.

    python -m experiments.ladder strength --pair greedy/random --pair loginf/greedy --deals 2000
    python -m experiments.ladder strength --pair mcts/loginf --deals 2000 --time-limit 3000 \
        --out experiments/results/ladder_mcts
    python -m experiments.ladder speed --agents random,greedy,loginf --mcts-iters 100,1000
    python -m experiments.ladder speed --compare mcts:version=1/mcts --hands 3 --repeats 5
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from joblib import Parallel, delayed

from agents.base import AgentSpecError, make_agent
from sim.errors import GameInputError
from sim.knorri.reference import KnorriHand, check_seats
from sim.rng import derive_seed
from sim.seating import play_with_agents

DEFAULT_OUT = Path("runs") / "ladder"  # where tables go unless --out says otherwise


def deal_seed(base_seed: int, deal: int) -> int:
    """The seed of duplicate deal number ``deal``."""
    return derive_seed(base_seed, deal)


def duplicate_deal(hero: str, opponent: str, n_seats: int, seed: int) -> tuple[float, int, float]:
    """Play one deal at every hero seat; return the hero's mean score, decisions and seconds."""
    total, decisions, start = 0, 0, time.perf_counter()
    for hero_seat in range(n_seats):
        agents = [make_agent(hero if seat == hero_seat else opponent, seed) for seat in range(n_seats)]
        hand = play_with_agents(KnorriHand.from_seed(n_seats, seed), agents, seed)
        total += hand.scores[hero_seat]
        decisions += len(hand.decisions)
    return total / n_seats, decisions, time.perf_counter() - start


def _deal_chunk(hero: str, opponent: str, n_seats: int, seeds: Sequence[int]) -> list[tuple[float, int, float]]:
    return [duplicate_deal(hero, opponent, n_seats, seed) for seed in seeds]


def mean_ci(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% confidence interval."""
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))


def journal_path(stem: str, hero: str, opponent: str, n_seats: int, base_seed: int) -> Path:
    """Where a pairing's per-deal results are kept, so that a stopped run picks up where it was."""
    name = re.sub(r"[^A-Za-z0-9=,.]+", "_", f"{hero}__vs__{opponent}__{n_seats}seats__seed{base_seed}")
    return Path(f"{stem}_deals") / f"{name}.csv"


def read_journal(path: Path) -> dict[int, tuple[float, int, float]]:
    """Deal number -> (hero mean, decisions, seconds) for every deal the journal holds."""
    if not path.exists():
        return {}
    with open(path, newline="") as handle:
        return {int(row["deal"]): (float(row["hero_mean"]), int(row["decisions"]), float(row["seconds"]))
                for row in csv.DictReader(handle)}


def append_journal(path: Path, results: dict[int, tuple[float, int, float]]) -> None:
    """Add finished deals to the journal (header written when the file is new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new_file = not path.exists()
    with open(path, "a", newline="") as handle:
        writer = csv.writer(handle)
        if new_file:
            writer.writerow(["deal", "hero_mean", "decisions", "seconds"])
        for deal in sorted(results):
            score, decisions, seconds = results[deal]
            writer.writerow([deal, repr(score), decisions, round(seconds, 4)])


def run_pairing(hero: str, opponent: str, n_seats: int, deals: int, base_seed: int, workers: int,
                time_limit: float = 0.0, journal: Path | None = None) -> dict:
    """Play ``deals`` duplicate deals of ``hero`` against ``opponent``; return one table row.

    With a ``time_limit`` (seconds), deals are played in blocks and no new block starts
    after the limit: the row then reports the deals actually played (always deals
    0, 1, 2, ... of the base seed, so a shorter run is a prefix of a longer one).
    With a ``journal`` file, each block's deals are appended to it as they finish and
    deals already in it are not played again: a stopped or time-limited run resumes.
    """
    done = read_journal(journal) if journal else {}
    todo = [d for d in range(deals) if d not in done]
    block = max(1, workers * 8) if time_limit > 0 or journal else max(1, len(todo))
    start = time.perf_counter()
    played = 0
    with Parallel(n_jobs=workers) as parallel:
        for first in range(0, len(todo), block):
            if time_limit > 0 and played and time.perf_counter() - start > time_limit:
                break
            part = todo[first:first + block]
            n_chunks = max(1, min(len(part), workers * 4))
            chunks = [c for c in (part[i::n_chunks] for i in range(n_chunks)) if c]
            outputs = parallel(delayed(_deal_chunk)(hero, opponent, n_seats, [deal_seed(base_seed, d) for d in c])
                               for c in chunks)
            finished = {d: r for chunk, out in zip(chunks, outputs, strict=True)
                        for d, r in zip(chunk, out, strict=True)}
            if journal:
                append_journal(journal, finished)
            done.update(finished)
            played += len(finished)
    wall = time.perf_counter() - start
    prefix = []
    for d in range(deals):  # the table reports deals 0, 1, 2, ... with no gap
        if d not in done:
            break
        prefix.append(done[d])
    mean, half = mean_ci([score for score, _, _ in prefix])
    return {
        "hero": hero, "opponent": opponent, "seats": n_seats, "deals": len(prefix),
        "hands": len(prefix) * n_seats, "hero_mean": round(mean, 4), "ci95": round(half, 4),
        "low": round(mean - half, 4), "high": round(mean + half, 4),
        "significant": "yes" if mean - half > 0 or mean + half < 0 else "no",
        "wall_s": round(sum(seconds for _, _, seconds in prefix) / max(1, workers) if journal else wall, 1),
    }


def _timed_pass(spec: str, n_seats: int, indices: Sequence[int], base_seed: int,
                opponent: str | None) -> list[tuple[float, bool]]:
    """CPU seconds of every ``act`` call of ``spec`` over the hands ``indices`` (at every seat, or at seat 0
    against ``opponent``), each with whether it had two or more legal ids."""
    calls: list[tuple[float, bool]] = []

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
        seed = deal_seed(base_seed, 10_000 + index)
        if opponent is None:
            agents = [timed(make_agent(spec, seed)) for _ in range(n_seats)]
        else:
            agents = [timed(make_agent(spec, seed))] + [make_agent(opponent, seed) for _ in range(n_seats - 1)]
        play_with_agents(KnorriHand.from_seed(n_seats, seed), agents, seed)
    return calls


def _speed_row(spec: str, n_seats: int, passes: list[list[tuple[float, bool]]], opponent: str | None) -> dict:
    """A speed table row from timed passes: medians over passes of the mean per call, and of the calls with a
    choice."""
    means = [sum(t for t, _ in calls) / max(1, len(calls)) for calls in passes]
    choices = [t for calls in passes for t, choice in calls if choice]
    per = statistics.median(means)
    return {"agent": spec, "seats": n_seats, "opponent": opponent or "itself", "decisions": len(passes[-1]),
            "repeats": len(passes), "s_per_decision": per, "decisions_per_s": (1 / per) if per else math.inf,
            "s_per_choice": statistics.median(choices) if choices else 0.0}


def time_agent(spec: str, n_seats: int, hands: int, base_seed: int, opponent: str | None = None,
               repeats: int = 3) -> dict:
    """CPU seconds inside ``act`` per decision of ``spec``: at every seat, or at seat 0 against ``opponent``.

    CPU time, not wall time: on a shared machine the wall clock counts other work too.
    One untimed hand first (loading compiled code), then ``repeats`` timed passes over the
    same ``hands`` hands. ``s_per_decision`` is the median over passes of the mean over
    all calls (one legal id included); ``s_per_choice`` is the median time of the calls
    with two or more legal ids, where a search agent actually searches.
    """
    _timed_pass(spec, n_seats, [hands], base_seed, opponent)  # warm-up, untimed
    passes = [_timed_pass(spec, n_seats, range(hands), base_seed, opponent) for _ in range(max(1, repeats))]
    return _speed_row(spec, n_seats, passes, opponent)


def compare_speed(old: str, new: str, n_seats: int, hands: int, base_seed: int, opponent: str | None = None,
                  repeats: int = 3) -> list[dict]:
    """``time_agent`` for two specs in one process, their timed passes taken in turn (old then new, then new then
    old, ...) so that a change in the machine's load falls on both alike; the third row is new over old."""
    for spec in (old, new):
        _timed_pass(spec, n_seats, [hands], base_seed, opponent)  # warm-up, untimed
    passes: dict[str, list[list[tuple[float, bool]]]] = {old: [], new: []}
    for repeat in range(max(1, repeats)):
        for spec in ((old, new) if repeat % 2 == 0 else (new, old)):
            passes[spec].append(_timed_pass(spec, n_seats, range(hands), base_seed, opponent))
    rows = [_speed_row(spec, n_seats, passes[spec], opponent) for spec in (old, new)]
    rows.append({"agent": f"{new} / {old}", "seats": n_seats, "opponent": opponent or "itself",
                 "decisions": rows[1]["decisions"], "repeats": max(1, repeats),
                 "s_per_decision": rows[1]["s_per_decision"] / rows[0]["s_per_decision"],
                 "decisions_per_s": rows[1]["decisions_per_s"] / rows[0]["decisions_per_s"],
                 "s_per_choice": (rows[1]["s_per_choice"] / rows[0]["s_per_choice"]) if rows[0]["s_per_choice"]
                 else math.nan})
    return rows


def write_table(rows: list[dict], stem: str, append: bool = False) -> str:
    """Write ``rows`` as ``<stem>.csv`` and ``<stem>.md`` (``stem`` a path without suffix); return the Markdown.

    With ``append``, rows already in ``<stem>.csv`` (same columns) are kept before the new ones,
    except those a new row measures again (same agents and seats), which it replaces.
    """
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    columns = list(rows[0])
    path = Path(f"{stem}.csv")
    if append and path.exists():
        with open(path, newline="") as handle:
            kept = list(csv.DictReader(handle))
        if kept and list(kept[0]) != columns:
            raise ValueError(f"--append: {path.name} has other columns than this table")
        key_columns = [c for c in ("hero", "opponent", "agent", "seats") if c in columns]
        fresh = {tuple(str(row[c]) for c in key_columns) for row in rows}
        rows = [row for row in kept if tuple(row[c] for c in key_columns) not in fresh] + rows
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(_fmt(row[c]) for c in columns) + " |")
    text = "\n".join(lines) + "\n"
    Path(f"{stem}.md").write_text(text)
    return text


def _fmt(value: object) -> str:
    if isinstance(value, str) and "." in value:  # a number read back from a CSV (--append)
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def build_parser() -> argparse.ArgumentParser:
    """The ladder's command line."""
    parser = argparse.ArgumentParser(prog="python -m experiments.ladder", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    strength = sub.add_parser("strength", help="duplicate-deal strength of hero/opponent pairings")
    strength.add_argument("--pair", action="append", required=True,
                          help="HERO/OPPONENT agent specs, e.g. loginf/greedy (repeat for more pairings)")
    strength.add_argument("--deals", type=int, default=2000, help="duplicate deals per pairing (default 2000)")
    strength.add_argument("--seats", type=int, default=4, help="seats, 3 to 6 (default 4)")
    strength.add_argument("--seed", type=int, default=2024, help="base seed of the deals (default 2024)")
    strength.add_argument("--workers", type=int, default=2, help="joblib worker processes (default 2)")
    strength.add_argument("--out", default=str(DEFAULT_OUT / "ladder"),
                          help="path stem of the table and journals (default runs/ladder/ladder; "
                               "experiments/results/ladder refreshes the committed table)")
    strength.add_argument("--append", action="store_true", help="keep the rows already in the --out table")
    strength.add_argument("--time-limit", type=float, default=0.0,
                          help="seconds per pairing: start no new block of deals after this (default 0, no limit)")
    speed = sub.add_parser("speed", help="decisions per second of each agent")
    speed.add_argument("--agents", default="random,greedy,loginf", help="comma-separated specs (self-play)")
    speed.add_argument("--mcts-iters", default="100,1000", help="MCTS budgets to time against greedy")
    speed.add_argument("--hands", type=int, default=20, help="hands per agent (default 20)")
    speed.add_argument("--mcts-hands", type=int, default=2, help="hands per MCTS budget (default 2)")
    speed.add_argument("--repeats", type=int, default=3, help="timed passes; medians are reported (default 3)")
    speed.add_argument("--compare", metavar="OLD/NEW",
                       help="time two specs side by side instead, their passes in turn (e.g. mcts:version=1/mcts), "
                            "in self-play and against each --against opponent; adds a NEW / OLD ratio row")
    speed.add_argument("--against", default="greedy",
                       help="with --compare: comma-separated opponents at the other seats besides self-play "
                            "(default greedy; '' for self-play only)")
    speed.add_argument("--seats", type=int, default=4)
    speed.add_argument("--seed", type=int, default=7)
    speed.add_argument("--out", default=str(DEFAULT_OUT / "speed"),
                       help="path stem of the table (default runs/ladder/speed; experiments/results/speed refreshes "
                            "the committed table)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ladder or the speed table; print Markdown and write CSV + Markdown."""
    args = build_parser().parse_args(argv)
    try:
        n_seats = check_seats(args.seats)
        if args.command == "strength":
            rows = []
            for pair in args.pair:
                hero, sep, opponent = pair.partition("/")
                if not sep:
                    raise AgentSpecError(f"--pair {pair!r}: write HERO/OPPONENT, e.g. loginf/greedy")
                make_agent(hero), make_agent(opponent)  # a bad spec fails now, in one line
                journal = journal_path(args.out, hero, opponent, n_seats, args.seed)
                rows.append(run_pairing(hero, opponent, n_seats, args.deals, args.seed, args.workers,
                                        args.time_limit, journal))
                print(f"done {hero} vs {opponent}: {rows[-1]}", file=sys.stderr)
            print(write_table(rows, args.out, args.append))
        elif args.compare:
            old, sep, new = args.compare.partition("/")
            if not sep or not old or not new:
                raise AgentSpecError(f"--compare {args.compare!r}: write OLD/NEW, e.g. mcts:version=1/mcts")
            make_agent(old), make_agent(new)  # a bad spec fails now, in one line
            rows = []
            for opponent in [None, *(spec for spec in args.against.split(",") if spec)]:
                if opponent:
                    make_agent(opponent)
                rows.extend(compare_speed(old, new, n_seats, args.hands, args.seed, opponent, args.repeats))
            print(write_table(rows, args.out))
        else:
            rows = [time_agent(spec, n_seats, args.hands, args.seed, repeats=args.repeats)
                    for spec in args.agents.split(",") if spec]
            for iters in [int(i) for i in args.mcts_iters.split(",") if i]:
                rows.append(time_agent(f"mcts:iters={iters}", n_seats, args.mcts_hands, args.seed, "greedy",
                                       args.repeats))
            print(write_table(rows, args.out))
    except (AgentSpecError, GameInputError, ValueError) as error:
        print(f"ladder: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
