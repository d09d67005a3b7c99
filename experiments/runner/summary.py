"""The end-of-run table: per seat count and agent, mean score with a 95% CI, an outcome rate and end shares.

The game's adapter says which column the rate counts (Knorri: ``loser``, a
loss rate; Knockout Whist: ``winner``, a win rate; Kort: the per-seat ``won``,
a win rate) and which end reasons get a share column (Knorri: ``repeat`` and
``cap``, the cut-offs).

Hands of one deal group share their cards (duplicate deals) and an agent may
hold several seats of a hand, so they are not independent draws: the CI is a
cluster-robust one over deal groups (ratio estimator, normal approximation).

The table is built from each chunk's sufficient statistics (``chunk_summary``: per
seat count and agent, the cluster moments of its scores, its outcome hits, the
rows it sat in and their end reasons), which the worker computes as it builds
the chunk and stores in the hands shard's footer (``SUMMARY_KEY``). Summing them
costs a few numbers per chunk, so the summary of any run fits in a few megabytes;
a shard without them (an older run) is read for its columns alone, one at a time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from experiments.runner.moments import MOMENTS, cluster_moments, mean_ci
from experiments.runner.storage import HANDS_DIR, RunFolder
from sim import games
from sim.contract import plural

Z95 = 1.959964
SUMMARY_KEY = b"knorri_sim_summary"  # the hands shard's footer key holding its chunk's summary statistics
ChunkSummary = dict  # {"rows": [[seats, agent, n, total, clusters, sq, cross, n_sq, hits, held, {reason: n}], ...]}


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


def summary_columns(game: str, width: int) -> list[str]:
    """The hands columns the summary reads (``width``: the run's widest table)."""
    adapter = games.adapter(game)
    outcome = adapter.OUTCOME[0]
    per_seat_outcome = any(spec.name == outcome and spec.per_seat for spec in adapter.HAND_COLUMNS)
    has_reasons = any(spec.name == "end_reason" for spec in adapter.HAND_COLUMNS)
    columns = ["table", "deal_group", "n_seats"] + (["end_reason"] if has_reasons else [])
    columns += [f"agent_{i}" for i in range(width)] + [f"score_{i}" for i in range(width)]
    columns += [f"{outcome}_{i}" for i in range(width)] if per_seat_outcome else [outcome]
    return columns


def chunk_summary(data: pa.Table, game: str) -> ChunkSummary:
    """The summary's sufficient statistics of some rows (a chunk's): JSON-able, and added chunk to chunk.

    Clusters are (table, deal group); a chunk holds whole deal groups, so chunks' statistics add up exactly.
    """
    adapter = games.adapter(game)
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
        for key in np.unique(combined[present]):
            rows = np.flatnonzero(present & (combined == key))
            seats, code = divmod(int(key), len(names))
            keys.setdefault((seats, names[code]), []).append((rows, scores[rows], hits[rows]))
    out = []
    for (seats, agent), parts in sorted(keys.items()):
        rows = np.concatenate([p[0] for p in parts])
        score = np.concatenate([p[1] for p in parts])
        moments = cluster_moments(score, cluster[rows])
        held = np.unique(rows)  # it holds each seat of a row at most once; a row counts once for the reasons
        counts = np.bincount(reason_codes[held], minlength=len(reason_names))[:len(reason_names)]
        out.append([seats, agent, *(moments[m] for m in MOMENTS),
                    int(sum(int(p[2].sum()) for p in parts)), len(held),
                    {name: int(c) for name, c in zip(reason_names, counts, strict=True) if c}])
    return {"rows": out, "reasons": reason_names}


def with_summary(table: pa.Table, game: str) -> pa.Table:
    """The hands table with its ``chunk_summary`` in its schema's metadata, so the shard's footer carries it."""
    columns = [name for name in summary_columns(game, _width(table.schema.names)) if name in table.column_names]
    summary = json.dumps(chunk_summary(table.select(columns), game), separators=(",", ":"))
    return table.replace_schema_metadata({**(table.schema.metadata or {}), SUMMARY_KEY: summary.encode()})


def shard_summary(out: RunFolder, chunk_id: int, game: str) -> ChunkSummary:
    """A chunk's summary statistics: from its shard's footer, or (an older shard) from its columns."""
    metadata = out._metadata(HANDS_DIR, chunk_id)
    stored = (metadata.metadata or {}).get(SUMMARY_KEY) if metadata is not None else None
    if stored is not None:
        return json.loads(stored)
    names = out.read_schema(HANDS_DIR, chunk_id).names  # through the folder: never pyarrow over a Python file
    table = out.read_shard(HANDS_DIR, chunk_id, summary_columns(game, _width(names)))
    return chunk_summary(table, game)


def summarise(out: RunFolder | str | os.PathLike, game: str | None = None,
              known: dict[int, ChunkSummary] | None = None) -> list[SummaryRow]:
    """The summary rows of the run's finished shards, sorted by seat count then agent.

    ``known``: chunks' statistics already in hand (the chunks this process just ran), read from no shard.
    ``game`` defaults to the one the run's manifest records (Knorri for a manifest without one).
    """
    out = out if isinstance(out, RunFolder) else RunFolder(out)
    if game is None:
        manifest = out.read_manifest()
        game = manifest.get("game", games.DEFAULT_GAME) if isinstance(manifest, dict) else games.DEFAULT_GAME
    totals: dict[tuple[int, str], list] = {}
    reason_names: list[str] = []
    for chunk_id in out.shard_ids(HANDS_DIR):
        summary = (known or {}).get(chunk_id) or shard_summary(out, chunk_id, game)
        reason_names = reason_names or summary["reasons"]
        for seats, agent, *numbers, reasons in summary["rows"]:
            entry = totals.setdefault((seats, agent), [[0] * len(numbers), {}])
            entry[0] = [a + b for a, b in zip(entry[0], numbers, strict=True)]
            for name, count in reasons.items():
                entry[1][name] = entry[1].get(name, 0) + count
    return [_row(seats, agent, numbers, reasons, reason_names)
            for (seats, agent), (numbers, reasons) in sorted(totals.items())]


def _row(seats: int, agent: str, numbers: list[int], reasons: dict[str, int], reason_names: list[str]) -> SummaryRow:
    moments = dict(zip(MOMENTS, numbers[:len(MOMENTS)], strict=True))
    hits, held = numbers[len(MOMENTS):]
    mean, half = mean_ci(moments)
    n = moments["n"]
    shares = {name: reasons.get(name, 0) / held for name in reason_names}
    # an agent at every seat of a zero-sum game scores 0 on average, which says nothing; a game whose scores do not
    # sum to zero (Ten's tricks) still shows its mean
    every_seat = n == seats * held and moments["total"] == 0
    return SummaryRow(seats, agent, n, mean, half, hits / n, shares, every_seat)


def format_summary(rows: list[SummaryRow], game: str = games.DEFAULT_GAME) -> str:
    """The summary as a fixed-width text table, its rate and share columns named as the game's adapter says."""
    adapter = games.adapter(game)
    rate_name, reasons = adapter.OUTCOME[1], adapter.SUMMARY_REASONS
    name_width = max([len("agent")] + [len(r.agent) for r in rows])
    rows_name = "seat-" + plural(adapter.ROW)
    count_width = max(11, len(rows_name))
    header = (f"{'seats':>5}  {'agent':<{name_width}}  {rows_name:>{count_width}}  {'mean score':>10}  "
              f"{'95% CI':>8}  {rate_name:>9}" + "".join(f"  {name:>7}" for name in reasons))
    lines = [header, "-" * len(header)]
    for r in rows:
        shares = "".join(f"  {100 * r.reason_shares.get(name, 0.0):6.2f}%" for name in reasons)
        mean, ci = ("-", "-") if r.every_seat else (format(r.mean_score, "+.3f"), "±" + format(r.ci95, ".3f"))
        lines.append(f"{r.seats:>5}  {r.agent:<{name_width}}  {r.seat_hands:>{count_width},}  {mean:>10}  "
                     f"{ci:>8}  {100 * r.outcome_rate:>8.2f}%{shares}")
    if any(r.every_seat for r in rows):
        lines.append(f"-: the agent held every seat, so its mean score is 0 (a {adapter.ROW} sums to zero); "
                     "seat different agents together to compare them")
    return "\n".join(lines)


def _width(names: list[str]) -> int:
    return sum(1 for name in names if name.startswith("score_"))
