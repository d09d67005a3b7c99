"""Benchmark Kort lineups through the runner's adapter: matches per second per core, compiled path against reference.

    python experiments/bench_kort_lineups.py --lineup "tracker;tracker;tracker;tracker" --matches 20000 \
        --reference-matches 200 --repeat 3

Each repeat plays the same seeds through ``sim.kort.adapter.play_matches`` (what a runner
chunk calls) with ``engine="compiled"`` and ``engine="reference"``, on one core, and counts
the process's CPU time (``time.process_time``), which the machine's other load changes
little. The medians are printed as matches per CPU second. A first small call is made
before timing so that numba's compile (or cache load) is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import time

from experiments.runner import routes


def matches_per_second(lineup: list[str], matches: int, engine: str, options: dict[str, int], repeat: int,
                       first_seed: int = 0) -> list[float]:
    """Matches per CPU second of ``repeat`` runs of ``matches`` matches of ``lineup`` on ``engine``."""
    rates = []
    for _ in range(repeat):
        seeds = list(range(first_seed, first_seed + matches))
        start = time.process_time()
        routes.play_matches("kort", 4, seeds, [lineup] * matches, options=options, engine=engine)
        rates.append(matches / (time.process_time() - start))
    return rates


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, warm up, time both paths and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lineup", action="append", required=True, help="four specs joined by ';' (repeatable)")
    parser.add_argument("--matches", type=int, default=2000, help="matches per compiled repeat")
    parser.add_argument("--reference-matches", type=int, default=100, help="matches per reference repeat")
    parser.add_argument("--target-wins", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    options = {"target_wins": args.target_wins}
    for text in args.lineup:
        lineup = [spec.strip() for spec in text.split(";")]
        routes.play_matches("kort", 4, [0], [lineup], options=options, engine="compiled")  # compile or load the cache
        compiled = matches_per_second(lineup, args.matches, "compiled", options, args.repeat)
        reference = matches_per_second(lineup, args.reference_matches, "reference", options, args.repeat)
        print(f"{text}: compiled {statistics.median(compiled):,.1f} matches/s "
              f"({', '.join(f'{r:,.1f}' for r in compiled)}); reference {statistics.median(reference):,.2f} "
              f"matches/s ({', '.join(f'{r:,.2f}' for r in reference)}); "
              f"x{statistics.median(compiled) / statistics.median(reference):,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
