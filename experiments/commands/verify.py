"""``knorri-sim verify RUN``: check every byte of a run folder against what its writer recorded, as ``git fsck`` does.

Every shard's SHA-256, row count and run id against its chunk's record, the
journal against the manifest, each hands shard's place in the plan, shards no
record lists, and the code that would play a repair against the run's
(``experiments.runner.verify.inspect_run``). One line per problem, then a
summary; exit code 0 when the run is intact, 1 when it is not. ``--repair``
plays the damaged chunks again, and only those, into new shards put in place
whole, as an uninterrupted run would have written them.
"""

from __future__ import annotations

import argparse
import sys

from experiments.compile_notice import claim
from experiments.runner import fingerprint, verify
from experiments.runner.compiling import code_to_compile, compile_notice
from experiments.runner.config import ConfigError
from experiments.runner.execute import RunStopped, execute, plan_run, run_tables, workers_for
from experiments.runner.stored import stored_run
from experiments.runner.verify import Findings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``verify``."""
    parser.add_argument("run_dir", metavar="RUN", help="a run folder written by knorri-sim run")
    parser.add_argument("--repair", action="store_true",
                        help="play the damaged chunks again (only those; the code must be the run's), each into a "
                             "new shard put in place whole, then check again")
    parser.add_argument("--accept-changes", action="store_true",
                        help="with --repair: play the damaged chunks although the code changed since the run was "
                             "made (refused otherwise; the change is recorded in the manifest)")
    parser.add_argument("--workers", type=int, metavar="W", help="with --repair: local worker processes")


def run(args: argparse.Namespace) -> int:
    """Check the run and print what was found; with ``--repair``, play the damaged chunks again and check again."""
    config, out, manifest = stored_run(args.run_dir, "verify", args.workers)
    plan = plan_run(config, manifest["chunk_hands"])
    tables = run_tables(config)
    found = verify.inspect_run(out, plan.chunks, tables, plan.code)
    if not args.repair or not found.damaged:
        _say(found, out.location, len(plan.chunks), args.repair)
        return 1 if found.problems else 0
    for line in found.problems:
        print(line)
    changed = fingerprint.changes(manifest.get("code"), plan.code)
    if changed and not args.accept_changes:
        raise ConfigError(f"verify --repair {out.location!r}: the code that plays this run changed since its chunks "
                          f"were made ({'; '.join(changed)}), so a chunk played again would not be the one lost: "
                          "repair it with the run's code, or add --accept-changes (the change is recorded in the "
                          "manifest); nothing was touched")
    plan.manifest = manifest
    notice = compile_notice(code_to_compile(config, plan.tables))
    with workers_for(config) as workers:
        try:
            execute(plan, out, workers, progress=False, resumed=True, only=found.damaged,
                    compile_first=bool(notice), accept_changes=args.accept_changes, announce=claim(notice))
        except RunStopped as error:
            print(f"knorri-sim: error: {error}", file=sys.stderr)
            return 1
    print(f"played again: chunk{'s' if len(found.damaged) > 1 else ''} {_ids(found.damaged)}")
    again = verify.inspect_run(out, plan.chunks, tables, plan.code)
    _say(again, out.location, len(plan.chunks), False)
    return 1 if again.problems else 0


def _say(found: Findings, location: str, total: int, repairing: bool) -> None:
    """A line per problem and note, then the summary."""
    for line in [*found.problems, *found.notes]:
        print(line)
    checked = (f"{location}: {found.finished} of {total} chunks intact ({found.shards} shards, "
               f"{found.size / 1e6:,.1f} MB checked)")
    if not found.problems:
        print(f"{checked}: no problems")
        return
    count = f"{len(found.problems)} problem{'s' if len(found.problems) > 1 else ''}"
    if found.damaged and not repairing:
        print(f"{checked}: {count}; knorri-sim verify {location} --repair plays chunk"
              f"{'s' if len(found.damaged) > 1 else ''} {_ids(found.damaged)} again")
    else:
        print(f"{checked}: {count}")


def _ids(chunks: set[int]) -> str:
    ordered = sorted(chunks)
    return ", ".join(map(str, ordered[:-1])) + (" and " if len(ordered) > 1 else "") + str(ordered[-1])
