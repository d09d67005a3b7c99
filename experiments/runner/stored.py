"""A run read back from its folder: its manifest checked, and the config that made it, for ``--resume`` and
``knorri-sim verify`` alike."""

from __future__ import annotations

from typing import Any

from experiments.runner.config import ConfigError, RunConfig, build_config, from_json
from experiments.runner.execute import check_schema_version
from experiments.runner.manifest import check_manifest
from experiments.runner.plan import check_lineups
from experiments.runner.storage import MANIFEST, RunFolder


def stored_run(location: str, command: str, workers: int | None = None, scheduler: str | None = None,
               decision_timeout: float | None = None) -> tuple[RunConfig, RunFolder, dict[str, Any]]:
    """The run in ``location``: its config as its manifest stores it (with new ``workers``, ``scheduler`` or
    ``decision_timeout`` if given), its folder and its manifest. A folder that holds no run this knorri-sim can
    go on with is one line (``ConfigError``) that starts with ``command`` (``--resume``, ``verify``)."""
    out = RunFolder(location)
    where = f"{command} {str(out)!r}"
    try:
        manifest = out.read_manifest() if out.is_dir() else None
    except OSError as error:
        raise ConfigError(f"{where} cannot be read: {error.strerror or error}") from None
    if manifest is None:
        raise ConfigError(f"{where} holds no knorri-sim run (no readable {MANIFEST})")
    check_manifest(manifest, f"{where}: {MANIFEST}")
    check_schema_version(manifest, out)
    stored = from_json(manifest["config"])
    raw = stored.to_json()
    raw["tables"] = [{"seats": t.seats, "agents": list(t.agents), "assign": t.assign} for t in stored.tables]
    if stored.match_hands == 1:  # a game without matches refuses the key; 1 is everyone's default
        raw.pop("match_hands")
    raw["continue_past_cutoff"] = raw.pop("continuation")  # stored checked, under the field's name
    raw["workers"] = workers if workers is not None else stored.workers
    raw["scheduler"] = scheduler if scheduler is not None else stored.scheduler
    raw["out"] = str(out)
    if decision_timeout is not None:
        raw["decision_timeout"] = decision_timeout
    config = build_config({k: v for k, v in raw.items() if v is not None}, f"{command} {out}")
    if config.run_id() != manifest.get("run_id"):
        raise ConfigError(f"{where}: the manifest's config does not match its run id")
    check_lineups(config)
    return config, out, manifest
