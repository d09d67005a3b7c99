"""A duel: agents A and B on duplicate deals, played by the runner until a sequential test decides.

**A deal** is one deal group of the runner, played ``2 R`` times: at each of the tested seat's (or team's) ``R``
rotations, once with A there and once with B, the same ``others`` at the other seats and the same seeds
(``experiments.runner.plan.duel_design``), so seat advantage and the luck of the cards cancel in their difference.
**The statistic** is a deal's paired difference, A's mean score per row at the tested seat minus B's: the
independent steps of ``experiments.duel.sprt``'s test. **Batches**: the run is cut into chunks of ``BATCH_DEALS``
deals and the test looks at every batch boundary the finished chunks reach without a gap, in deal order, from
``MIN_DEALS`` on, so the verdict depends only on the deals' results, never on the workers. The same duel run again
on its folder resumes it. More in docs/internals.md, ``experiments.duel.play``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from experiments.duel.sprt import CONTINUE, UNDECIDED, Sprt, Verdict, sequential_test
from experiments.runner import integrity, storage
from experiments.runner.compiling import code_to_compile
from experiments.runner.config import ConfigError, RunConfig, build_config
from experiments.runner.execute import execute, plan_run, workers_for
from experiments.runner.plan import DuelSeating, check_lineups, duel_design
from experiments.runner.storage import RunFolder
from sim import games
from sim.contract import check_seats
from sim.errors import GameInputError

BATCH_DEALS = 4  # deals per chunk: the test looks after each; see the module docstring and sprt's on overshoot
MIN_DEALS = 32  # no look before this many deals, where the variance estimate is still rough


@dataclass(frozen=True)
class DuelSetup:
    """What a duel plays: the run's config and its seatings (each with its tested seats and side)."""

    config: RunConfig
    design: tuple[DuelSeating, ...]
    max_deals: int

    @property
    def seats(self) -> int:
        """Seats at the table."""
        return self.config.tables[0].seats

    @property
    def rotations(self) -> int:
        """Rotations of the tested seat a deal plays, each twice (A, then B)."""
        return len(self.design) // 2

    @property
    def agents(self) -> tuple[str, ...]:
        """A, B, then the other seats' specs in seat order."""
        return self.config.tables[0].agents


def duel_setup(game: str, seats: int, a: str, b: str, others: list[str], max_deals: int, seed: int = 0,
               options: dict[str, Any] | None = None, workers: int | None = None,
               out: str | None = None) -> DuelSetup:
    """The duel's run: one table of ``assign = duel`` (A, B, ``others``: one spec for every other seat, or one per
    seat), ``max_deals`` deal groups, ``BATCH_DEALS`` deals a chunk; every spec checked (one line if one is bad)."""
    if isinstance(max_deals, bool) or not isinstance(max_deals, int) or max_deals < 1:
        raise ConfigError(f"--max-deals must be at least 1, not {max_deals}")
    adapter = games.adapter(game)
    try:
        check_seats(adapter, seats)
    except GameInputError as error:
        raise ConfigError(f"--seats: {error}") from None
    teams = adapter.seat_teams(seats)
    other_seats = sum(1 for team in teams if team != teams[0])
    if len(others) not in (1, other_seats):
        raise ConfigError(f"--others takes one spec for all {other_seats} other seats or one for each, "
                          f"not {len(others)}")
    raw: dict[str, Any] = {"game": game, "name": "duel", "options": options or {}, "seed": seed,
                           "tables": [{"seats": seats, "agents": [a, b, *others], "assign": "duel"}], "hands": 1}
    if workers is not None:
        raw["workers"] = workers
    if out is not None:
        raw["out"] = out
    config = build_config(raw, "duel")
    table = config.tables[0]
    design = duel_design(table.agents, teams)
    config = config.replaced(hands=max_deals * len(design), chunk_hands=BATCH_DEALS * len(design))
    check_lineups(config)
    return DuelSetup(config, design, max_deals)


def looks(max_deals: int) -> list[int]:
    """The deal counts the test looks at: every batch boundary from ``MIN_DEALS`` on, and ``max_deals``."""
    ends = list(range(BATCH_DEALS, max_deals, BATCH_DEALS)) + [max_deals]
    return [end for end in ends if end >= MIN_DEALS or end == max_deals]


def chunk_differences(folder: RunFolder, chunk_id: int, design: tuple[DuelSeating, ...]) -> np.ndarray:
    """The paired differences of one chunk's deals, in deal order: A's mean score per row at the tested seat over
    the deal's rotations, less B's."""
    seats = len(design[0].seating)
    columns = ["deal_group", "arrangement", *(f"score_{s}" for s in range(seats))]
    data = folder.read_shard(storage.HANDS_DIR, chunk_id, columns)  # through the folder, never pyarrow over fsspec
    scores = np.stack([data.column(f"score_{s}").to_numpy() for s in range(seats)], axis=1)
    arrangement = data.column("arrangement").to_numpy().astype(np.int64)
    group = data.column("deal_group").to_numpy().astype(np.int64)
    return deal_differences(scores, arrangement, group - group.min(), design)


def deal_differences(scores: np.ndarray, arrangement: np.ndarray, deal: np.ndarray,
                     design: tuple[DuelSeating, ...]) -> np.ndarray:
    """Each deal's paired difference from its rows (``scores[row, seat]``, the row's seating in ``design`` and its
    deal, counted from 0): A's mean score per row at the tested seat over the deal's rotations, less B's."""
    weight = np.zeros((len(design), scores.shape[1]))
    for index, seating in enumerate(design):
        weight[index, list(seating.tested)] = (1.0 if seating.side == 0 else -1.0) / len(seating.tested)
    signed = (scores.astype(np.float64) * weight[arrangement]).sum(axis=1)
    return np.bincount(deal, weights=signed, minlength=int(deal.max()) + 1) / (len(design) // 2)


def duel_decision(verdict: Verdict, max_deals: int) -> str:
    """``H1``, ``H0``, ``undecided`` (no bound crossed by ``max_deals``) or ``continue`` (deals still to play)."""
    if verdict.decision == CONTINUE and verdict.deals == max_deals:
        return UNDECIDED
    return verdict.decision


def duel_manifest(folder: str | RunFolder) -> dict[str, Any]:
    """The manifest of a run folder of a duel table (``knorri-sim duel``'s, or ``knorri-sim run --assign duel``'s);
    one line for a folder that holds no run, or a run that is not a duel."""
    folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    manifest = folder.read_manifest() if folder.is_dir() else None
    if not isinstance(manifest, dict):
        raise ConfigError(f"{str(folder)!r} holds no knorri-sim run (no readable manifest.json)")
    if not is_duel(manifest):
        raise ConfigError(f"{str(folder)!r} is not a duel: its run has no single table with assign = duel")
    return manifest


def is_duel(manifest: dict[str, Any]) -> bool:
    """Whether a run's manifest is a duel table's: one table, ``assign = duel``."""
    tables = manifest.get("config", {}).get("tables", [])
    return len(tables) == 1 and tables[0].get("assign") == "duel"


def manifest_design(manifest: dict[str, Any]) -> tuple[DuelSeating, ...]:
    """A duel run's seatings, from its manifest's table."""
    table = manifest["config"]["tables"][0]
    teams = games.adapter(manifest.get("game", games.DEFAULT_GAME)).seat_teams(int(table["seats"]))
    return duel_design(tuple(table["agents"]), teams)


def folder_differences(folder: str | RunFolder, in_order: bool = False) -> np.ndarray:
    """Every deal's paired difference in a run folder of a duel table (``knorri-sim duel``'s, or ``knorri-sim run
    --assign duel``'s), over its finished chunks in chunk order; with ``in_order``, only up to the first chunk
    missing, so the differences are the deals in deal order that the sequential test reads."""
    folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    manifest = duel_manifest(folder)
    design = manifest_design(manifest)
    chunks = sorted(integrity.verified_chunks(folder).records)  # each shard checked against its record
    if in_order:
        chunks = [chunk for index, chunk in enumerate(chunks) if chunk == index]
    parts = [chunk_differences(folder, chunk, design) for chunk in chunks]
    return np.concatenate(parts) if parts else np.zeros(0)


@dataclass
class DuelState:
    """The test as the chunks come in: each finished chunk's differences, and the verdict at the latest look."""

    setup: DuelSetup
    test: Sprt
    folder: RunFolder
    report: Callable[[DuelState], None] | None = None  # called whenever the test has looked again
    differences: dict[int, np.ndarray] = field(default_factory=dict)
    verdict: Verdict = field(default_factory=lambda: Verdict(CONTINUE, 0, math.nan, (math.nan, math.nan), 0.0,
                                                             math.nan))

    @property
    def decision(self) -> str:
        """``H1``, ``H0``, ``undecided`` (no bound crossed by ``max_deals``) or ``continue`` (still playing)."""
        return duel_decision(self.verdict, self.setup.max_deals)

    def deals_in_order(self) -> np.ndarray:
        """The differences of the finished chunks from the first up to the first one missing."""
        parts = []
        for chunk in range(len(self.differences) + 1):
            if chunk not in self.differences:
                break
            parts.append(self.differences[chunk])
        return np.concatenate(parts) if parts else np.zeros(0)

    def stop(self, finished: Collection[int]) -> bool:
        """``execute``'s stop: read the newly finished chunks, look again, and say whether the test has decided."""
        new = sorted(set(finished) - set(self.differences))
        for chunk in new:
            self.differences[chunk] = chunk_differences(self.folder, chunk, self.setup.design)
        self.verdict = sequential_test(self.deals_in_order(), self.test, looks(self.setup.max_deals))
        if self.report is not None and new:
            self.report(self)
        return self.verdict.decision != CONTINUE


@dataclass(frozen=True)
class DuelResult:
    """A finished (or resumed) duel: the test's verdict, the run folder, and this command's times."""

    state: DuelState
    deals_in_folder: int
    seconds: float
    cpu_seconds: float  # CPU the batches written by this command took, as their workers measured it


def test_record(test: Sprt) -> dict[str, float]:
    """The test a duel's manifest records under ``duel``, as its parameters."""
    return {"delta0": test.delta0, "delta1": test.delta1, "alpha": test.alpha, "beta": test.beta}


def recorded_test(manifest: dict[str, Any]) -> Sprt | None:
    """The test a duel's manifest records (``test_record``), or None for a duel table ``knorri-sim duel`` did not
    play (``run --assign duel``, or a duel from before the record)."""
    record = manifest.get("duel")
    if not isinstance(record, dict):
        return None
    try:
        return Sprt(**{key: float(record[key]) for key in ("delta0", "delta1", "alpha", "beta")})
    except (KeyError, TypeError, ValueError):
        return None


def check_folder(folder: RunFolder, config: RunConfig) -> dict[str, Any] | None:
    """The manifest of the duel already in ``folder`` (None for a new or empty folder); one line for a file, a
    folder of other things, or another run."""
    try:
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"--out {str(folder)!r} is a file: give a new folder, or the duel's folder to resume it")
        if not folder.exists() or all(storage.is_bookkeeping(name) for name in folder.names()):
            return None
        manifest = folder.read_manifest()
    except OSError as error:
        raise ConfigError(f"--out {str(folder)!r} cannot be read: {error.strerror or error}") from None
    if not isinstance(manifest, dict):
        raise ConfigError(f"--out {str(folder)!r} is not empty and holds no knorri-sim run: give a new folder")
    if manifest.get("run_id") != config.run_id():
        raise ConfigError(f"--out {str(folder)!r} holds another run (run {manifest.get('run_id')}: other agents, "
                          "seats, options, seed or --max-deals): give a new folder, or the options it was played with")
    return manifest


def play_duel(setup: DuelSetup, test: Sprt, report: Callable[[DuelState], None] | None = None,
              announce: str | None = None) -> DuelResult:
    """Play (or resume) the duel into ``setup.config.out`` until the test decides or ``max_deals`` are played;
    ``announce``: a line for stderr once its folder is taken (``execute``)."""
    started = time.perf_counter()
    config = setup.config
    folder = RunFolder(config.out or "")
    manifest = check_folder(folder, config)
    plan = plan_run(config, manifest["chunk_hands"] if manifest else None)
    if manifest is not None:
        plan.manifest = manifest
    plan.manifest["duel"] = test_record(test)  # the test this duel is read with (report, resume); the latest wins
    state = DuelState(setup, test, folder, report)
    with workers_for(config) as workers:
        final = execute(plan, folder, workers, progress=False, resumed=manifest is not None,
                        compile_first=bool(code_to_compile(config, plan.tables)), stop=state.stop,
                        announce=announce)
    before = set((manifest or {}).get("chunks_complete", []))
    cpu = sum(seconds[3] for chunk, seconds in final.get("chunk_seconds", {}).items() if int(chunk) not in before)
    in_folder = sum(len(state.differences.get(chunk, ())) for chunk in final["chunks_complete"])
    return DuelResult(state, in_folder, time.perf_counter() - started, cpu)
