"""Loading Kort run folders for analysis: the complete shards, as a matches, a rounds and a seats table.

A run folder is what ``knorri-sim run --game kort`` writes: ``hands/`` (one row per match) and ``rounds/`` (one row
per round). The checks are those every game's loader shares (``experiments.analysis.load``). Several folders load
as one ``KortRun``, their tables numbered one after the other: ``matches``, ``rounds`` and ``seats`` (which the
shared ladder reads); their columns are listed in docs/internals.md, ``experiments.analysis.kort.load``. Matches of
one deal group share their decks, so every statistic treats ``(table, deal_group)`` as one cluster: the
``cluster`` column, on every table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa

from experiments.analysis.load import (
    LoadedRun,
    RunPart,
    RunReader,
    chunks_total,
    cluster_ids,
    lineup_label,
    lineup_table,
    read_shards,
    stack_runs,
    table_label,
)
from sim.kort.adapter import DECLARATIONS, GAME, RESULTS
from sim.kort.encoding import DEFAULT_OPTIONS, NUM_SEATS, NUM_TEAMS, OPTION_NAMES

ROUNDS_DIR = "rounds"
_MATCH_COLUMNS = ("table", "deal_group", "arrangement", "hand_index", *OPTION_NAMES, "rounds", "redeals",
                  "wins_team0", "wins_team1", "winner_team", "decisions")
_ROUND_COLUMNS = ("hand_index", "round", "holder", "trump", "trump_13", "redeals", "tricks_team0", "tricks_team1",
                  "bavan", "result", "result_team", "wins", "match_wins_team0", "match_wins_team1",
                  *(f"{kind}_team{team}" for kind in DECLARATIONS for team in range(NUM_TEAMS)))


@dataclass(kw_only=True)
class KortRun(LoadedRun):
    """One or more loaded Kort runs: manifests, tables (lineup, options), matches, rounds and seats."""

    folders: list[Path]
    manifests: list[dict[str, Any]]
    matches: pd.DataFrame | None  # None for a streamed run (``stream_run``), as ``rounds``
    rounds: pd.DataFrame | None
    row: ClassVar[str] = "match"  # one row of ``matches`` is a match; ``seats["match"]`` indexes it
    rank_by: ClassVar[str] = "score"  # the ladder ranks seats by the match result (partners tie)

    @property
    def rows(self) -> pd.DataFrame:
        """The run's rows (``matches``), whatever the game calls them."""
        return self.matches


def team_label(first: str, second: str) -> str:
    """A team as its two agents: ``greedy×2``, or ``greedy + random`` for a mixed one."""
    return lineup_label([first, second])


def table_pairing(agents: Sequence[str]) -> str:
    """A table's lineup as its two teams: ``greedy×2 vs random×2`` (seats 0 and 2 against 1 and 3, as given)."""
    return f"{team_label(agents[0], agents[2])} vs {team_label(agents[1], agents[3])}"


def options_label(options: dict[str, Any]) -> str:
    """The options that differ from the rules' defaults, as ``--option`` writes them (``""`` if none)."""
    return " ".join(f"{name}={options[name]}" for name in OPTION_NAMES
                    if name in options and options[name] != getattr(DEFAULT_OPTIONS, name))


def _combine(parts: Sequence[RunPart]) -> KortRun:
    """Loaded parts (runs, or one chunk of a run) as one run."""
    frames = stack_runs([part.frames for part in parts], KortRun.row)
    tables_frame, matches_frame, rounds_frame = frames["tables"], frames["matches"], frames["rounds"]
    labels = tables_frame.set_index("table")["label"]
    for frame in (matches_frame, rounds_frame):
        frame["label"] = pd.Categorical(frame["table"].map(labels), categories=list(dict.fromkeys(labels)))
    rounds_frame["result"] = pd.Categorical(rounds_frame["result"], categories=list(RESULTS))
    seats_frame = frames["seats"]
    for name in ("table", "cluster", "label"):
        seats_frame[name] = matches_frame[name].to_numpy()[seats_frame["match"].to_numpy()]
    seats_frame["n_seats"] = NUM_SEATS
    agents = sorted(str(name) for name in seats_frame["agent"].unique())
    seats_frame["agent"] = pd.Categorical(seats_frame["agent"], categories=agents)
    return KortRun(folders=[p.folder for p in parts], manifests=[p.manifest for p in parts], tables=tables_frame,
                   matches=matches_frame, rounds=rounds_frame, seats=seats_frame,
                   chunks_read=sum(p.chunks_read for p in parts), chunks_total=sum(p.chunks_total for p in parts),
                   agents=agents)


# ----- inside --------------------------------------------------------------------------------------


def _read_part(folder: Path, manifest: dict[str, Any], paths: list[Path]) -> RunPart:
    """The shards ``paths`` of the run in ``folder`` (all its complete ones, or one chunk's), with their rounds, as a
    part's frames."""
    hands = read_shards(folder, paths, lambda width: [*_MATCH_COLUMNS, *(f"agent_{s}" for s in range(width)),
                                                      *(f"score_{s}" for s in range(width))])
    round_data = read_shards(folder, [folder / ROUNDS_DIR / path.name for path in paths],
                             lambda width: list(_ROUND_COLUMNS))
    tables = lineup_table(manifest)
    options = options_label(manifest["config"].get("options") or {})
    tables["options"] = options
    tables["label"] = [(table_pairing(t["agents"]) if t.get("assign") not in ("balanced", "duel") else table_label(t))
                       + (f" ({options})" if options else "") for t in manifest["config"]["tables"]]
    matches = _matches_frame(hands)
    rounds = _rounds_frame(round_data, matches)
    return RunPart(folder, manifest, len(paths), chunks_total(manifest, paths),
                   {"tables": tables, "matches": matches, "rounds": rounds, "seats": _seats_frame(hands)})


def _plain(data: pa.Table, names: Sequence[str]) -> dict[str, np.ndarray]:
    return {name: data.column(name).to_numpy() for name in names}


def _matches_frame(data: pa.Table) -> pd.DataFrame:
    """One row per match, in run order, with each team's agents as a label and the cluster id."""
    matches = pd.DataFrame(_plain(data, _MATCH_COLUMNS)).astype(np.int64).sort_values("hand_index",
                                                                                       ignore_index=True)
    order = np.argsort(data.column("hand_index").to_numpy(), kind="stable")
    agents = [data.column(f"agent_{s}").to_pandas().astype(str).to_numpy()[order] for s in range(NUM_SEATS)]
    for team in range(NUM_TEAMS):
        matches[f"team{team}"] = [team_label(a, b) for a, b in zip(agents[team], agents[team + 2], strict=True)]
    matches["first_holder_team"] = matches["first_holder"] % NUM_TEAMS
    matches["cluster"] = cluster_ids(matches["table"].to_numpy(), matches["deal_group"].to_numpy())
    return matches


def _rounds_frame(data: pa.Table, matches: pd.DataFrame) -> pd.DataFrame:
    """One row per round, match by match, with its match's row, table, cluster and teams, and who got the wins."""
    plain = [name for name in _ROUND_COLUMNS if name != "result"]
    rounds = pd.DataFrame(_plain(data, plain))
    rounds = rounds.astype({name: np.int64 for name in plain if name not in ("trump_13", "bavan")})
    rounds["result"] = data.column("result").to_pandas().astype(str).to_numpy()
    rounds = rounds.sort_values(["hand_index", "round"], ignore_index=True)
    rows = pd.Series(np.arange(len(matches)), index=matches["hand_index"])
    rounds.insert(0, "match", rows.loc[rounds["hand_index"]].to_numpy())
    match = rounds["match"].to_numpy()
    for name in ("table", "cluster", "team0", "team1"):
        rounds[name] = matches[name].to_numpy()[match]
    rounds["holder_team"] = rounds["holder"] % NUM_TEAMS
    rounds["holder_agents"] = np.where(rounds["holder_team"] == 0, rounds["team0"], rounds["team1"])
    rounds["holder_won"] = rounds["result_team"] == rounds["holder_team"]
    rounds["redealt"] = rounds["redeals"] > 0
    return rounds.drop(columns="hand_index")


def _seats_frame(data: pa.Table) -> pd.DataFrame:
    """One row per seat of a match (match by match, seats in order): agent, team, score and whether it won."""
    order = np.argsort(data.column("hand_index").to_numpy(), kind="stable")
    count = len(order)
    agent = np.stack([data.column(f"agent_{s}").to_pandas().astype(str).to_numpy()[order] for s in range(NUM_SEATS)],
                     axis=1)
    score = np.stack([data.column(f"score_{s}").to_numpy()[order] for s in range(NUM_SEATS)], axis=1)
    seat = np.tile(np.arange(NUM_SEATS), count)
    return pd.DataFrame({
        "match": np.repeat(np.arange(count), NUM_SEATS),
        "seat": seat,
        "team": seat % NUM_TEAMS,
        "agent": agent.reshape(-1),
        "score": score.reshape(-1).astype(np.int64),
        "won": score.reshape(-1) > 0,
    })


READER = RunReader(GAME, _read_part, _combine, ("matches", "rounds"))
"""How Kort's run folders are read (with their rounds): ``load_run`` and ``load_runs`` are its methods, and
``stream.stream_run`` streams through it."""
load_run = READER.load_run
load_runs = READER.load_runs
