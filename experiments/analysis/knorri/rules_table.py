"""The table of cut-offs under three rule sets side by side, from real runs: the README's table, rebuilt by anyone.

    python -m experiments.analysis.knorri.rules_table DEFAULT_RUN THREEFOLD_RUN NOREPEAT_RUN [...]

Runs come in groups of three of one config and seed: the default rules, a threefold repetition and no repetition
rule. A row per table and rule set gives the hands played, the repeat and cap shares, the median
``cycle_log2_paths`` of the repeat hands and the share of the cut-off hands that ended with no repeat rule (from a
run continued past its cut-offs, or paired with the group's no-repeat run); every figure comes from
``experiments.analysis.knorri.cutoffs`` and ``counterfactual``, in bounded memory. The columns in full are in
docs/internals.md, ``experiments.analysis.knorri.rules_table``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb
import pandas as pd

from experiments.analysis.duck import connect
from experiments.analysis.knorri.counterfactual import PARTIAL_CHECKS, Counterfactual, compare_continued, compare_runs
from experiments.analysis.knorri.cutoffs import CutoffRun, cutoff_shares, loop_anatomy, open_cutoff_run
from experiments.analysis.load import RunFolderError
from sim import games

ENDED = "cut-off hands that ended with no repeat rule"
DIVERGED = "paired cut-off hands that diverged before the cut"
COLUMNS = ("lineup", "seats", "rules", "hands", "repeat %", "cap %", "median log2 paths", ENDED, DIVERGED)


def rules_label(run: CutoffRun) -> str:
    """The rule set a run played under, as the table names it: ``default``, ``repeat=3``, ``repeat=0 cap=20000``
    (only the options that differ from the game's defaults)."""
    defaults = {option.name: option.default for option in games.adapter(run.game).OPTIONS}
    changed = [f"{name}={value}" for name, value in sorted(run.options.items(), key=lambda item: item[0] != "repeat")
               if str(value) != str(defaults.get(name))]
    return " ".join(changed) or "default"


def share_text(row: pd.Series) -> str:
    """A share as a percentage with its 95% interval: ``3.59 (3.47–3.70)``."""
    return f"{100 * row['share']:.2f} ({100 * row['low']:.2f}–{100 * row['high']:.2f})"


def ended_text(outcome: pd.DataFrame) -> str:
    """How many of a table's cut-off hands ended once the repeat rule was off, over those followed so far: played on
    by the run's continuation, or paired and on the cut-off hand's path."""
    cut, paired, diverged, ended = (int(outcome[name].sum()) for name in ("cut", "paired", "diverged", "ended"))
    if cut == 0:
        return "n/a (none cut off)"
    if paired == 0:
        return f"not played yet (of {cut:,})"
    kept = paired - diverged
    if kept == 0:
        return f"n/a (all {paired:,} paired diverged)"
    text = f"{100 * ended / kept:.1f}% of {kept:,}"
    if diverged:
        text += " on the path"
    return text if paired == cut else f"{text} paired (of {cut:,})"


def diverged_text(outcome: pd.DataFrame, cf: Counterfactual) -> str:
    """The share of a table's paired cut-off hands that left the cut-off hand's path before its cut, and the check
    that told (``at least`` where it is partial)."""
    paired, diverged = (int(outcome[name].sum()) for name in ("paired", "diverged"))
    if paired == 0:
        return "n/a (none paired)"
    bound = "at least " if cf.check in PARTIAL_CHECKS else ""
    return f"{bound}{100 * diverged / paired:.1f}% of {paired:,} ({cf.check})"


def median_log2_paths(con: duckdb.DuckDBPyConnection, run: CutoffRun) -> dict[int, float]:
    """Each table's median ``cycle_log2_paths`` over its repeat hands (the loop anatomy's, exact)."""
    summary = loop_anatomy(con, run).summary
    return dict(zip(summary["table"].astype(int), summary["paths_median"].astype(float), strict=True))


def run_rows(run: CutoffRun, counterfactual: CutoffRun | None) -> list[dict[str, object]]:
    """The table's rows for one run (one per lineup and seat count): its cut-off hands followed by its own
    continuation if it has one, else by pairing with ``counterfactual`` if given; the diverged column is the
    pairing's in either case (for a continued run, what pairing alone would have counted on other hands)."""
    with connect() as con:
        shares = cutoff_shares(con, run)
        medians = median_log2_paths(con, run)
        paired = compare_runs(con, run, counterfactual) if counterfactual is not None else None
        cf = compare_continued(con, run) if run.continued else paired
    planned = {int(table["table"]): int(table["hands"]) for table in run.manifest.get("tables", [])}
    rows = []
    for table, part in shares.groupby("table", sort=True):
        by_reason = part.set_index("reason")
        ended = diverged = "n/a"
        if cf is not None:
            ended = ended_text(cf.outcomes[cf.outcomes["table"] == table])
        if paired is not None:
            diverged = diverged_text(paired.outcomes[paired.outcomes["table"] == table], paired)
        hands = int(by_reason.loc["repeat", "hands"])
        median = medians.get(int(table))
        rows.append({
            "lineup": part["lineup"].iloc[0], "seats": int(part["seats"].iloc[0]), "rules": rules_label(run),
            "hands": f"{hands:,}" if hands >= planned.get(int(table), 0) else f"{hands:,} of {planned[int(table)]:,}",
            "repeat %": share_text(by_reason.loc["repeat"]), "cap %": share_text(by_reason.loc["cap"]),
            "median log2 paths": "n/a" if median is None else f"{median:.1f}", ENDED: ended, DIVERGED: diverged,
        })
    return rows


def rules_table(groups: Sequence[tuple[Path, Path, Path]]) -> pd.DataFrame:
    """Every row of every group of runs (default, threefold, no repeat), sorted by lineup, seats and rule set."""
    rows = []
    for default, threefold, norepeat in groups:
        runs = [open_cutoff_run(folder) for folder in (default, threefold, norepeat)]
        for run in runs[:2]:
            rows += run_rows(run, runs[2])
        rows += run_rows(runs[2], None)
    order = {"default": 0, "repeat=3": 1}
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame["_order"] = frame["rules"].map(lambda rules: order.get(rules, 2))
    return frame.sort_values(["lineup", "seats", "_order"], kind="stable").drop(columns="_order")


def markdown(frame: pd.DataFrame) -> str:
    """The table as Markdown, a line a row."""
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + " --- |" * len(frame.columns)]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of the runs named on the command line (groups of three) as Markdown."""
    parser = argparse.ArgumentParser(prog="python -m experiments.analysis.knorri.rules_table", description=__doc__
                                     .split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path,
                        help="run folders in groups of three: default rules, repeat=3, repeat=0 (its counterfactual)")
    args = parser.parse_args(argv)
    if len(args.runs) % 3:
        print(f"rules_table: {len(args.runs)} run folders given; give them in groups of three "
              "(default rules, repeat=3, repeat=0 cap=N)", file=sys.stderr)
        return 2
    groups = [tuple(args.runs[i:i + 3]) for i in range(0, len(args.runs), 3)]
    try:
        print(markdown(rules_table(groups)))
    except (RunFolderError, ValueError) as error:
        print(f"rules_table: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
