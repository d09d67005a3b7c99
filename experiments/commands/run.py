"""``knorri-sim run``: play a configured experiment in parallel into a parquet dataset, resumably.

With no options it runs ``experiments/configs/default.toml`` (Knorri); with only
``--game knockout-whist`` or ``--game kort``, ``experiments/configs/knockout_whist.toml``
or ``kort.toml``. Options
override the config file's keys; ``--resume DIR`` takes everything from DIR's
manifest, its game included (only ``--workers``, ``--scheduler``,
``--decision-timeout`` and ``--no-progress`` may change), and refuses to play
the rest of a run with other code than its finished chunks were made with
unless ``--accept-changes`` says to (``execute.check_code``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents import lineup
from agents.lineup import split_agent_specs
from experiments.commands.common import seat_count_list
from experiments.compile_notice import claim
from experiments.duel.reading import read_duel
from experiments.duel.sprt import CONTINUE
from experiments.errors import print_trace
from experiments.runner import estimate, storage
from experiments.runner.compiling import code_to_compile, compile_notice
from experiments.runner.config import (
    ASSIGN_MODES,
    CONFIG_DIR,
    DECISION_TIMEOUT,
    MATCH_HANDS,
    ConfigError,
    RunConfig,
    build_config,
    check_game,
    config_path,
    config_summary,
    default_config,
    default_experiment,
    game_adapter,
    lineup_at_seats,
    load_file,
    option_settings,
    shipped_configs,
)
from experiments.runner.execute import (
    RunPlan,
    RunStopped,
    check_code,
    execute,
    plan_run,
    plays_small,
    run_tables,
    workers_for,
)
from experiments.runner.plan import check_lineups, rounding_note
from experiments.runner.schema import SCHEMA_VERSION
from experiments.runner.storage import RunFolder
from experiments.runner.stored import stored_run
from experiments.runner.summary import format_summary, summarise_run
from experiments.runner.verify import recorded_chunks
from sim import games
from sim.contract import check_seats, plural
from sim.engine_words import spelled
from sim.errors import AgentFailure, GameInputError

if TYPE_CHECKING:
    from experiments.runner.chunk import ChunkTask

# Options that define the experiment (not allowed with --resume), and their config keys.
EXPERIMENT_OPTIONS = {"config": None, "game": "game", "option": "options", "seats": "seats", "agents": "agents",
                      "assign": "assign", "hands": "hands", "matches": "matches", "match_hands": "match_hands",
                      "seed": "seed", "out": "out", "log_actions": "log_actions", "chunk_hands": "chunk_hands",
                      "engine": "engine", "continue_past_cutoff": "continue_past_cutoff"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``run``; every one defaults to the config file's value."""
    parser.add_argument("--config", metavar="FILE|NAME", help="a TOML or YAML experiment file, or a shipped one "
                        "by its name, e.g. seat_counts (--list-configs lists them; default: "
                        "experiments/configs/default.toml, or <game>.toml with --game knockout-whist or kort); "
                        "options given here override its keys, the rest (e.g. assign = rotate in the default) "
                        "come from it")
    parser.add_argument("--game", metavar="|".join(games.names()),
                        help="which game (default: the config's, else knorri)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                        help="a game option, e.g. dogs_life=false or target_wins=3 (repeatable; Knorri's are its "
                             "cut-offs, cap=N and repeat=K)")
    parser.add_argument("--continue-past-cutoff", action="append", metavar="NAME=VALUE",
                        help="play every hand the cut-off rules stop on past the cut, the same hand with the same "
                        "agents, under these rules (repeat=0, and cap=N at least the table's; default repeat=0 "
                        "cap=20000; repeatable; config key continue_past_cutoff): the row keeps its outcome and "
                        "gains continued_* columns")
    parser.add_argument("--seats", metavar="N[,N…]", help="seat count(s), 3 to 6 for Knorri, 2 to 7 for "
                        "Knockout Whist, 4 for Kort; one table per count; without --agents, each seats the config's "
                        "lineup for that count (its lineups key), else its lineup cycled or trimmed")
    parser.add_argument("--agents", metavar="SPECS", help=lineup.SYNTAX)
    parser.add_argument("--assign", choices=ASSIGN_MODES,
                        help="seat the lineup as given, in every rotation, in every permutation, or (balanced) "
                             "read it as a pool of agents, any number, and seat every ordering of them one per "
                             "seat (team), wrapping round when there are more seats than agents, or (duel) read it "
                             "as A, B and the other seats' specs and play every rotation of the tested seat (team) "
                             "once with A and once with B, as knorri-sim duel does; each on the same deals "
                             "(duplicate deals)")
    parser.add_argument("--hands", type=int, metavar="H", help="hands per table, or games for Knockout Whist, "
                        "matches for Kort (rounded up to whole duplicate sets)")
    parser.add_argument("--matches", type=int, metavar="M",
                        help="matches per table (rounded up to whole duplicate sets)")
    parser.add_argument("--match-hands", type=int, choices=MATCH_HANDS,
                        help="Knorri: hands per match (with --matches)")
    parser.add_argument("--seed", type=int, metavar="S", help="the master seed every hand's seed derives from")
    parser.add_argument("--workers", type=int, metavar="W", help="local worker processes (default: every core)")
    parser.add_argument("--out", metavar="DIR|URL", help="a new or empty output folder (default runs/<time>-<run id>), "
                        "or an fsspec URL such as s3://bucket/run, where the workers write their own shards")
    parser.add_argument("--resume", metavar="DIR|URL", help="finish the run in DIR: every table of every chunk is "
                        "checked, and only missing or damaged chunks are played")
    parser.add_argument("--accept-changes", action="store_true",
                        help="with --resume: go on although the agents' code, the project's code or numpy, numba "
                             "or Python changed since the finished chunks were made (refused otherwise), and "
                             "record the change in the manifest")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the chunks on an existing Dask cluster, e.g. tcp://10.0.0.5:8786")
    parser.add_argument("--log-actions", action="store_true", default=None,
                        help="also write every decision (actions/ table), enough to replay every hand")
    parser.add_argument("--chunk-hands", type=int, metavar="N", help="hands per chunk (shard); default about 1/64 "
                        "of the run, at most 20,000 for compiled lineups and 200 for Python agents")
    parser.add_argument("--decision-timeout", type=float, metavar="SECONDS",
                        help=f"end the run if a Python agent takes longer than this over one decision (default "
                             f"{DECISION_TIMEOUT:g}; 0: no limit; compiling its kernels does not count); may change "
                             "on --resume")
    parser.add_argument("--engine", choices=spelled(),
                        help="what plays the lineups: auto (default: compiled code wherever it plays the lineup "
                             "and keeps any action log, unless the reference engine would finish a small table of "
                             "the engine's own policies before the engine compiles; else the reference engine), "
                             "compiled (refused for a lineup it cannot play; fast is an old name for it) or "
                             "reference; every engine writes the same rows")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--list-configs", action="store_true",
                        help="list the shipped experiment configs, a line each, and exit")


def run(args: argparse.Namespace) -> int:
    """Plan, check, run and summarise. Bad input is exit code 2 with nothing written; a run stopped part-way
    (an agent failed or hung, a worker or the scheduler was lost) is exit code 1, its finished chunks kept."""
    started = time.perf_counter()
    if args.list_configs:
        _list_configs()
        return 0
    if args.accept_changes and not args.resume:
        raise ConfigError("--accept-changes goes with --resume DIR: a new run has no earlier chunks to differ from")
    if args.resume:
        decided = _decided_duel(args.resume)
        if decided:
            print(decided)
            return 0
        config, out, manifest = _resumed(args)
    else:
        config = _config_from(args)
        if not config.out:
            config = config.replaced(out=str(Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{config.run_id()}"))
        out = RunFolder(config.out)
        _check_new_folder(out, config)
        manifest = None
    plan = plan_run(config, manifest["chunk_hands"] if manifest else None)
    if manifest is not None:
        if len(plan.chunks) != manifest["chunks_total"]:
            raise ConfigError(f"--resume {str(out)!r}: the manifest plans {manifest['chunks_total']} chunks but its "
                              f"config and chunk_hands make {len(plan.chunks)}: the manifest disagrees with itself "
                              "(was it edited?)")
        plan.manifest = manifest
    done = recorded_chunks(out, plan.chunks) if out.is_dir() else set()
    if manifest is not None:
        check_code(plan, manifest, done, args.accept_changes, out)  # before any notice; execute checks again
    to_compile = code_to_compile(config, plan.tables)
    with workers_for(config) as workers:
        todo = [task for task in plan.tasks if task.chunk.id not in done]
        workers.start_early(todo, bool(to_compile), plays_small(todo))  # its workers start as this one estimates
        said = [claim(compile_notice(to_compile)), _estimate_line(plan, todo),
                rounding_note(config, plan.tables) if manifest is None else None]  # the rounding: not on resume
        try:
            final = execute(plan, out, workers, progress=not args.no_progress, resumed=manifest is not None,
                            compile_first=bool(to_compile), accept_changes=args.accept_changes,
                            announce="\n".join(line for line in said if line) or None)
        except RunStopped as error:
            print_trace(error.trace, args)
            print(f"knorri-sim: error: {error}", file=sys.stderr)
            return 1
    seconds = time.perf_counter() - started
    adapter = config.adapter
    print(format_summary(summarise_run(out, adapter), adapter, config.options))
    folders = [f"{out.location.rstrip('/')}/{name}" for name in run_tables(config)]
    print(f"{final['hands_total']:,} {plural(adapter.ROW)} in {len(final['chunks_complete'])} chunks; this "
          f"command took {seconds:.1f} s; dataset: " + ", ".join(map(str, folders[:-1])) +
          (" and " if len(folders) > 1 else "") + str(folders[-1]))
    return 0


def _list_configs() -> None:
    """Print each shipped config's name and first comment line, and where it is."""
    shipped = shipped_configs()
    width = max(map(len, shipped))
    for name, path in shipped.items():
        print(f"{name:<{width}}  {config_summary(path)}")
    print(f"(in {CONFIG_DIR}; run one with knorri-sim run --config NAME)")


def _estimate_line(plan: RunPlan, todo: list[ChunkTask]) -> str | None:
    """For a long run, or one writing a large action log, the estimate to print on stderr before it plays
    (``estimate.warning``); ``todo``: the chunks not yet in the folder."""
    config = plan.config
    if not todo:
        return None
    workers = None if config.scheduler else estimate.local_workers(config.workers)
    try:
        line = estimate.warning(estimate.estimate_run(todo, config.adapter, plan.engine_speed, config.log_actions,
                                                      workers), workers)
    except AgentFailure:  # the run itself stops on it with the full message
        return None
    return line


def _config_from(args: argparse.Namespace) -> RunConfig:
    """The config file (or the default one) with the given options laid over it, checked."""
    given = {key: getattr(args, opt) for opt, key in EXPERIMENT_OPTIONS.items()
             if key and getattr(args, opt) is not None}
    notice = None
    game = args.game or games.DEFAULT_GAME
    if args.config:
        raw: dict[str, Any] = load_file(args.config)
    else:
        check_game(game, "--game")
        raw = default_experiment(game)
        if {"seats", "agents", "assign"} & set(given):  # the lineup is the command line's, not the default's
            raw["name"] = "command line"
    where = f"config {args.config!r} with options" if args.config else "options"
    if "options" in given:
        given["options"] = {**(raw.get("options") or {}), **option_settings(given["options"])}
    if "continue_past_cutoff" in given:
        given["continue_past_cutoff"] = option_settings(given["continue_past_cutoff"], "--continue-past-cutoff")
    if "hands" in given:
        raw.pop("matches", None)
        raw.pop("match_hands", None)
    if "matches" in given:
        raw.pop("hands", None)
    if "seats" in given:
        given["seats"] = seat_count_list(given["seats"])
    if "agents" in given:
        given["agents"] = split_agent_specs(given["agents"])
    elif "seats" in given and (raw.get("agents") or raw.get("tables")):
        source = config_path(args.config) if args.config else default_config(game)
        given["tables"], notice = _config_lineups(raw, given.pop("seats"), source,
                                                  given.get("game") or raw.get("game", game))
        raw.pop("seats", None)
        raw.pop("agents", None)
    if "seats" in given or "agents" in given or "tables" in given:
        raw.pop("tables", None)
        raw.pop("lineups", None)  # the command line chose the lineup: the config's other seat counts do not apply
    raw.update(given)
    if args.workers is not None:
        raw["workers"] = args.workers
    if args.scheduler is not None:
        raw["scheduler"] = args.scheduler
    if args.decision_timeout is not None:
        raw["decision_timeout"] = args.decision_timeout
    config = build_config(raw, where)
    check_lineups(config)
    if notice:
        print(notice, file=sys.stderr)  # once the config is good: bad input stays one line
    return config


def _config_lineups(raw: dict[str, Any], seat_counts: list[int], source: Path,
                    game: str) -> tuple[list[dict[str, Any]], str]:
    """``--seats N`` without ``--agents``: a table at each count seating the config's lineup for it
    (``lineup_at_seats``), and the line for stderr saying what each seats and where it came from."""
    adapter = game_adapter(game, "--game")
    tables, said = [], []
    for seats in seat_counts:
        try:
            check_seats(adapter, seats)
        except GameInputError as error:
            raise ConfigError(f"--seats: {error}") from None
        specs, assign, how = lineup_at_seats(raw, seats, adapter, f"config {str(source)!r}")
        tables.append({"seats": seats, "agents": specs} | ({"assign": assign} if assign else {}))
        said.append(f"{seats} seats play {'; '.join(specs)} ({how.replace('its', source.name + chr(39) + 's', 1)})")
    return tables, "--seats without --agents: " + ", and ".join(said)


def _check_new_folder(out: RunFolder, config: RunConfig) -> None:
    """Refuse a folder that is a file, holds another run, or already holds this one (use --resume)."""
    try:
        exists = out.exists()
        if exists and not out.is_dir():
            raise ConfigError(f"--out {str(out)!r} is a file: give a new or empty folder")
        if not exists or all(storage.is_bookkeeping(name) for name in out.names()):
            return  # new, empty, or only a manifest half written by a run killed at its very start
        manifest = out.read_manifest()
    except OSError as error:
        raise ConfigError(f"--out {str(out)!r} cannot be read: {error.strerror or error}") from None
    if not isinstance(manifest, dict):
        raise ConfigError(f"--out {str(out)!r} is not empty and holds no knorri-sim run: give a new or empty folder")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise ConfigError(f"--out {str(out)!r} holds a run written with schema version {manifest.get('schema_version')}"
                          f" (this knorri-sim writes {SCHEMA_VERSION}): give a new or empty folder")
    if manifest.get("run_id") != config.run_id():
        raise ConfigError(f"--out {str(out)!r} holds another run (run {manifest.get('run_id')}, not this run's "
                          f"{config.run_id()}): give a new or empty folder (--resume {out} would go on with that "
                          "other run, not this one)")
    done, total = len(manifest.get("chunks_complete", [])), manifest.get("chunks_total")
    raise ConfigError(f"--out {str(out)!r} already holds this run ({done} of {total} chunks done): "
                      f"finish or re-summarise it with --resume {out}")


def _decided_duel(folder: str) -> str | None:
    """For a duel's folder (``knorri-sim duel``'s), what ``--resume`` says instead of playing: that its test has
    decided (None for any other run, whose checks ``_resumed`` makes). A duel not decided yet is refused in one line
    naming the duel command that plays on: ``run --resume`` would play all its deals, with no test to stop them."""
    try:
        manifest = RunFolder(folder).read_manifest()
        duel = read_duel(folder, manifest) if isinstance(manifest, dict) else None
    except (OSError, ConfigError, KeyError, TypeError, ValueError):
        return None  # not a readable duel: _resumed says what is wrong with the folder
    if duel is None:
        return None
    if duel.decision == CONTINUE:
        raise ConfigError(f"--resume {folder!r}: {duel.state_line()}, not knorri-sim run --resume (which would play "
                          "every deal the duel may, with no test to stop it)")
    return f"--resume {folder}: nothing to play: {duel.state_line()} (knorri-sim report {folder} draws it)"


def _resumed(args: argparse.Namespace) -> tuple[RunConfig, RunFolder, dict[str, Any]]:
    """The stored config of the run in ``--resume DIR`` (with new workers or scheduler, if given)."""
    clashing = [f"--{opt.replace('_', '-')}" for opt in EXPERIMENT_OPTIONS if getattr(args, opt) is not None]
    if clashing:
        raise ConfigError(f"--resume takes the experiment from its manifest; {clashing[0]} cannot be given with it "
                          "(only --workers, --scheduler, --decision-timeout, --accept-changes and --no-progress can)")
    return stored_run(args.resume, "--resume", args.workers, args.scheduler, args.decision_timeout)
