"""How many rows (hands, games, matches) a second one core plays for a lineup, on each path the runner can take.

    knorri-sim bench --agents "random;greedy;loginf;mcts:iters=100" [--game G] [--hands H] [--repeat 3]
    python -m experiments.bench.lineups [--game G ...] [--agents SPECS ...] [--hands H] [--repeat 3]

The deals are played as ``knorri-sim run`` plays a chunk (``routes.play_matches``, parquet writing left out), once
on each path the lineup can take (``compiled`` and ``reference``; the reference path plays a fiftieth of the
deals). The rate is per CPU second of this process, the median of ``repeat`` timings after an untimed warm-up. The
``python -m`` form times every registered game's lineups (``agents.base.bench_lineups``) and checks that both
paths wrote the same rows. How it times is in docs/internals.md, ``experiments.bench.lineups``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import bench_lineups, resolve_spec
from agents.lineup import parse_lineup, split_agent_specs
from experiments.runner import routes
from experiments.runner.seating import check_specs
from sim import games
from sim.contract import check_seats, plural
from sim.engine_words import COMPILED, REFERENCE, engine_word
from sim.options import option_pairs

PATHS = (COMPILED, REFERENCE)
DEFAULT_COUNT = 2_000
REFERENCE_SHARE = 50
"""The reference path plays ``count // REFERENCE_SHARE`` deals (at least one)."""


def lineup(text: str, seats: int | None, game: str) -> list[str]:
    """The seat specs ``--agents`` names for ``game`` (one spec fills every seat), each checked to make an agent.

    The table has ``seats`` seats if given, else one per spec when several are given, else the game's default.
    """
    adapter = games.adapter(game)
    specs = split_agent_specs(text)
    check_specs(specs, game)  # an unknown agent is named before the seat count its specs imply is checked
    n_seats = check_seats(adapter, seats or (len(specs) if len(specs) > 1 else adapter.DEFAULT_SEATS))
    specs = parse_lineup(specs, n_seats)
    check_specs(specs, game)
    return [resolve_spec(spec, game) for spec in specs]  # resolved once, as a run's config resolves them


def deals_on(path: str, count: int) -> int:
    """The deals a timing of ``path`` plays when the compiled path plays ``count``."""
    return count if path == COMPILED else max(1, count // REFERENCE_SHARE)


def counted(count: int, row: str) -> str:
    """``count`` rows named in the singular or plural as the count needs: ``1 hand``, ``2,000 hands``."""
    return f"{count:,} {row if count == 1 else plural(row)}"


def run_lineup(args: argparse.Namespace, count: int | None) -> int:
    """Time the lineup ``args.agents`` of ``args.game`` on each path it can take and print one line per path."""
    from experiments.commands.common import game_settings
    from experiments.errors import UsageError

    if args.workers is not None:
        raise UsageError("--workers is not for --agents: a lineup is timed on one core, as the runner plays a chunk")
    specs = lineup(args.agents, args.seats, args.game)
    options = game_settings(args.game, len(specs), args.option)[2]
    count = count or DEFAULT_COUNT
    paths = PATHS if args.engine is None else (engine_word(args.engine, PATHS),)
    row = games.adapter(args.game).ROW
    unit = plural(row)
    if not args.json:
        timed = " and ".join(f"{counted(deals_on(path, count), row)} on the {path} path" for path in paths)
        print(f"{games.game(args.game).title}, lineup {';'.join(specs)}: {unit} per CPU second (one core), "
              f"median of {args.repeat} timings after a warm-up; each timing plays {timed}.")
        print(f"{'path':<10} {unit + ' timed':>12} {unit + '/s':>12} {'CPU s':>8} {'wall s':>8} {'warm-up s':>10}")
    rates: dict[str, float] = {}
    for path in paths:
        units = deals_on(path, count)
        case = time_path(args.game, specs, path, units, args.repeat, options)
        if "rate" in case:
            rates[path] = case["rate"]
        if args.json:
            shown = {unit if k == "units" else f"{unit}_per_s" if k == "rate" else k: v for k, v in case.items()}
            print(json.dumps({"game": args.game, "agents": ";".join(specs), "seats": len(specs), "path": path,
                              **shown}), flush=True)
        elif "rate" not in case:
            print(f"{path:<10} not available: {case['unavailable']}", flush=True)
        else:
            print(f"{path:<10} {units:>12,} {case['rate']:>12,.1f} {case['cpu_s']:>8.2f} {case['wall_s']:>8.2f} "
                  f"{case['warm_up_s']:>10.1f}", flush=True)
    if not args.json and len(rates) == 2:
        print(f"compiled / reference: {rates[COMPILED] / rates[REFERENCE]:,.1f}x")
    return 0


def time_path(game: str, specs: Sequence[str], path: str, units: int, repeat: int,
              options: Mapping[str, Any] | None = None, kept: dict[str, Any] | None = None) -> dict:
    """The median rate (deals per CPU second) of ``units`` deals on ``path`` under the game's ``options``, or why
    the path is not available. Timing ``r`` plays seeds ``r * units`` on; ``kept`` (if given) receives the first
    timing's row columns."""
    n_seats = len(specs)

    def played(first: int, count: int) -> tuple[float, Any]:
        seeds = list(range(first, first + count))
        start = time.process_time()
        columns = routes.play_matches(game, n_seats, seeds, [list(specs)] * count, 1, options=options, engine=path)
        return time.process_time() - start, columns

    start = time.perf_counter()
    try:
        played(10**9, min(units, 4))  # the warm-up: compiles or loads the kernels, untimed
    except ValueError as refused:  # the route refuses a path the lineup cannot take
        return {"unavailable": str(refused)}
    warm_up = time.perf_counter() - start
    timings = []
    for r in range(repeat):
        wall = time.perf_counter()
        cpu, columns = played(r * units, units)
        timings.append((cpu, time.perf_counter() - wall))
        if r == 0 and kept is not None:
            kept.update(columns.hands)
    cpu = statistics.median(t for t, _ in timings)
    return {"units": units, "rate": round(units / cpu, 1) if cpu > 0 else float("inf"), "cpu_s": round(cpu, 3),
            "wall_s": round(statistics.median(w for _, w in timings), 3), "warm_up_s": round(warm_up, 2),
            "repeats": repeat}


def same_rows(many: Mapping[str, Any], few: Mapping[str, Any]) -> bool:
    """Whether every column of ``few`` equals the start of ``many``'s, masks included (the deals both played)."""
    if set(many) != set(few):
        return False
    for name, column in few.items():
        count = len(column)
        for part in (np.ma.getdata, np.ma.getmaskarray):
            if not np.array_equal(part(np.asarray(many[name])[:count] if not np.ma.isMaskedArray(many[name])
                                       else many[name][:count]), part(column)):
                return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Time each game's lineups on both paths and print them as one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=games.names(),
                        help="a game to time (repeatable; default every game)")
    parser.add_argument("--agents", action="append", metavar="SPECS",
                        help="a lineup to time instead of those the game's agents name (repeatable; with one --game)")
    parser.add_argument("--hands", type=int, default=DEFAULT_COUNT, metavar="N",
                        help=f"rows per compiled timing (default {DEFAULT_COUNT:,}); the reference path plays a "
                             f"{REFERENCE_SHARE}th")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option every deal is played under, e.g. target_wins=7 (Kort)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    chosen = args.game or games.names()
    if args.agents and len(chosen) != 1:
        parser.error("--agents goes with one --game")
    print(f"Rows per CPU second on one core, median of {args.repeat} timings after a warm-up.\n")
    print("| game | lineup | reference rows timed | reference rows/s | compiled rows timed | compiled rows/s "
          "| compiled / reference | same rows |")
    print("|---|---|---|---|---|---|---|---|")
    for game in chosen:
        options = games.adapter(game).check_options(dict(option_pairs(args.option)))
        for text in args.agents or bench_lineups(game):
            specs = lineup(text, None, game)
            kept: dict[str, dict[str, Any]] = {path: {} for path in PATHS}
            cases = {path: time_path(game, specs, path, deals_on(path, args.hands), args.repeat, options,
                                     kept[path]) for path in PATHS}
            cells = []
            for path in (REFERENCE, COMPILED):
                case = cases[path]
                shown = [f"{case['units']:,}", f"{case['rate']:,.1f}"] if "rate" in case else ["-", "not available"]
                cells += shown
            both = all("rate" in case for case in cases.values())
            ratio = f"{cases[COMPILED]['rate'] / cases[REFERENCE]['rate']:,.0f}×" if both else "-"
            same = ("yes" if same_rows(kept[COMPILED], kept[REFERENCE]) else "NO") if both else "-"
            print(f"| {games.game(game).title} | {';'.join(specs)} | {' | '.join(cells)} | {ratio} | {same} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
