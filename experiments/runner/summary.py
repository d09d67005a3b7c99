"""The end-of-run table: per seat count and agent, mean score with a 95% CI, an outcome rate and end shares.

The game's adapter says which column the rate counts (Knorri: ``loser``, a
loss rate; Knockout Whist: ``winner``, a win rate; Kort: the per-seat ``won``,
a win rate) and which end reasons get a share column (Knorri: ``repeat`` and
``cap``, the cut-offs).

Hands of one deal group share their cards (duplicate deals) and an agent may
hold several seats of a hand, so they are not independent draws: the CI is a
cluster-robust one over deal groups (ratio estimator, normal approximation).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import numpy as np
import pyarrow.compute as pc

from experiments.runner.storage import HANDS_DIR, RunFolder
from sim import games
from sim.contract import plural

Z95 = 1.959964


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


def summarise(out: RunFolder | str | os.PathLike, game: str | None = None) -> list[SummaryRow]:
    """Read the run's rows and compute the summary rows, sorted by seat count then agent.

    ``game`` defaults to the one the run's manifest records (Knorri for a manifest without one).
    """
    out = out if isinstance(out, RunFolder) else RunFolder(out)
    if game is None:
        manifest = out.read_manifest()
        game = manifest.get("game", games.DEFAULT_GAME) if isinstance(manifest, dict) else games.DEFAULT_GAME
    adapter = games.adapter(game)
    outcome = adapter.OUTCOME[0]
    per_seat_outcome = any(spec.name == outcome and spec.per_seat for spec in adapter.HAND_COLUMNS)
    has_reasons = any(spec.name == "end_reason" for spec in adapter.HAND_COLUMNS)
    width = _width(out)
    columns = ["table", "deal_group", "n_seats"] + (["end_reason"] if has_reasons else [])
    columns += [f"agent_{i}" for i in range(width)] + [f"score_{i}" for i in range(width)]
    columns += [f"{outcome}_{i}" for i in range(width)] if per_seat_outcome else [outcome]
    data = out.read_table(HANDS_DIR, columns)
    if has_reasons:
        reasons = data.column("end_reason").combine_chunks()
        reason_names, reason_codes = reasons.dictionary.to_pylist(), reasons.indices.to_numpy()
    else:
        reason_names, reason_codes = [], np.zeros(data.num_rows, dtype=np.int64)
    cluster = _dense_clusters(data.column("table").to_numpy(), data.column("deal_group").to_numpy())
    n_seats = data.column("n_seats").to_numpy().astype(np.int64)

    def outcome_hits(seat: int) -> np.ndarray:
        if per_seat_outcome:
            return pc.fill_null(data.column(f"{outcome}_{seat}"), False).to_numpy(zero_copy_only=False)
        return data.column(outcome).to_numpy() == seat

    parts = []
    agent_names: list[str] = []
    for seat in range(width):
        agents = data.column(f"agent_{seat}").combine_chunks()
        agent_names = agents.dictionary.to_pylist()
        present = agents.is_valid().to_numpy(zero_copy_only=False)
        codes = pc.fill_null(agents.indices, 0).to_numpy().astype(np.int64)
        scores = pc.fill_null(data.column(f"score_{seat}"), 0).to_numpy()
        rows = np.flatnonzero(present)
        parts.append((rows, n_seats[rows] * len(agent_names) + codes[rows], scores[rows], outcome_hits(seat)[rows]))
    hand_row = np.concatenate([p[0] for p in parts])
    group = np.concatenate([p[1] for p in parts])
    score = np.concatenate([p[2] for p in parts]).astype(np.float64)
    hit = np.concatenate([p[3] for p in parts])
    result = []
    for key in np.flatnonzero(np.bincount(group)):
        mask = group == key
        seats, agent = divmod(int(key), len(agent_names))
        row = _row(seats, agent_names[agent], score[mask], hit[mask], cluster[hand_row[mask]],
                   hand_row[mask], reason_codes, reason_names)
        hands_held = np.count_nonzero(np.bincount(hand_row[mask]))  # it holds each seat of a row at most once
        # an agent at every seat of a zero-sum game scores 0 on average, which says nothing; a game whose scores
        # do not sum to zero (Ten's tricks) still shows its mean
        every_seat = row.seat_hands == seats * hands_held and row.mean_score == 0.0
        result.append(replace(row, every_seat=every_seat))
    return result


def _dense_clusters(table: np.ndarray, deal_group: np.ndarray) -> np.ndarray:
    """A dense index of (table, deal group): the clusters of the CI."""
    table = table.astype(np.int64)
    sizes = np.zeros(int(table.max()) + 1, dtype=np.int64)
    np.maximum.at(sizes, table, deal_group.astype(np.int64) + 1)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return offsets[table] + deal_group.astype(np.int64)


def _row(seats: int, agent: str, score: np.ndarray, hit: np.ndarray, cluster: np.ndarray,
         hand_row: np.ndarray, reason_codes: np.ndarray, reason_names: list[str]) -> SummaryRow:
    mean = float(score.mean())
    sums = np.bincount(cluster, weights=score)
    counts = np.bincount(cluster).astype(np.float64)
    used = counts > 0
    sums, counts = sums[used], counts[used]
    groups = len(sums)
    if groups > 1:
        residual = sums - mean * counts
        variance = groups / (groups - 1) * float(np.sum(residual**2)) / float(counts.sum()) ** 2
        half_width = Z95 * variance**0.5
    else:
        half_width = float("nan")
    in_hand = np.zeros(len(reason_codes), dtype=bool)
    in_hand[hand_row] = True  # a hand counts once even when the agent holds several seats
    per_reason = np.bincount(reason_codes[in_hand], minlength=len(reason_names))[:len(reason_names)] / in_hand.sum()
    shares = {name: float(share) for name, share in zip(reason_names, per_reason, strict=True)}
    return SummaryRow(seats, agent, len(score), mean, half_width, float(hit.mean()), shares)


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


def _width(out: RunFolder) -> int:
    names = out.read_schema(HANDS_DIR, out.shard_ids(HANDS_DIR)[0]).names
    return sum(1 for name in names if name.startswith("score_"))
