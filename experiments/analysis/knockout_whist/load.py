"""Loading Knockout Whist run folders for analysis: the complete shards, as a games table and a seats table.

A run folder is what ``knorri-sim run --game knockout-whist`` writes; the checks
are every game's (``experiments.analysis.load``): a missing, empty or foreign folder,
another schema version or no complete chunk is one line. Several folders (one run
per variant, say) load as one ``GameRun``, their tables numbered one after the other
(``load_runs``; ``stream.stream_runs`` streams them instead, in the memory of one chunk):

- ``games``: one row per game (run, table, seat count, variant, hands played, winner, how it ended, dogs);
- ``seats``: one row per seat of a game (its agent, score, place, the seats it outlasted, its dog's life).

Games of one deal group share their deals (duplicate deals), so every statistic
treats ``(table, deal_group)`` as one cluster: the ``cluster`` column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from experiments.analysis.load import (
    LoadedRun,
    RunPart,
    RunReader,
    chunks_total,
    cluster_ids,
    lineup_table,
    read_shards,
    stack_runs,
)
from sim.knockout_whist.adapter import END_REASONS, GAME
from sim.knockout_whist.encoding import DEFAULT_OPTIONS, FLAG_OPTIONS

DEFAULT_VARIANT = "default"

_GAME_COLUMNS = ("table", "deal_group", "arrangement", "hand_index", "n_seats", *FLAG_OPTIONS, "hands_played",
                 "winner", "end_reason", "dogs_given", "dogs_saved", "seats_left", "decisions")
_SEAT_COLUMNS = ("agent", "score", "place", "out_hand", "dog_hand")


@dataclass(kw_only=True)
class GameRun(LoadedRun):
    """One or more loaded Knockout Whist runs: manifests, tables (seats, lineup, variant), games and seats."""

    folders: list[Path]
    manifests: list[dict[str, Any]]
    games: pd.DataFrame | None  # None for a streamed run (``stream_run``)
    row: ClassVar[str] = "game"  # one row of ``games`` is a game; ``seats["game"]`` indexes it
    rank_by: ClassVar[str] = "beaten"  # the ladder ranks seats by the seats they outlasted

    @property
    def rows(self) -> pd.DataFrame:
        """The run's rows (``games``), whatever the game calls them."""
        return self.games

    @property
    def variants(self) -> list[str]:
        """The variants the games were played with, in the order their runs were given."""
        return list(dict.fromkeys(self.tables["variant"]))


def variant_label(options: Mapping[str, Any]) -> str:
    """The options that differ from the rules' defaults, as ``--option`` writes them (``default`` if none)."""
    changed = [f"{name}={str(bool(options[name])).lower()}" for name in FLAG_OPTIONS
               if name in options and bool(options[name]) != getattr(DEFAULT_OPTIONS, name)]
    return " ".join(changed) or DEFAULT_VARIANT


def _combine(parts: Sequence[RunPart]) -> GameRun:
    """Loaded parts (runs, or one chunk of a run) as one run."""
    frames = stack_runs([part.frames for part in parts], GameRun.row)
    tables_frame, games_frame = frames["tables"], frames["games"]
    games_frame["lineup"] = games_frame["table"].map(tables_frame.set_index("table")["lineup"])
    seats_frame = _seat_context(frames["seats"], games_frame)
    variants = list(dict.fromkeys(tables_frame["variant"]))
    for frame in (games_frame, seats_frame):
        frame["variant"] = pd.Categorical(frame["variant"], categories=variants)
    agents = sorted(str(name) for name in seats_frame["agent"].unique())
    seats_frame["agent"] = pd.Categorical(seats_frame["agent"], categories=agents)
    return GameRun(folders=[p.folder for p in parts], manifests=[p.manifest for p in parts], tables=tables_frame,
                   games=games_frame, seats=seats_frame, chunks_read=sum(p.chunks_read for p in parts),
                   chunks_total=sum(p.chunks_total for p in parts), agents=agents)


# ----- inside --------------------------------------------------------------------------------------


def _read_part(folder: Path, manifest: dict[str, Any], paths: list[Path]) -> RunPart:
    """The shards ``paths`` of the run in ``folder`` (all its complete ones, or one chunk's) as a part's frames."""
    data = read_shards(folder, paths, _shard_columns)
    games = _games_frame(data)
    variant = games["variant"].iloc[0]
    tables = lineup_table(manifest)
    tables["variant"] = variant
    if variant != DEFAULT_VARIANT:
        tables["label"] = tables["label"] + f" ({variant})"
    seats = _seats_frame(data, games)
    return RunPart(folder, manifest, len(paths), chunks_total(manifest, paths),
                   {"tables": tables, "games": games, "seats": seats})


def _shard_columns(width: int) -> list[str]:
    return list(_GAME_COLUMNS) + [f"{name}_{seat}" for name in _SEAT_COLUMNS for seat in range(width)]


def _games_frame(data: pa.Table) -> pd.DataFrame:
    """Game-level columns with plain dtypes, the variant label and the cluster id."""
    plain = [name for name in _GAME_COLUMNS if name != "end_reason" and name not in FLAG_OPTIONS]
    games = pd.DataFrame({name: data.column(name).to_numpy().astype(np.int64) for name in plain})
    reasons = data.column("end_reason").combine_chunks()
    to_ours = np.asarray([END_REASONS.index(name) for name in reasons.dictionary.to_pylist()], dtype=np.int8)
    games["end_reason"] = pd.Categorical.from_codes(to_ours[reasons.indices.to_numpy()], categories=list(END_REASONS))
    flags = pd.DataFrame({name: data.column(name).to_numpy() for name in FLAG_OPTIONS})
    labels = {key: variant_label(dict(zip(FLAG_OPTIONS, key, strict=True)))
              for key in flags.drop_duplicates().itertuples(index=False, name=None)}
    games["variant"] = [labels[key] for key in flags.itertuples(index=False, name=None)]
    games["cluster"] = cluster_ids(games["table"].to_numpy(), games["deal_group"].to_numpy())
    return games


def _seats_frame(data: pa.Table, games: pd.DataFrame) -> pd.DataFrame:
    """One row per seat a game's table has: agent, score, place, seats outlasted, out and dog hands, won."""
    width = sum(1 for name in data.column_names if name.startswith("score_"))
    place = np.stack([pc.fill_null(data.column(f"place_{s}"), 0).to_numpy() for s in range(width)], axis=1)
    seated = place > 0  # a seat of the game's table (the wider tables' columns are null for it)
    place = np.where(seated, place.astype(np.int64), np.iinfo(np.int64).max)  # int64 first: the max must fit
    beaten = (place[:, None, :] > place[:, :, None]).sum(axis=2) - (~seated).sum(axis=1)[:, None]
    game, seat = np.nonzero(seated)  # game by game, seats in order within each

    def per_seat(name: str, nulls: float) -> np.ndarray:
        columns = [data.column(f"{name}_{s}").to_pandas().astype("Float64").fillna(nulls).to_numpy(dtype=np.float64)
                   for s in range(width)]
        return np.stack(columns, axis=1)[game, seat]

    agent_columns = [data.column(f"agent_{s}").to_pandas().astype(object).to_numpy() for s in range(width)]
    dog_hand = per_seat("dog_hand", np.nan)
    return pd.DataFrame({
        "game": game,
        "seat": seat,
        "agent": np.stack(agent_columns, axis=1)[game, seat].astype(str),
        "score": per_seat("score", 0).astype(np.int64),
        "place": place[game, seat],
        "beaten": beaten[game, seat],
        "won": games["winner"].to_numpy()[game] == seat,
        "out_hand": per_seat("out_hand", np.nan),
        "dog_hand": dog_hand,
        "dog": ~np.isnan(dog_hand),
    })


def _seat_context(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Each seat row with its game's table, seat count, cluster, variant and lineup."""
    for name in ("table", "n_seats", "cluster", "variant", "lineup"):
        seats[name] = games[name].to_numpy()[seats["game"].to_numpy()]
    return seats


READER = RunReader(GAME, _read_part, _combine, ("games",))
"""How Knockout Whist's run folders are read: ``load_run`` and ``load_runs`` are its methods, and
``stream.stream_run`` streams through it."""
load_run = READER.load_run
load_runs = READER.load_runs
