"""What a league's runs say: each agent's mean score, finishing places and rating at each seat count.

The runs are read chunk by chunk, so memory stays one chunk's whatever a run's size. What a row's finishing order
is comes from the game's adapter (``finishing_places``, ``seat_teams``); nothing here knows a game's rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq

from experiments.analysis import ladder
from experiments.analysis.load import complete_shards
from experiments.runner import storage
from experiments.runner.config import ConfigError
from experiments.runner.summary import SummaryRow, interval_text, summarise
from sim import games
from sim.contract import plural


@dataclass
class SeatCountResult:
    """What the league prints for one seat count."""

    seats: int
    rows: int  # rows read (hands, games or matches)
    deals: int
    seatings: int
    scores: list[SummaryRow]  # mean score per seat-row with its 95% CI (clustered by deal), by agent
    places: pd.DataFrame  # agent, then the share of its seat-rows at each place (1st ...), and the mean place
    ratings: pd.DataFrame  # ``ladder.RATING_COLUMNS``
    seconds: float | None = None  # wall time of playing (or resuming) it and reading it back in this command


def read_finishing_orders(folder: Path, game: str) -> Iterator[tuple[list[str], np.ndarray, np.ndarray, np.ndarray]]:
    """A run's rows in run order, shard by shard (only the columns a finishing order needs), each as (agent names,
    agent codes, deal groups, finishing places): memory stays one chunk's whatever the run's size.

    Codes and places are ``[rows, seats]`` (seats being the table's); the places come from the game
    adapter's ``finishing_places`` over its ``PLACE_COLUMNS``.
    """
    adapter = games.adapter(game)
    paths = complete_shards(folder)  # the finished chunks, each shard checked against its record
    names = pq.read_schema(paths[0]).names
    seats = int((storage.read_manifest(folder) or {})["tables"][0]["seats"])
    wanted = ["hand_index", "deal_group"] + [f"agent_{s}" for s in range(seats)]
    wanted += [f"{column}_{s}" for column in adapter.PLACE_COLUMNS for s in range(seats)]
    missing = [name for name in wanted if name not in names]
    if missing:
        raise ConfigError(f"{str(folder)!r} has no column {missing[0]!r}: not a {adapter.TITLE} run of this version")
    for path in paths:  # a shard is a chunk, and chunks in id order are the rows in run order
        data = pq.read_table(path, columns=wanted, page_checksum_verification=True).sort_by("hand_index")
        agent_names = sorted({name for s in range(seats)
                              for name in data.column(f"agent_{s}").combine_chunks().dictionary.to_pylist()})
        codes = np.empty((data.num_rows, seats), dtype=np.int64)
        for s in range(seats):
            column = data.column(f"agent_{s}").combine_chunks()
            to_ours = np.asarray([agent_names.index(name) for name in column.dictionary.to_pylist()], dtype=np.int64)
            codes[:, s] = to_ours[pc.fill_null(column.indices, 0).to_numpy()]
        per_seat = {column: np.stack([data.column(f"{column}_{s}").to_numpy(zero_copy_only=False)
                                      for s in range(seats)], axis=1) for column in adapter.PLACE_COLUMNS}
        places = np.asarray(adapter.finishing_places(per_seat), dtype=np.int64)
        yield agent_names, codes, data.column("deal_group").to_numpy().astype(np.int64), places


def place_shares(agent_names: list[str], codes: np.ndarray, places: np.ndarray, width: int) -> pd.DataFrame:
    """Each agent's share of its seat-rows at each finishing place 1 to ``width`` (a row per agent; each sums to 1).

    ``width`` is the number of places there are: the seats, or the teams of a partnership game.
    """
    return shares_of(agent_names, place_counts(agent_names, codes, places, width), width)


def place_counts(agent_names: list[str], codes: np.ndarray, places: np.ndarray, width: int) -> np.ndarray:
    """``[agents, width + 1]``: each agent's seat-rows at each place 1 to ``width`` and the sum of their places (the
    last column): counts that add up chunk by chunk."""
    counts = np.zeros((len(agent_names), width + 1), dtype=np.int64)
    for code in range(len(agent_names)):
        held = places[codes == code]
        counts[code, :width] = np.bincount(held, minlength=width + 1)[1:width + 1]
        counts[code, width] = int(held.sum())
    return counts


def shares_of(agent_names: list[str], counts: np.ndarray, width: int) -> pd.DataFrame:
    """``place_shares`` from ``place_counts``."""
    rows = []
    for code, name in enumerate(agent_names):
        held = int(counts[code, :width].sum())
        shares = counts[code, :width] / max(held, 1)
        rows.append({"agent": name, **{place_label(p + 1): float(shares[p]) for p in range(width)},
                     "mean place": counts[code, width] / held if held else float("nan")})
    return pd.DataFrame(rows)


def place_label(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ..."""
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th')}"


def results(folder: Path, game: str) -> SeatCountResult:
    """Mean scores, finishing places and ratings of the run in ``folder`` (its complete chunks), read chunk by
    chunk: the scores from the chunks' summary statistics, places counted and ratings carried over in run order."""
    manifest = storage.read_manifest(folder) or {}
    table = (manifest.get("tables") or [{}])[0]
    adapter = games.adapter(game)
    rater = counts = seat_teams = None
    rows = deals = 0
    for agent_names, codes, deal_group, places in read_finishing_orders(folder, game):
        if rater is None:
            seat_teams = np.asarray(adapter.seat_teams(codes.shape[1]))
            rater = ladder.Rater(agent_names)
            counts = np.zeros((len(agent_names), int(seat_teams.max()) + 2), dtype=np.int64)
        rater.rate(codes, np.tile(seat_teams, (len(codes), 1)), places)
        counts += place_counts(agent_names, codes, places, int(seat_teams.max()) + 1)
        rows += len(codes)
        deals += len(np.unique(deal_group))  # a chunk holds whole deal groups
    scores = sorted(summarise(folder, adapter), key=lambda row: -row.mean_score)
    return SeatCountResult(len(seat_teams), rows, deals, len(table.get("seatings", [])), scores,
                           shares_of(rater.agents, counts, int(seat_teams.max()) + 1), rater.frame())


def format_result(result: SeatCountResult, game: str) -> str:
    """One seat count's block of the league's printout: scores, places and ratings as text tables."""
    adapter = games.adapter(game)
    row, rate_name = adapter.ROW, adapter.OUTCOME[1]
    width = max([len("agent")] + [len(r.agent) for r in result.scores])
    ci_width = max([8] + [len(interval_text(r)) for r in result.scores])
    took = "" if result.seconds is None else f"; {result.seconds:,.1f} s wall in this command"
    lines = [f"== {adapter.TITLE}, {result.seats} seats: {result.seatings} seatings x {result.deals:,} deals = "
             f"{result.rows:,} {plural(row)}{took} ==", "",
             f"{'agent':<{width}}  {'seat-' + plural(row):>12}  {'mean score':>10}  {'95% CI':>{ci_width}}  "
             f"{rate_name:>9}"]
    for r in result.scores:
        lines.append(f"{r.agent:<{width}}  {r.seat_hands:>12,}  {r.mean_score:>+10.3f}  "
                     f"{interval_text(r):>{ci_width}}  {100 * r.outcome_rate:>8.1f}%")
    place_columns = [c for c in result.places.columns if c not in ("agent", "mean place")]
    lines += ["", "finishing places (share of seat-" + plural(row) + "; a tie takes the best place it spans)",
              f"{'agent':<{width}}" + "".join(f"  {c:>6}" for c in place_columns) + f"  {'mean':>5}"]
    by_score = [r.agent for r in result.scores]
    places = result.places.set_index("agent").loc[by_score]
    for agent, entry in places.iterrows():
        lines.append(f"{agent:<{width}}" + "".join(f"  {100 * entry[c]:>5.1f}%" for c in place_columns)
                     + f"  {entry['mean place']:>5.2f}")
    lines += ["", f"{ladder.RATING_NAME}, from each {row}'s finishing order",
              f"{'agent':<{width}}  {'rated':>8}  {'mu':>6}  {'2 sigma':>7}  {'interval':>15}"]
    for entry in result.ratings.itertuples():
        lines.append(f"{entry.agent:<{width}}  {entry.rated:>8,}  {entry.rating:>6.2f}  "
                     f"{2 * entry.sigma:>7.2f}  {entry.low:>6.2f} to {entry.high:>5.2f}")
    return "\n".join(lines)
