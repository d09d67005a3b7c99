"""The parquet schema of a run: the runner's identifier columns, then the game's columns.

The game's columns come from its adapter, which every function here is handed (looked up
once by its caller); the identifier columns are the same for every game, their meaning
worded by the adapter where it differs.
A game with extra tables (Kort's rounds) writes each as its own dataset: every
identifier column of the row it belongs to, then the table's own columns.
Per-seat columns are spread into ``name_0 .. name_{W-1}``, W being the largest
seat count of the run; a seat a table does not have is null. Categorical
columns are dictionary-encoded with the same dictionary in every shard, so
pandas reads them as one ``category`` dtype.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import ModuleType

import numpy as np
import pyarrow as pa

from sim.contract import ColumnSpec, extra_tables

SCHEMA_VERSION = 3
"""2: Knorri's phase-2 counts widened to uint32, its loop-anatomy columns added; 3: every number signed (int32, or
int64 for an index that grows with the run), so a difference is safe; unsigned only for bit patterns (seeds, card
sets, seat masks, CRC-32s): ``sim.contract.ColumnSpec``."""
READABLE_VERSIONS = (2, 3)  # what the readers read: a version 2 shard's unsigned numbers come back as today's types

ID_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("run_id", "int8", "the run: a hash of the config and master seed", categories=()),
    ColumnSpec("chunk", "int32", "the chunk (shard) the hand was played in"),
    ColumnSpec("table", "int32", "the table's place in the config (one seat count and lineup)"),
    ColumnSpec("deal_group", "int64", "the seeded match within its table; every arrangement plays it"),
    ColumnSpec("arrangement", "int32", "which seating of the lineup (fixed, a rotation or a permutation)"),
    ColumnSpec("match", "int64", "the match's index in the run, from 0"),
    ColumnSpec("hand_in_match", "int32", "the hand's place in its match, from 0"),
    ColumnSpec("hand_index", "int64", "the hand's index in the run, from 0: unique"),
    ColumnSpec("match_seed", "uint64", "the match's seed: `knorri-sim play --seats N --seed MATCH_SEED --hands K "
               "--agents …` replays the match"),
    ColumnSpec("n_seats", "int32", "seats at the table"),
    ColumnSpec("agent", "int8", "the agent spec at seat i (null for a seat the table does not have)",
               per_seat=True, categories=()),
)

ACTION_ID_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("hand_index", "int64", "the hand (joins the hands table)"),
)


def _arrow_type(spec: ColumnSpec, categories: Sequence[str] = ()) -> pa.DataType:
    if spec.categories is not None:
        index = pa.int8() if len(categories) < 128 else pa.int16()
        return pa.dictionary(index, pa.string())
    return pa.from_numpy_dtype(np.dtype(spec.dtype))


def id_columns(adapter: ModuleType) -> tuple[ColumnSpec, ...]:
    """The runner's identifier columns, with the meanings the game's adapter words its own way."""
    docs = {"chunk": f"the chunk (shard) the {adapter.ROW} was played in", **adapter.ID_DOCS}
    return tuple(dataclasses.replace(spec, doc=docs[spec.name]) if spec.name in docs else spec for spec in ID_COLUMNS)


CONTINUED_ACTION = ColumnSpec("continued", "bool", "true for a decision taken after the row's cut-off, as it "
                              "played on (a run with --continue-past-cutoff)")


def game_columns(adapter: ModuleType, continued: bool = False) -> tuple[ColumnSpec, ...]:
    """The columns the game's adapter fills, one value (or one per seat) per row; in a run continued past its
    cut-offs, also the adapter's ``CONTINUED_COLUMNS``."""
    return adapter.HAND_COLUMNS + (tuple(getattr(adapter, "CONTINUED_COLUMNS", ())) if continued else ())


def extra_columns(adapter: ModuleType) -> dict[str, tuple[ColumnSpec, ...]]:
    """The game's extra tables (name -> the columns its adapter fills); ``{}`` for a game without any."""
    return extra_tables(adapter)


def run_categories(run_id: str, agent_specs: Sequence[str], adapter: ModuleType,
                   continued: bool = False) -> dict[str, list[str]]:
    """The dictionary of every categorical column of a run (the same in every shard and table)."""
    categories = {"run_id": [run_id], "agent": sorted(set(agent_specs))}
    for spec in game_columns(adapter, continued) + sum(extra_columns(adapter).values(), ()):
        if spec.categories:
            categories[spec.name] = list(spec.categories)
    return categories


def hand_fields(width: int, adapter: ModuleType, table: str | None = None,
                continued: bool = False) -> list[tuple[ColumnSpec, str, int | None]]:
    """Every column of the hands table (or of the extra table ``table``) in order: (spec, column name, seat or None);
    ``continued``: the run plays rows on past their cut-offs."""
    own = game_columns(adapter, continued) if table is None else extra_columns(adapter)[table]
    fields = []
    for spec in id_columns(adapter) + own:
        if spec.per_seat:
            fields.extend((spec, f"{spec.name}_{seat}", seat) for seat in range(width))
        else:
            fields.append((spec, spec.name, None))
    return fields


def hands_schema(width: int, categories: dict[str, list[str]], adapter: ModuleType, game: str,
                 table: str | None = None, continued: bool = False) -> pa.Schema:
    """The hands table's schema (or the extra table ``table``'s) for a run of ``game`` (``adapter`` its adapter,
    ``game`` the name its shards record) whose largest table has ``width`` seats (``continued``: one played on past
    its cut-offs)."""
    result = []
    for spec, name, _ in hand_fields(width, adapter, table, continued):
        arrow_type = _arrow_type(spec, categories.get(spec.name, ()))
        result.append(pa.field(name, arrow_type, nullable=spec.nullable or spec.per_seat))
    return pa.schema(result, metadata=_metadata(game))


def actions_schema(adapter: ModuleType, game: str, continued: bool = False) -> pa.Schema:
    """The actions table's schema (only with ``--log-actions``; ``continued`` adds ``CONTINUED_ACTION``), its shards
    recording the name ``game``."""
    columns = ACTION_ID_COLUMNS + adapter.ACTION_COLUMNS + ((CONTINUED_ACTION,) if continued else ())
    fields = [pa.field(s.name, _arrow_type(s), nullable=False) for s in columns]
    return pa.schema(fields, metadata=_metadata(game))


def current_types(adapter: ModuleType) -> dict[str, pa.DataType]:
    """The type this schema gives each numeric column of any of the game's tables (hands, extra tables, actions),
    per-seat columns by their stem: what an older shard's column is read as (``as_current``)."""
    specs = (id_columns(adapter) + game_columns(adapter, continued=True) + sum(extra_columns(adapter).values(), ())
             + ACTION_ID_COLUMNS + adapter.ACTION_COLUMNS + (CONTINUED_ACTION,))
    return {spec.name: _arrow_type(spec) for spec in specs if spec.categories is None}


def as_current(table: pa.Table, adapter: ModuleType) -> pa.Table:
    """``table`` (read from a shard of any readable version) with each numeric column of an older type cast to the
    type this schema writes: a version 2 shard's unsigned counts come back signed, so readers of older runs see
    the columns a new run has (the casts widen: every value fits)."""
    types = current_types(adapter)
    for index, field in enumerate(table.schema):
        target = types.get(field.name) or types.get(_stem(field.name))
        if target is not None and field.type != target and pa.types.is_integer(field.type):
            table = table.set_column(index, pa.field(field.name, target, field.nullable),
                                     table.column(index).cast(target))
    return table


def _stem(name: str) -> str:
    """A per-seat column's stem: ``pile_3`` -> ``pile``, ``continued_score_0`` -> ``continued_score``."""
    stem, _, seat = name.rpartition("_")
    return stem if seat.isdigit() else name


def _metadata(game: str) -> dict[str, str]:
    return {"knorri_sim_schema_version": str(SCHEMA_VERSION), "knorri_sim_game": game}


def markdown_table(adapter: ModuleType, width_label: str = "i") -> str:
    """The schema of a run of the game ``adapter`` adapts as a markdown table (for docs/experiments.md and the
    manifest), generated from the column specs."""
    lines = ["| column | type | meaning |", "| --- | --- | --- |"]
    lines += [_markdown_row(spec, width_label) for spec in id_columns(adapter) + game_columns(adapter)]
    for table, columns in extra_columns(adapter).items():
        lines += ["", f"Table `{table}` (the columns above up to `agent_{width_label}`, those of the row it belongs "
                  "to, then):", "", "| column | type | meaning |", "| --- | --- | --- |"]
        lines += [_markdown_row(spec, width_label) for spec in columns]
    continued = tuple(getattr(adapter, "CONTINUED_COLUMNS", ()))
    if continued:
        lines += ["", "A run played on past its cut-offs (`--continue-past-cutoff`) adds:", "",
                  "| column | type | meaning |", "| --- | --- | --- |"]
        lines += [_markdown_row(spec, width_label) for spec in continued]
    lines.append("")
    lines.append("Actions table (`--log-actions`):")
    lines.append("")
    lines.append("| column | type | meaning |")
    lines.append("| --- | --- | --- |")
    for spec in ACTION_ID_COLUMNS + adapter.ACTION_COLUMNS + ((CONTINUED_ACTION,) if continued else ()):
        lines.append(f"| `{spec.name}` | {spec.dtype} | {spec.doc} |")
    return "\n".join(lines)


def _markdown_row(spec: ColumnSpec, width_label: str) -> str:
    name = f"{spec.name}_{width_label}" if spec.per_seat else spec.name
    kind = "category" if spec.categories is not None else spec.dtype
    if spec.nullable:
        kind += " (nullable)"
    return f"| `{name}` | {kind} | {spec.doc} |"
