"""Loading a Knorri run folder for analysis: the complete shards as two tidy tables.

The checks and the shard reading are every game's (``experiments.analysis.load``). Two tables come out:

- ``hands``: one row per hand (seat count, table, deal group, why it ended, how long phase 2 ran, ...);
- ``seats``: one row per seat of a hand (its agent, score, turn position, whether it lost).

Hands of one deal group share their cards (duplicate deals), so every
statistic treats ``(table, deal_group)`` as one cluster: the ``cluster`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from experiments.analysis.load import (
    LoadedRun,
    chunks_total,
    cluster_ids,
    lineup_table,
    open_run,
    read_shards,
)

END_REASONS = ("out", "repeat", "cap")
CUTOFF_REASONS = ("repeat", "cap")
PHASE2_CAP = 1500  # the rulings' limit on phase-2 actions in one hand

_HAND_COLUMNS = ("table", "deal_group", "arrangement", "hand_index", "n_seats", "first_seat", "loser",
                 "end_reason", "phase2_actions", "cycle_length", "redeals", "seats_out_after_phase1")


@dataclass(kw_only=True)
class Run(LoadedRun):
    """A loaded Knorri run: its manifest, its tables (seat count and lineup) and the hand and seat rows."""

    folder: Path
    manifest: dict[str, Any]
    hands: pd.DataFrame | None  # None for a streamed run
    row: ClassVar[str] = "hand"  # one row of ``hands`` is a hand; ``seats["hand"]`` indexes it
    rank_by: ClassVar[str] = "score"  # the seat column the ladder ranks by: higher finished ahead

    @property
    def rows(self) -> pd.DataFrame:
        """The run's rows (``hands``), whatever the game calls them."""
        return self.hands

    @property
    def cap(self) -> int:
        """The phase-2 action cap the run played under (its ``cap`` option; the rulings' 1,500 for a run from
        before the option)."""
        return int(self.manifest.get("config", {}).get("options", {}).get("cap", PHASE2_CAP))


def load_run(folder: str | Path) -> Run:
    """Read the complete shards of the run in ``folder``; refuse a missing, empty or foreign folder in one line.

    Every row is held in memory (about 360 bytes a hand): for a run of millions of hands use ``stream.stream_run``,
    which keeps the statistics alone.
    """
    folder = Path(folder)
    manifest, paths = open_run(folder, "knorri")
    return load_paths(folder, manifest, paths)


def load_paths(folder: Path, manifest: dict[str, Any], paths: list[Path]) -> Run:
    """The run's rows in ``paths`` (all its complete shards, or one chunk's)."""
    data = read_shards(folder, paths, _shard_columns)
    tables = lineup_table(manifest)
    hands = _hands_frame(data, tables)
    seats = _seats_frame(data, hands)
    agents = sorted(str(name) for name in seats["agent"].unique())
    return Run(folder=folder, manifest=manifest, tables=tables, hands=hands, seats=seats, chunks_read=len(paths),
               chunks_total=chunks_total(manifest, paths), agents=agents)


def _shard_columns(width: int) -> list[str]:
    return list(_HAND_COLUMNS) + [f"agent_{i}" for i in range(width)] + [f"score_{i}" for i in range(width)]


def _hands_frame(data: pa.Table, tables: pd.DataFrame) -> pd.DataFrame:
    """Hand-level columns with plain dtypes, the lineup of the hand's table and its cluster id."""
    hands = pd.DataFrame({name: data.column(name).to_numpy() for name in _HAND_COLUMNS
                          if name not in ("end_reason", "cycle_length")})
    reasons = data.column("end_reason").combine_chunks()
    names = reasons.dictionary.to_pylist()
    to_ours = np.asarray([END_REASONS.index(name) for name in names], dtype=np.int8)
    hands["end_reason"] = pd.Categorical.from_codes(to_ours[reasons.indices.to_numpy()], categories=list(END_REASONS))
    hands["cycle_length"] = data.column("cycle_length").to_pandas().astype("Float64")
    hands = hands.astype({"table": np.int64, "deal_group": np.int64, "n_seats": np.int64, "first_seat": np.int64,
                          "loser": np.int64, "phase2_actions": np.int64})
    hands["lineup"] = hands["table"].map(tables.set_index("table")["lineup"])
    hands["cluster"] = cluster_ids(hands["table"].to_numpy(), hands["deal_group"].to_numpy())
    width = sum(1 for name in data.column_names if name.startswith("score_"))
    total = np.zeros(len(hands), dtype=np.int64)
    for seat in range(width):
        total += pc.fill_null(data.column(f"score_{seat}"), 0).to_numpy().astype(np.int64)
    hands["score_sum"] = total
    return hands


def _seats_frame(data: pa.Table, hands: pd.DataFrame) -> pd.DataFrame:
    """One row per seat that a hand's table has: agent, score, turn position from the first seat, lost or not."""
    width = sum(1 for name in data.column_names if name.startswith("score_"))
    agent_names = sorted({name for seat in range(width)
                          for name in data.column(f"agent_{seat}").combine_chunks().dictionary.to_pylist()})
    parts: dict[str, list[np.ndarray]] = {"hand": [], "seat": [], "agent": [], "score": []}
    for seat in range(width):
        agents = data.column(f"agent_{seat}").combine_chunks()
        rows = np.flatnonzero(agents.is_valid().to_numpy(zero_copy_only=False))
        to_ours = np.asarray([agent_names.index(name) for name in agents.dictionary.to_pylist()], dtype=np.int16)
        parts["hand"].append(rows)
        parts["seat"].append(np.full(len(rows), seat, dtype=np.int64))
        parts["agent"].append(to_ours[pc.fill_null(agents.indices, 0).to_numpy()[rows]])
        parts["score"].append(pc.fill_null(data.column(f"score_{seat}"), 0).to_numpy()[rows].astype(np.int64))
    hand = np.concatenate(parts["hand"])
    order = np.argsort(hand, kind="stable")  # hand by hand, seats in order within each
    hand = hand[order]
    seat = np.concatenate(parts["seat"])[order]
    n_seats = hands["n_seats"].to_numpy()[hand]
    columns = {
        "hand": hand,
        "seat": seat,
        "position": (seat - hands["first_seat"].to_numpy()[hand]) % n_seats,
        "agent": pd.Categorical.from_codes(np.concatenate(parts["agent"])[order], categories=agent_names),
        "score": np.concatenate(parts["score"])[order],
        "lost": hands["loser"].to_numpy()[hand] == seat,
        "table": hands["table"].to_numpy()[hand],
        "n_seats": n_seats,
        "cluster": hands["cluster"].to_numpy()[hand],
    }
    for name in ("lineup", "end_reason"):
        column = hands[name].astype("category")
        columns[name] = pd.Categorical.from_codes(column.cat.codes.to_numpy()[hand], categories=column.cat.categories)
    return pd.DataFrame(columns)
