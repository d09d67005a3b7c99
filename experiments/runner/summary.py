"""The end-of-run summary: per seat count the table's facts, then per agent its seat-rows, mean score with a 95%
CI and an outcome rate, and a one-line legend of the words a newcomer does not know.

The game's adapter says which column the rate counts (``OUTCOME``), what each end reason means
(``END_REASON_DOCS``) and a seat's score range (``score_range``): nothing here knows a game's rules. The CI is a
cluster-robust one over deal groups, since rows of one deal group share their cards. The table is built from each
chunk's sufficient statistics (``chunk_summary``), stored in its hands shard's footer (``SUMMARY_KEY``), so the
summary of any run costs a few numbers per chunk; a shard without them (an older run) is read for its columns.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from experiments.runner import integrity
from experiments.runner.moments import MOMENTS, cluster_moments, mean_ci
from experiments.runner.storage import HANDS_DIR, RunFolder
from sim import games
from sim.contract import end_reason_meanings, plural

Z95 = 1.959964
SUMMARY_KEY = b"knorri_sim_summary"  # the hands shard's footer key holding its chunk's summary statistics
ChunkSummary = dict  # {"rows": [[seats, agent, n, total, clusters, sq, cross, n_sq, hits, held, {reason: n}], ...],
#                        "tables": [[seats, rows, deal_groups, [table, ...], {reason: n}], ...], "reasons": [...]}


@dataclass(frozen=True)
class SummaryRow:
    """One agent at one seat count."""

    seats: int
    agent: str
    seat_hands: int  # seat-rows: one per seat the agent held in a row
    mean_score: float
    ci95: float
    outcome_rate: float  # share of its seat-rows where the agent is the game's outcome seat (loser, winner)
    reason_shares: dict[str, float]
    every_seat: bool = False  # the agent held every seat of every row it played in, scoring 0 on average (zero-sum)
    deal_groups: int = 0  # the deal groups its seat-rows come from: the CI's independent units


@dataclass(frozen=True)
class SeatCountFacts:
    """What every agent at one seat count shares: the rows played there, from how many deal groups and
    config tables, and how many rows ended by each end reason."""

    seats: int
    rows: int
    deal_groups: int
    tables: int
    reasons: dict[str, int]


@dataclass(frozen=True)
class RunSummary:
    """The summary of a run: each seat count's facts, then its agents' rows (both sorted by seat count)."""

    counts: list[SeatCountFacts]
    agents: list[SummaryRow]


def summary_columns(adapter: ModuleType, width: int) -> list[str]:
    """The hands columns the summary reads of a run of the game ``adapter`` adapts (``width``: its widest table)."""
    outcome = adapter.OUTCOME[0]
    per_seat_outcome = any(spec.name == outcome and spec.per_seat for spec in adapter.HAND_COLUMNS)
    has_reasons = any(spec.name == "end_reason" for spec in adapter.HAND_COLUMNS)
    columns = ["table", "deal_group", "n_seats"] + (["end_reason"] if has_reasons else [])
    columns += [f"agent_{i}" for i in range(width)] + [f"score_{i}" for i in range(width)]
    columns += [f"{outcome}_{i}" for i in range(width)] if per_seat_outcome else [outcome]
    return columns


def distinct_count(values: np.ndarray) -> int:
    """How many different values there are: counted along the array when it is sorted, as a chunk's clusters are,
    and by ``np.unique`` otherwise."""
    if len(values) < 2:
        return len(values)
    if (values[1:] >= values[:-1]).all():
        return int(np.count_nonzero(values[1:] != values[:-1])) + 1
    return len(np.unique(values))


def chunk_summary(data: pa.Table, adapter: ModuleType) -> ChunkSummary:
    """The summary's sufficient statistics of some rows (a chunk's) of the game ``adapter`` adapts: JSON-able, and
    added chunk to chunk.

    Clusters are (table, deal group); a chunk holds whole deal groups, so chunks' statistics add up exactly.
    """
    outcome = adapter.OUTCOME[0]
    per_seat_outcome = f"{outcome}_0" in data.column_names
    width = sum(1 for name in data.column_names if name.startswith("score_"))
    if "end_reason" in data.column_names:
        reasons = data.column("end_reason").combine_chunks()
        reason_names, reason_codes = reasons.dictionary.to_pylist(), reasons.indices.to_numpy()
    else:
        reason_names, reason_codes = [], np.zeros(data.num_rows, dtype=np.int64)
    table = data.column("table").to_numpy().astype(np.int64)
    cluster = table * (1 << 32) + data.column("deal_group").to_numpy().astype(np.int64)
    n_seats = data.column("n_seats").to_numpy().astype(np.int64)
    keys: dict[tuple[int, str], list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for seat in range(width):
        agents = data.column(f"agent_{seat}").combine_chunks()
        names = agents.dictionary.to_pylist()
        present = agents.is_valid().to_numpy(zero_copy_only=False)
        codes = pc.fill_null(agents.indices, 0).to_numpy().astype(np.int64)
        scores = pc.fill_null(data.column(f"score_{seat}"), 0).to_numpy().astype(np.int64)
        if per_seat_outcome:
            hits = pc.fill_null(data.column(f"{outcome}_{seat}"), False).to_numpy(zero_copy_only=False)
        else:
            hits = data.column(outcome).to_numpy() == seat
        combined = n_seats * len(names) + codes
        for key in np.flatnonzero(np.bincount(combined[present])):  # small codes: a count beats a sort
            rows = np.flatnonzero(present & (combined == key))
            seats, code = divmod(int(key), len(names))
            keys.setdefault((seats, names[code]), []).append((rows, scores[rows], hits[rows]))
    tables = []
    for seats in np.flatnonzero(np.bincount(n_seats)):
        at = n_seats == seats
        counts = np.bincount(reason_codes[at], minlength=len(reason_names))[:len(reason_names)]
        tables.append([int(seats), int(at.sum()), distinct_count(cluster[at]), np.unique(table[at]).tolist(),
                       {name: int(c) for name, c in zip(reason_names, counts, strict=True) if c}])
    out = []
    for (seats, agent), parts in sorted(keys.items()):
        rows = np.concatenate([p[0] for p in parts])
        score = np.concatenate([p[1] for p in parts])
        moments = cluster_moments(score, cluster[rows])
        held = np.zeros(data.num_rows, dtype=bool)  # it holds each seat of a row at most once; a row counts once
        held[rows] = True  # for the reasons
        held = np.flatnonzero(held)
        counts = np.bincount(reason_codes[held], minlength=len(reason_names))[:len(reason_names)]
        out.append([seats, agent, *(moments[m] for m in MOMENTS),
                    int(sum(int(p[2].sum()) for p in parts)), len(held),
                    {name: int(c) for name, c in zip(reason_names, counts, strict=True) if c}])
    return {"rows": out, "tables": tables, "reasons": reason_names}


def with_summary(table: pa.Table, adapter: ModuleType) -> pa.Table:
    """The hands table with its ``chunk_summary`` in its schema's metadata, so the shard's footer carries it."""
    columns = [name for name in summary_columns(adapter, _width(table.schema.names)) if name in table.column_names]
    summary = json.dumps(chunk_summary(table.select(columns), adapter), separators=(",", ":"))
    return table.replace_schema_metadata({**(table.schema.metadata or {}), SUMMARY_KEY: summary.encode()})


def shard_summary(out: RunFolder, chunk_id: int, adapter: ModuleType) -> ChunkSummary:
    """A chunk's summary statistics: from its shard's footer, or (an older shard) from its columns."""
    metadata = out.footer(HANDS_DIR, chunk_id)
    stored = (metadata.metadata or {}).get(SUMMARY_KEY) if metadata is not None else None
    if stored is not None and "tables" in (summary := json.loads(stored)):
        return summary  # a footer written before the seat counts' facts were kept is read again from the columns
    names = out.read_schema(HANDS_DIR, chunk_id).names  # through the folder: never pyarrow over a Python file
    table = out.read_shard(HANDS_DIR, chunk_id, summary_columns(adapter, _width(names)))
    return chunk_summary(table, adapter)


def summarise(out: RunFolder | str | os.PathLike, adapter: ModuleType | None = None,
              known: dict[int, ChunkSummary] | None = None) -> list[SummaryRow]:
    """The summary rows of the run's finished shards, sorted by seat count then agent (``summarise_run``'s agents).
    """
    return summarise_run(out, adapter, known).agents


def summarise_run(out: RunFolder | str | os.PathLike, adapter: ModuleType | None = None,
                  known: dict[int, ChunkSummary] | None = None) -> RunSummary:
    """The summary of the run's finished chunks (those its manifest and journal record): each seat count's facts and
    its agents' rows.

    ``known``: chunks' statistics already in hand (the chunks this process just ran), read from no shard.
    ``adapter`` is the run's game's (the caller's config holds it); without it, the adapter of the game the run's
    manifest records (Knorri for a manifest without one) is looked up, once.
    """
    out = out if isinstance(out, RunFolder) else RunFolder(out)
    if adapter is None:
        manifest = out.read_manifest()
        adapter = games.adapter(manifest.get("game", games.DEFAULT_GAME) if isinstance(manifest, dict)
                                else games.DEFAULT_GAME)
    totals: dict[tuple[int, str], list] = {}
    counts: dict[int, list] = {}
    reason_names: list[str] = []
    snapshot = integrity.take_snapshot(out)  # the chunks recorded as finished (a run checks its shards as it goes)
    for chunk_id in sorted(snapshot.records) if snapshot.manifest is not None else out.shard_ids(HANDS_DIR):
        summary = (known or {}).get(chunk_id) or shard_summary(out, chunk_id, adapter)
        reason_names = reason_names or summary["reasons"]
        for seats, agent, *numbers, reasons in summary["rows"]:
            entry = totals.setdefault((seats, agent), [[0] * len(numbers), {}])
            entry[0] = [a + b for a, b in zip(entry[0], numbers, strict=True)]
            _add_counts(entry[1], reasons)
        for seats, rows, groups, tables, reasons in summary["tables"]:
            entry = counts.setdefault(seats, [0, 0, set(), {}])
            entry[0] += rows
            entry[1] += groups  # a chunk holds whole deal groups, so no group is counted twice
            entry[2].update(tables)
            _add_counts(entry[3], reasons)
    facts = [SeatCountFacts(seats, rows, groups, len(tables), {name: reasons.get(name, 0) for name in reason_names})
             for seats, (rows, groups, tables, reasons) in sorted(counts.items())]
    return RunSummary(facts, [_row(seats, agent, numbers, reasons, reason_names)
                              for (seats, agent), (numbers, reasons) in sorted(totals.items())])


def _add_counts(into: dict[str, int], counts: dict[str, int]) -> None:
    for name, count in counts.items():
        into[name] = into.get(name, 0) + count


def _row(seats: int, agent: str, numbers: list[int], reasons: dict[str, int], reason_names: list[str]) -> SummaryRow:
    moments = dict(zip(MOMENTS, numbers[:len(MOMENTS)], strict=True))
    hits, held = numbers[len(MOMENTS):]
    mean, half = mean_ci(moments)
    n = moments["n"]
    shares = {name: reasons.get(name, 0) / held for name in reason_names}
    # an agent at every seat of a zero-sum game scores 0 on average, which says nothing; a game whose scores do not
    # sum to zero (Ten's tricks) still shows its mean
    every_seat = n == seats * held and moments["total"] == 0
    return SummaryRow(seats, agent, n, mean, half, hits / n, shares, every_seat, moments["clusters"])


def format_summary(summary: RunSummary, adapter: ModuleType, options: dict | None = None) -> str:
    """The summary as text: per seat count its facts, then a fixed-width row per agent; last, the legend.

    The rate's name, the end reasons' meanings and the score range are the game's ``adapter``'s; ``options`` are the
    run's, which the legend's meanings quote (its own cap, not the default).
    """
    row = adapter.ROW
    rate_name = adapter.OUTCOME[1]
    name_width = max([len("agent")] + [len(r.agent) for r in summary.agents])
    seat_rows = "seat-" + plural(row)
    count_width = max(11, len(seat_rows))
    intervals = {id(r): interval_text(r) for r in summary.agents}
    ci_width = max([len("95% CI")] + [len(text) for text in intervals.values()])
    lines: list[str] = []
    for facts in summary.counts:
        if lines:
            lines.append("")
        low, high = adapter.score_range(facts.seats)
        tables = f" ({facts.tables} tables)" if facts.tables > 1 else ""
        groups = f"{facts.deal_groups:,} deal group" + ("s" if facts.deal_groups != 1 else "")
        rows = plural(row) if facts.rows != 1 else row
        lines.append(f"{facts.seats} seats{tables}: {facts.rows:,} {rows} from {groups}; "
                     f"a seat scores from {_score(low)} (worst) to {_score(high)} (best) per {row}")
        if facts.reasons:
            lines.append("  ended by: " + ", ".join(f"{name} {_percent(count, facts.rows)}"
                                                    for name, count in facts.reasons.items()))
        header = (f"  {'agent':<{name_width}}  {seat_rows:>{count_width}}  {'mean score':>10}  "
                  f"{'95% CI':>{ci_width}}  {rate_name:>9}")
        lines += [header, "  " + "-" * (len(header) - 2)]
        for r in (r for r in summary.agents if r.seats == facts.seats):
            mean = "-" if r.every_seat else format(r.mean_score, "+.3f")
            lines.append(f"  {r.agent:<{name_width}}  {r.seat_hands:>{count_width},}  {mean:>10}  "
                         f"{intervals[id(r)]:>{ci_width}}  {100 * r.outcome_rate:>8.2f}%")
    lines.append(legend(adapter, any(r.every_seat for r in summary.agents), options))
    return "\n".join(lines)


def interval_text(r: SummaryRow) -> str:
    """A row's 95% half-width as the summary prints it (``±0.123``), or ``n/a`` with the reason it has none."""
    if r.every_seat:
        return "n/a (every seat)"
    if math.isnan(r.ci95):
        return "n/a (one deal group)" if r.deal_groups < 2 else "n/a"
    return "±" + format(r.ci95, ".3f")


def legend(adapter: ModuleType, every_seat: bool = False, options: dict | None = None) -> str:
    """One line naming what the summary's words mean, in the words of the game ``adapter`` adapts: a seat-row, each
    end reason (with the run's ``options`` it names), the CI (and, when ``every_seat``, why such an agent shows no
    mean)."""
    row = adapter.ROW
    parts = [f"seat-{plural(row)} = one per seat of each {row} (an agent at two seats of a {row} counts twice)",
             *(f"{name} = {meaning}" for name, meaning in end_reason_meanings(adapter, options).items()),
             f"95% CI = over deal groups (the {plural(row)} every seating plays on the same deals count as one "
             "sample)"]
    if every_seat:
        parts.append(f"- and n/a (every seat) = the agent held every seat, so its mean is 0 (a {row} sums to "
                     "zero): seat different agents together to compare them")
    return "Legend: " + "; ".join(parts) + "."


def _score(value: float) -> str:
    return "0" if value == 0 else format(value, "+g")


def _percent(count: int, total: int) -> str:
    return f"{100 * count / total:.2f}%" if total else "n/a"


def _width(names: list[str]) -> int:
    return sum(1 for name in names if name.startswith("score_"))
