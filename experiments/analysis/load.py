"""Loading a run folder for analysis: what every game's loader shares.

Only chunks the manifest (or a live run's journal) records as finished are read, each shard checked against the
SHA-256 its writer recorded (``complete_shards``), so a run still going gives a consistent, smaller sample and a
damaged one is refused in one line. Rows of one deal group share their cards (duplicate deals), so every statistic
treats ``(table, deal_group)`` as one cluster: the ``cluster`` column (``cluster_ids``).

``open_run`` checks a folder, ``read_shards`` reads it, ``stack_runs`` loads several runs as one and ``LoadedRun``
is the base of every game's loaded run; ``stream_paths`` streams any game's run instead, its statistics
(``Partial``) gathered one batch of whole chunks at a time, which is how every report reads a run. More in
docs/internals.md, ``experiments.analysis.load``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.errors import ConfigError, RunDamaged, UsageError
from experiments.runner import integrity
from experiments.runner.config import from_json
from experiments.runner.manifest import check_manifest
from experiments.runner.moments import add_moments
from experiments.runner.schema import READABLE_VERSIONS, SCHEMA_VERSION, as_current
from experiments.runner.storage import HANDS_DIR, MANIFEST, RunFolder, shard_name
from sim import games
from sim.contract import plural

SEAT_AGENT = re.compile(r"agent_\d+")  # the runner's per-seat agent columns: one per seat of the widest table


class RunFolderError(UsageError):
    """A folder that holds no readable run of this schema; reported as one line, exit code 2."""


@dataclass(kw_only=True)
class LoadedRun:
    """What every game's loaded run holds beside its own tables: slow results kept, and whether it is complete.

    ``tables`` has one row per table of the run's config(s) (``lineup_table``); ``seats`` one row per seat
    of a row, its row's index in the column named by the subclass's ``row`` (``hand``, ``game``, ``match``).
    """

    tables: pd.DataFrame
    seats: pd.DataFrame | None  # None for a streamed run (``stream_run``): its statistics, no rows
    chunks_read: int
    chunks_total: int
    agents: list[str] = field(default_factory=list)
    partials: dict[str, Any] | None = None  # a streamed run's statistics, added up chunk by chunk
    rows_read: int = 0  # a streamed run's row count
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per run and key: the report and a notebook reuse slow results (ratings)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def partial(self, partial: Partial) -> Any:
        """A statistic's sufficient statistics (``Partial``): a streamed run's, summed over its chunks; a loaded
        run's, computed once from its rows as if they were one chunk. Both give the same numbers."""
        if self.partials is not None:
            if partial.name not in self.partials:
                raise RunFolderError(f"a streamed run keeps no {partial.name!r}: load the run with its rows "
                                     "(load_run) for that statistic")
            return self.partials[partial.name]
        return self.memo("partial " + partial.name, lambda: partial.finish(partial.step(partial.start(self), self)))

    @property
    def row_count(self) -> int:
        """How many rows (hands, games, matches) were read."""
        return self.rows_read if self.partials is not None else len(self.rows)  # type: ignore[attr-defined]

    @property
    def complete(self) -> bool:
        """Whether every planned chunk (of every run loaded together) was read."""
        return self.chunks_read == self.chunks_total


@dataclass(frozen=True)
class Partial:
    """A statistic's sufficient statistics, gathered chunk by chunk: ``start(run)`` a state, ``step(state,
    chunk)`` adds a chunk (a loaded run of one shard), ``finish(state)`` the value the statistic reads.

    A chunk is whole deal groups (clusters), so additive counts and cluster moments add up exactly
    (``experiments.runner.moments``); the ratings carry their state from chunk to chunk in run order.
    """

    name: str
    start: Callable[[Any], Any]
    step: Callable[[Any, Any], Any]
    finish: Callable[[Any], Any]
    keys: tuple[str, ...] | None = None  # an additive partial's group columns: its frames of runs add up too


def additive(name: str, keys: Sequence[str], compute: Callable[[Any], pd.DataFrame]) -> Partial:
    """A partial that is a frame of counts and moments per ``keys``, summed over chunks (``add_moments``)."""
    def step(state: list, chunk: Any) -> list:
        state.append(compute(chunk))
        if len(state) >= ADD_EVERY:
            state[:] = [add_moments(state, keys)]
        return state

    return Partial(name, lambda run: [], step, lambda state: add_moments(state, keys), tuple(keys))


ADD_EVERY = 64  # a streamed run's partial frames are summed every this many chunks, so they never pile up


BATCH_ROWS = 20_000
"""A streamed run reads this many rows at a time at most (whole chunks, at least one): small chunks are read
several together, so the cost of a step is paid per batch, not per chunk; a step holds one batch's rows."""


def stream_paths(manifests: Sequence[dict[str, Any]], paths: list[Path], load: Callable[[list[Path]], LoadedRun],
                 partials: Sequence[Partial], let_go: Sequence[str], batch_rows: int = BATCH_ROWS) -> Any:
    """Any game's streamed run: ``load(batch)`` each batch of consecutive shards (whole chunks, ``batch_rows`` rows
    at most, ``shard_batches``) as a small run, add its ``partials``, keep none of its rows. The run returned is the
    first batch's with its row frames (``let_go``, and ``seats``) set to None, its statistics summed over every
    batch, and the counts of the whole run: memory stays that of one batch."""
    agents = sorted({str(spec) for manifest in manifests for table in manifest["config"]["tables"]
                     for spec in table["agents"]})
    batches = shard_batches(paths, manifests[0], batch_rows)
    first = load(batches[0])
    first.agents = agents
    states = {p.name: p.start(first) for p in partials}
    count = 0
    for index, batch in enumerate(batches):
        chunk = first if index == 0 else load(batch)
        chunk.agents = agents
        count += len(chunk.rows)
        for p in partials:
            states[p.name] = p.step(states[p.name], chunk)
        del chunk
    total = sum(chunks_total(manifest, paths) for manifest in manifests)
    return replace(first, **dict.fromkeys(let_go), seats=None, chunks_read=len(paths), chunks_total=total,
                   agents=agents, partials={p.name: p.finish(states[p.name]) for p in partials}, rows_read=count,
                   _memo={})


def stack_streamed(runs: Sequence[LoadedRun], partials: Sequence[Partial]) -> Any:
    """Several runs streamed with ``partials`` (``stream_paths``) as one, as ``stack_runs`` stacks loaded ones:
    tables numbered on from run to run, each additive partial's frames summed by its keys (a ``table`` key numbered
    on too). A partial carried in run order (the ratings) does not add across runs: the stack keeps none, and asking
    for it is one line."""
    if not runs:
        raise RunFolderError("no run folder given")
    tables, sums, offset = [], {}, 0
    for index, run in enumerate(runs):
        tables.append(run.tables.assign(table=run.tables["table"] + offset, run=index))
        for partial in (p for p in partials if p.keys is not None):
            frame = run.partial(partial)
            if "table" in frame.columns and len(frame):
                frame = frame.assign(table=frame["table"].astype(np.int64) + offset)
            sums.setdefault(partial.name, (partial.keys, []))[1].append(frame)
        offset += len(run.tables)
    first = runs[0]
    extra = {name: [item for run in runs for item in getattr(run, name)] for name in ("folders", "manifests")
             if hasattr(first, name)}
    return replace(first, tables=pd.concat(tables, ignore_index=True),
                   chunks_read=sum(run.chunks_read for run in runs), chunks_total=sum(run.chunks_total for run in runs),
                   agents=sorted({agent for run in runs for agent in run.agents}),
                   partials={name: add_moments(frames, keys) for name, (keys, frames) in sums.items()},
                   rows_read=sum(run.rows_read for run in runs), _memo={}, **extra)


def shard_batches(paths: list[Path], manifest: dict[str, Any], batch_rows: int) -> list[list[Path]]:
    """The shards in run order, cut into batches of consecutive chunks of ``batch_rows`` rows at most (by the
    manifest's rows per chunk; one chunk a batch when it says none, or a chunk is larger)."""
    per_chunk = int(manifest.get("chunk_hands") or batch_rows)
    size = max(1, batch_rows // max(1, per_chunk))
    return [paths[start:start + size] for start in range(0, len(paths), size)]


def open_run(folder: Path, game: str) -> tuple[dict[str, Any], list[Path]]:
    """The manifest and complete shards of ``game``'s run in ``folder``: a bad folder or another game's run is one
    line (``RunFolderError``)."""
    manifest = read_manifest(folder)
    found = run_game(manifest)
    if found != game:
        raise RunFolderError(f"run folder {str(folder)!r} holds a {found} run, not a {games.adapter(game).TITLE} one: "
                             "knorri-sim report reads every game's run")
    return manifest, complete_shards(folder, manifest)


def chunks_total(manifest: dict[str, Any], paths: list[Path]) -> int:
    """The chunks the run plans (the manifest's count; the shards read, for a manifest without one). A run stopped
    on purpose (status ``stopped``: a duel whose test decided) is whole with the chunks it finished: the rest were
    never to be played, so reading them all is reading the run complete."""
    if manifest.get("status") == "stopped" and isinstance(manifest.get("chunks_complete"), list):
        return len(manifest["chunks_complete"])
    return int(manifest.get("chunks_total", len(paths)))


@dataclass
class RunPart:
    """One run folder of several loaded as one: where it is, its manifest, its chunks and its frames."""

    folder: Path
    manifest: dict[str, Any]
    chunks_read: int
    chunks_total: int
    frames: dict[str, pd.DataFrame]  # what ``stack_runs`` stacks: ``tables``, the rows, ``seats``, ...


LoadedRunT = TypeVar("LoadedRunT", bound=LoadedRun)


@dataclass(frozen=True)
class RunReader(Generic[LoadedRunT]):
    """How a game whose runs stack (``stack_runs``) reads its run folders, written once for every such game.

    ``read_part(folder, manifest, paths)`` reads shards (all a run's complete ones, or one chunk's) as a
    ``RunPart``; ``combine(parts)`` makes one loaded run of parts; ``let_go`` names the row frames a streamed run
    drops. Every table a chunk wrote beside its hands (Kort's rounds) is checked with them (``complete_shards``).
    What a streamed run gathers is its caller's: each game's ``stream`` module gives its report's partials.
    """

    game: str
    read_part: Callable[[Path, dict[str, Any], list[Path]], RunPart]
    combine: Callable[[Sequence[RunPart]], LoadedRunT]
    let_go: tuple[str, ...]

    def load_run(self, folder: str | Path) -> LoadedRunT:
        """Read the complete shards of the game's run in ``folder``; refuse a bad folder in one line."""
        return self.load_runs([folder])

    def load_runs(self, folders: Sequence[str | Path]) -> LoadedRunT:
        """Several runs of the game as one: tables numbered on from run to run, deal groups (and matches) kept
        apart."""
        return self.combine([self.read_part(*self._open(folder)) for folder in folders])

    def stream_run(self, folder: str | Path, partials: Sequence[Partial], batch_rows: int = BATCH_ROWS) -> LoadedRunT:
        """The run in ``folder`` as its statistics alone: each batch of chunks read in turn, its ``partials`` added
        up, its rows let go; memory stays that of one batch whatever the run's size, and every statistic equals
        ``load_run``'s."""
        folder, manifest, paths = self._open(folder)
        return stream_paths([manifest], paths, lambda chunk: self.combine([self.read_part(folder, manifest, chunk)]),
                            partials, list(self.let_go), batch_rows)

    def _open(self, folder: str | Path) -> tuple[Path, dict[str, Any], list[Path]]:
        """The folder, its manifest and complete shards, checked (``open_run``)."""
        folder = Path(folder)
        manifest, paths = open_run(folder, self.game)
        return folder, manifest, paths


def stack_runs(parts: Sequence[dict[str, pd.DataFrame]], row: str) -> dict[str, pd.DataFrame]:
    """Several runs' frames as one: tables numbered on from run to run, deal groups and rows kept apart.

    Each part maps names to frames: ``tables`` (``lineup_table``), the rows (named ``plural(row)``: ``games``,
    ``matches``) and any other. A frame with a ``table`` column gets the run's table and cluster offsets and a
    ``run`` column (the part's index); a frame with a ``row`` column (``seats["game"]``) gets the row offset.
    """
    if not parts:
        raise RunFolderError("no run folder given")
    stacked: dict[str, list[pd.DataFrame]] = {name: [] for name in parts[0]}
    table_offset = cluster_offset = row_offset = 0
    for index, part in enumerate(parts):
        for name, frame in part.items():
            if name == "tables":
                frame = frame.assign(table=frame["table"] + table_offset, run=index)
            elif "table" in frame.columns:
                frame = frame.assign(table=frame["table"] + table_offset, cluster=frame["cluster"] + cluster_offset,
                                     run=index)
            if row in frame.columns:
                frame = frame.assign(**{row: frame[row] + row_offset})
            stacked[name].append(frame)
        rows = part[plural(row)]
        table_offset += len(part["tables"])
        cluster_offset += int(rows["cluster"].max()) + 1
        row_offset += len(rows)
    return {name: pd.concat(frames, ignore_index=True) for name, frames in stacked.items()}


def lineup_label(agents: list[str] | tuple[str, ...]) -> str:
    """A lineup as its agents with counts, in name order: ``greedy×2 + random×2``."""
    counts = Counter(agents)
    return " + ".join(name if count == 1 else f"{name}×{count}" for name, count in sorted(counts.items()))


def balanced_label(pool: list[str] | tuple[str, ...]) -> str:
    """A balanced table's pool of agents (``assign = balanced``, as a league seats them): ``balanced: a, b, c``."""
    return "balanced: " + ", ".join(sorted(pool))


def duel_label(agents: list[str] | tuple[str, ...]) -> str:
    """A duel table's lineup (``assign = duel``: A, B, then the other seats): ``duel: a vs b, others c``."""
    return f"duel: {agents[0]} vs {agents[1]}, others " + ", ".join(dict.fromkeys(agents[2:]))


def table_label(table: dict[str, Any]) -> str:
    """A config table's lineup as a label: its agents with counts, or its pool (balanced), or its duel."""
    assign = table.get("assign")
    if assign == "balanced":
        return balanced_label(table["agents"])
    return duel_label(table["agents"]) if assign == "duel" else lineup_label(table["agents"])


def lineup_table(manifest: dict[str, Any]) -> pd.DataFrame:
    """One row per table of the run's config: its index, seat count, lineup and a short label."""
    rows = []
    for index, table in enumerate(manifest["config"]["tables"]):
        lineup = table_label(table)
        rows.append({"table": index, "seats": int(table["seats"]), "lineup": lineup,
                     "label": f"{table['seats']} seats: {lineup}", "assign": table.get("assign", "fixed")})
    return pd.DataFrame(rows)


def run_game(manifest: dict[str, Any]) -> str:
    """The game a run's manifest names (a manifest from before the games registry is the default game's, Knorri's:
    the registry's ``DEFAULT_GAME``)."""
    return str(manifest.get("game", games.DEFAULT_GAME))


def read_manifest(folder: Path) -> dict[str, Any]:
    """A run folder's manifest, checked: a missing, empty or foreign folder, or another schema, is one line."""
    if not folder.exists():
        raise RunFolderError(f"run folder {str(folder)!r} does not exist: give a folder written by knorri-sim run")
    if not folder.is_dir():
        raise RunFolderError(f"{str(folder)!r} is a file, not a run folder written by knorri-sim run")
    path = folder / MANIFEST
    if not path.is_file():
        what = "is empty" if not any(folder.iterdir()) else "holds no manifest.json"
        raise RunFolderError(f"run folder {str(folder)!r} {what}: give a folder written by knorri-sim run")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise RunFolderError(f"{str(path)!r} is not readable JSON ({type(error).__name__}): "
                             "the run folder is damaged") from None
    if not isinstance(manifest, dict) or "config" not in manifest:
        raise RunFolderError(f"{str(path)!r} is not a knorri-sim run manifest")
    version = manifest.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise RunFolderError(f"run folder {str(folder)!r} has schema version {version!r}; this analysis reads "
                             f"versions {' and '.join(map(str, READABLE_VERSIONS))}: rerun it with this version of "
                             "knorri-sim")
    damaged = f"run folder {str(folder)!r} is damaged"
    try:  # the fields the analysis reads, of the types knorri-sim writes (an edited "chunks_total": "forty")
        check_manifest(manifest, f"{damaged}: {MANIFEST}")
        from_json(manifest["config"])
    except ConfigError as error:
        raise RunDamaged(str(error) if str(error).startswith(damaged) else f"{damaged}: {error}") from None
    return manifest


def complete_shards(folder: Path, manifest: dict[str, Any] | None = None) -> list[Path]:
    """The hands shards of the chunks the run records as finished, every shard of theirs checked against its record
    (``integrity.verified_chunks``: one snapshot of the manifest and a live run's journal, each shard's SHA-256); a
    damaged shard is one line naming it (``RunDamaged``, exit code 1), and no finished chunk at all another.
    ``manifest``: the run's, as the caller read it, for its planned chunk count."""
    snapshot = integrity.verified_chunks(RunFolder(folder))
    chunks = sorted(snapshot.records)
    if not chunks:
        total = (snapshot.manifest or manifest or {}).get("chunks_total", "?")
        raise RunFolderError(f"run folder {str(folder)!r} has no complete chunk yet (0 of {total}): let the run "
                             f"finish, or resume it with knorri-sim run --resume {folder}")
    return [folder / HANDS_DIR / shard_name(chunk) for chunk in chunks]


def iter_shard_batches(paths: Sequence[Path], columns: list[str], batch_size: int = 65_536) -> Iterator[pa.RecordBatch]:
    """The ``columns`` of the shards at ``paths`` as record batches, in order, one shard open at a time.

    Not a ``pyarrow.dataset``: a dataset keeps every shard's footer once it has read it, which grows with the run
    (docs/scaling.md, "Any size in bounded memory"); this holds one shard's and one batch's."""
    for path in paths:
        with pq.ParquetFile(path, page_checksum_verification=True) as shard:
            yield from shard.iter_batches(batch_size=batch_size, columns=columns)


def read_shards(folder: Path, paths: list[Path], columns: Callable[[int], list[str]]) -> pa.Table:
    """The shards as one table of ``columns(width)``, width being the run's widest table (seats), each column of the
    type this schema writes (``schema.as_current``: an older version's unsigned counts come back signed)."""
    metadata = pq.read_schema(paths[0]).metadata or {}
    version = metadata.get(b"knorri_sim_schema_version", b"").decode()
    if version not in map(str, READABLE_VERSIONS):
        raise RunFolderError(f"the shards in {str(folder / HANDS_DIR)!r} have schema version {version or 'none'!r}; "
                             f"this analysis reads versions {' and '.join(map(str, READABLE_VERSIONS))}")
    game = metadata.get(b"knorri_sim_game", games.DEFAULT_GAME.encode()).decode()
    names = pq.read_schema(paths[0]).names
    width = sum(1 for name in names if SEAT_AGENT.fullmatch(name))
    try:
        # partitioning=None: a folder named like "name=value" is a run folder, not a hive partition
        table = pq.read_table([str(path) for path in paths], columns=columns(width), partitioning=None,
                              page_checksum_verification=True)
        return table if version == str(SCHEMA_VERSION) else as_current(table, games.adapter(game))
    except (OSError, pa.ArrowException) as error:
        reason = " ".join(str(error).split())[:200]
        raise RunFolderError(f"cannot read the shards in {str(folder / HANDS_DIR)!r}: {reason}") from None


def cluster_ids(table: np.ndarray, deal_group: np.ndarray) -> np.ndarray:
    """A dense index of (table, deal group): hands dealt the same cards share one."""
    keys = table.astype(np.int64) * (int(deal_group.max(initial=0)) + 1) + deal_group.astype(np.int64)
    return np.unique(keys, return_inverse=True)[1].astype(np.int64)
