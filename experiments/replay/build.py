"""A deal's replay: one drawn position per decision with the log lines each decision caused, for any game.

Written once against the game contract: the adapter deals (``deal``), describes
its log (``describe_event``, ``describe_end``) and draws positions
(``sim.contract.GameRender``); nothing here knows a game's rules. A replay is the
played deal's decisions applied one by one to a fresh deal from the same seed,
so it shows exactly what was played. The decisions come from a run's actions
table when it was logged, and otherwise from playing the row's seed with its
lineup again, as ``knorri-sim play`` does; a lineup whose choices would not come
out the same (a wall-clock budget, an agent that cannot be built here) is refused
in one line, and a rebuilt deal whose decisions differ from the row's record is too.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from agents.base import AgentSpecError, parse_spec
from experiments.analysis.load import complete_shards, read_manifest, run_game
from experiments.errors import UsageError
from experiments.runner import compiling, integrity, routes
from experiments.runner.seating import build_agent
from experiments.runner.storage import ACTIONS_DIR, RunFolder, shard_name
from sim import games
from sim.contract import renderer
from sim.reference_base import ReferenceGame
from sim.seating import SeatedAgent, play_guarded, play_on, play_with_agents

WALL_CLOCK_KEYS = ("time",)  # agent parameters that budget by the clock: their choices depend on the machine


@dataclass(frozen=True)
class Replay:
    """A played deal step by step: ``frames[k]`` is the position after ``k`` decisions (0: as dealt), ``lines[k]``
    what decision ``k`` caused (step 0: the deal); ``repeat`` the two equal positions of a deal cut off by a repeat
    (step numbers), and ``result`` how it ended."""

    title: str
    frames: list[str]
    lines: list[list[str]]
    result: str
    repeat: tuple[int, int] | None

    @property
    def steps(self) -> int:
        """Decisions in the deal (the last frame's step number)."""
        return len(self.frames) - 1


def replay_decisions(game: str, fresh: ReferenceGame, decisions: Sequence[int], title: str,
                     seat: int | None = None, row: Mapping[str, Any] | None = None,
                     continuation: Mapping[str, Any] | None = None, names: Sequence[str] | None = None) -> Replay:
    """Apply ``decisions`` to ``fresh`` (a deal as dealt) one by one, drawing each position (for ``seat`` alone
    if given, each seat named by its agent in ``names``) and describing each decision's events; ``row`` is the
    run's row, for the repeat's columns. With a ``continuation`` (the run's checked rules), decisions left after a
    cut-off play the deal on past it."""
    adapter = games.adapter(game)
    draw = renderer(adapter)
    seen = len(fresh.log)
    frames = [draw.render_svg(fresh, seat, names)]
    lines = [[adapter.describe_event(event) for event in fresh.log]]
    cut_result, cut_span = None, None
    for action in decisions:
        if fresh.done and continuation is not None and cut_result is None:
            cut_result, cut_span = adapter.describe_end(fresh), draw.repeat_span(fresh, row)
            fresh.continue_past_cutoff(**continuation)
        mover = fresh.to_move
        fresh.apply(int(action))
        caused = [adapter.describe_event(event) for event in fresh.log[seen:]]
        lines.append(caused or [f"seat {mover}: {adapter.action_text(int(action))}"])  # a choice not yet logged
        seen = len(fresh.log)
        frames.append(draw.render_svg(fresh, seat, names))
    if not fresh.done:
        raise UsageError(f"the {len(decisions)} decisions given do not finish the deal: the actions table is "
                         "incomplete")
    result = adapter.describe_end(fresh)
    lines[-1] += result.splitlines()
    if cut_result is not None:
        result = f"cut off by the rules: {cut_result}\nplayed on past the cut-off: {result}"
        return Replay(title, frames, lines, result, cut_span)
    return Replay(title, frames, lines, result, draw.repeat_span(fresh, row))


def check_replayable(game: str, specs: Sequence[str], what: str) -> list[SeatedAgent]:
    """The lineup's agents, built, if replaying ``specs`` gives the same choices; else one line saying why not."""
    agents = []
    for seat, spec in enumerate(specs):
        try:
            _, params = parse_spec(spec)
            clock = [key for key in WALL_CLOCK_KEYS if key in params]
            if clock:
                raise UsageError(f"{what} cannot be replayed exactly: seat {seat}'s agent {spec!r} plays to a "
                                 f"wall-clock budget ({clock[0]}=), so its choices depend on the machine; "
                                 "a run with --log-actions can be replayed from its actions")
            agents.append(SeatedAgent(build_agent(spec, game), spec, None))
        except AgentSpecError as error:
            raise UsageError(f"{what} cannot be replayed exactly: seat {seat}'s agent {spec!r} cannot be built "
                             f"here ({error})") from None
    return agents


def played_decisions(game: str, n_seats: int, seed: int, specs: Sequence[str], options: Mapping[str, Any],
                     first: int | None, what: str, continuation: Mapping[str, Any] | None = None) -> list[int]:
    """The decisions of the deal from ``seed`` played by ``specs`` (agents reset as the runner resets them); with
    a ``continuation``, a deal the rules cut off is played on past the cut by the same agents, as the run did."""
    adapter = games.adapter(game)
    agents = check_replayable(game, specs, what)
    compiling.announce(routes.compiled_code(adapter, game, routes.REFERENCE, specs))  # what they compile first
    deal = adapter.deal(n_seats, seed, options, first)
    play_guarded(lambda: play_with_agents(deal, agents, seed), agents, what, adapter.action_text)
    if continuation is not None and deal.end_reason in adapter.CUT_OFFS:
        deal.continue_past_cutoff(**continuation)
        play_guarded(lambda: play_on(deal, agents), agents, what, adapter.action_text)
    return list(deal.decisions)


def fresh_replay(game: str, n_seats: int, seed: int, specs: Sequence[str], options: Mapping[str, Any],
                 first: int | None = None, seat: int | None = None) -> Replay:
    """A new deal from ``seed`` played by ``specs``, step by step."""
    adapter = games.adapter(game)
    what = f"the {adapter.ROW} with seed {seed}"
    check_seat(seat, n_seats)
    decisions = played_decisions(game, n_seats, seed, specs, options, first, what)
    title = f"{adapter.TITLE}, {n_seats} seats, seed {seed}: {'; '.join(specs)}"
    return replay_decisions(game, adapter.deal(n_seats, seed, options, first), decisions, title, seat,
                            names=specs)


def run_replay(run_dir: str | Path, hand_index: int, seat: int | None = None) -> Replay:
    """Row ``hand_index`` of the run in ``run_dir``, step by step: from its actions table when the run logged one,
    else rebuilt from its seed and lineup; refused in one line when that cannot be done exactly."""
    folder = Path(run_dir)
    manifest = read_manifest(folder)
    game = run_game(manifest)
    adapter = games.adapter(game)
    row = _run_row(folder, manifest, hand_index, adapter.ROW)
    n_seats = int(row["n_seats"])
    check_seat(seat, n_seats)
    specs = [str(row[f"agent_{s}"]) for s in range(n_seats)]
    options = adapter.check_options(manifest["config"].get("options") or {})
    continuation = _continuation(adapter, options, manifest, row)
    declared = {column.name for column in adapter.HAND_COLUMNS}
    first = int(row["first_seat"]) if "first_seat" in declared else None
    seed = int(row["seed"])
    what = f"{adapter.ROW} {hand_index} of {folder}"
    decisions = _logged_decisions(folder, int(row["chunk"]), hand_index)
    if decisions is None:
        decisions = played_decisions(game, n_seats, seed, specs, options, first, what, continuation)
    counted = "continued_decisions" if continuation is not None else "decisions"
    if "decisions_crc32" in declared and (len(decisions), zlib.crc32(bytes(decisions))) != (
            int(row[counted]), int(row[f"{counted}_crc32"])):
        raise UsageError(f"{what} cannot be replayed exactly: replayed, its {len(decisions)} decisions differ from "
                         f"the {int(row[counted])} the run recorded ({counted}_crc32)")
    title = f"{adapter.TITLE} run {manifest.get('run_id', folder.name)}, {adapter.ROW} {hand_index} " \
            f"({n_seats} seats, seed {seed}): {'; '.join(specs)}"
    return replay_decisions(game, adapter.deal(n_seats, seed, options, first), decisions, title, seat, row,
                            continuation, specs)


def _continuation(adapter: Any, options: Mapping[str, Any], manifest: Mapping[str, Any],
                  row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The run's continuation rules if it played this row on past its cut-off (its ``continued_decisions`` set),
    else None: such a row is replayed through its continuation."""
    rules = manifest["config"].get("continuation")
    if not rules or row.get("continued_decisions") is None:
        return None
    return adapter.check_continuation(options, rules)


def check_seat(seat: int | None, n_seats: int) -> None:
    """Refuse a ``--seat`` the table does not have, in one line."""
    if seat is not None and not 0 <= seat < n_seats:
        raise UsageError(f"--seat must be a seat of the {n_seats}-seat table, 0 to {n_seats - 1}, not {seat}")


def _run_row(folder: Path, manifest: dict[str, Any], hand_index: int, row_name: str) -> dict[str, Any]:
    """The run's row ``hand_index`` (every column, as Python values), read from its complete shards."""
    paths = complete_shards(folder, manifest)
    # one shard at a time (its footer's statistics skip it unread unless it may hold the row): a read of every shard
    # at once holds every footer, which grows with the run (docs/scaling.md)
    for path in paths:
        table = pq.read_table(path, filters=[("hand_index", "=", hand_index)], partitioning=None,
                              page_checksum_verification=True)
        if table.num_rows:
            break
    if table.num_rows == 0:
        total = sum(pq.read_metadata(p).num_rows for p in paths)
        raise UsageError(f"--hand-index {hand_index}: the run's complete chunks hold no such {row_name} "
                         f"(they hold {total:,}, hand_index 0 to {int(manifest.get('hands_total', total)) - 1})")
    return {name: value for name, value in zip(table.column_names, table.slice(0, 1).to_pylist()[0].values(),
                                               strict=True)}


def _logged_decisions(folder: Path, chunk: int, hand_index: int) -> list[int] | None:
    """The row's decisions in order from the run's actions table, or None when the run did not log it."""
    path = folder / ACTIONS_DIR / shard_name(chunk)
    if not path.is_file():
        return None
    integrity.check_table(RunFolder(folder), ACTIONS_DIR, [chunk])
    table = pq.read_table(path, columns=["hand_index", "step", "action"], partitioning=None,
                          page_checksum_verification=True)
    table = table.filter(pc.equal(table.column("hand_index"), hand_index))
    order = pc.sort_indices(table, sort_keys=[("step", "ascending")])
    return [int(a) for a in table.column("action").take(order).to_pylist()]
