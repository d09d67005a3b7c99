"""Every command takes Knorri's cut-off options (``--option cap=N --option repeat=K``), passes them down to the
hands it plays, records them in the manifest, and refuses out-of-range values in one line; runs that differ only
in options get different run ids and the same hand seeds; an old-schema run is refused on resume in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA

from experiments.cli import main
from experiments.runner.config import build_config
from experiments.runner.schema import SCHEMA_VERSION

VARIANTS = DATA / "conformance" / "knorri" / "variants"
RUN = ["--seats", "3", "--agents", "random", "--hands", "12", "--engine", "reference", "--workers", "1",
       "--no-progress"]


def one_line_error(capsys, argv: list[str]) -> str:
    """Run a command expecting a user error: exit code 2, nothing on stdout, one line on stderr, no traceback."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == "" and "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err.strip()


def run_into(folder: Path, *options: str) -> dict:
    """``knorri-sim run`` of the small reference run with ``options``; its manifest."""
    assert main(["run", *RUN, *options, "--out", str(folder)]) == 0
    return json.loads((folder / "manifest.json").read_text())


def hands_of(folder: Path) -> pd.DataFrame:
    return pd.read_parquet(folder / "hands").sort_values("hand_index").reset_index(drop=True)


# ----- traj ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, options", [("cap200", ["cap=200"]), ("threefold", ["repeat=3"]),
                                              ("norepeat", ["repeat=0", "cap=20000"])])
def test_traj_prints_the_variant_lines_under_the_options(capsys, variant, options):
    argv = ["traj", "--seats", "5", "--seeds", "0", "8"] + [arg for o in options for arg in ("--option", o)]
    assert main(argv) == 0
    expected = (VARIANTS / f"traj_{variant}_seats5_first0.txt").read_text().splitlines()[:8]
    assert capsys.readouterr().out.splitlines() == expected


# ----- play ------------------------------------------------------------------------------------------------------


def test_play_plays_the_hand_under_the_options(capsys):
    assert main(["play", "--seats", "4", "--seed", "3", "--option", "cap=7"]) == 0
    out = capsys.readouterr().out
    assert "result: cap, " in out and " 7 phase-2 actions" in out
    assert main(["play", "--seats", "4", "--seed", "3", "--option", "cap=7", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[-1]["kind"] == "end" and events[-1]["reason"] == "cap"
    assert sum(1 for e in events if e["kind"] in ("play", "pickup")) == 7


def test_play_of_a_match_plays_every_hand_under_the_options(capsys):
    assert main(["play", "--seats", "3", "--seed", "1", "--hands", "3", "--option", "cap=9"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("hand ")]
    assert len(lines) == 3 and all(re.search(r"result: (cap|out|repeat), .* ([0-9]) phase-2 actions", line)
                                   for line in lines)


# ----- run: the manifest, the run id, the seeds ------------------------------------------------------------------


def test_run_plays_under_the_options_and_the_manifest_records_them(tmp_path):
    manifest = run_into(tmp_path / "cap", "--option", "cap=30", "--option", "repeat=3")
    assert manifest["config"]["options"] == {"cap": 30, "repeat": 3}
    hands = hands_of(tmp_path / "cap")
    assert hands["phase2_actions"].max() <= 30 and (hands["end_reason"] == "cap").any()


def test_runs_differing_only_in_options_get_other_ids_and_the_same_hand_seeds(tmp_path):
    default = run_into(tmp_path / "default")
    capped = run_into(tmp_path / "capped", "--option", "cap=30")
    assert default["run_id"] != capped["run_id"]
    assert default["config"]["options"] == {"cap": 1500, "repeat": 2}
    first, second = hands_of(tmp_path / "default"), hands_of(tmp_path / "capped")
    assert list(first["seed"]) == list(second["seed"]) and list(first["match_seed"]) == list(second["match_seed"])
    assert (second["phase2_actions"] <= 30).all() and not (first["phase2_actions"] <= 30).all()


def test_the_default_rules_keep_the_run_id_of_a_config_without_options():
    raw = {"tables": [{"seats": 4, "agents": ["random"] * 4}], "hands": 100, "seed": 5}
    plain = build_config(dict(raw))
    explicit = build_config({**raw, "options": {"cap": 1500, "repeat": 2}})
    assert plain.options == explicit.options == {"cap": 1500, "repeat": 2}
    assert "options" not in plain.identity() and "game" not in plain.identity()  # as before the options existed
    assert plain.run_id() == explicit.run_id() != build_config({**raw, "options": {"repeat": 3}}).run_id()


def test_resuming_a_run_of_an_older_schema_is_one_line(tmp_path, capsys):
    run_into(tmp_path / "old")
    capsys.readouterr()
    manifest_path = tmp_path / "old" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["schema_version"] = 1
    manifest_path.write_text(json.dumps(manifest))
    said = one_line_error(capsys, ["run", "--resume", str(tmp_path / "old"), "--no-progress"])
    assert f"schema version 1 and this knorri-sim writes version {SCHEMA_VERSION}" in said
    assert SCHEMA_VERSION == 3


# ----- league and bench -------------------------------------------------------------------------------------------


def test_league_plays_every_seat_count_under_the_options(tmp_path, capsys):
    argv = ["league", "--out", str(tmp_path), "--workers", "1", "--no-progress", "--seats", "3", "--agents",
            "runner_fixtures.agents:PythonRandom,random", "--deals", "2", "--option", "cap=25"]
    assert main(argv) == 0
    manifest = json.loads((tmp_path / "seats-3" / "manifest.json").read_text())
    assert manifest["config"]["options"] == {"cap": 25, "repeat": 2}
    assert hands_of(tmp_path / "seats-3")["phase2_actions"].max() <= 25


def test_bench_plays_its_reference_deals_under_the_options(capsys):
    argv = ["bench", "--engine", "reference", "--seats", "4", "--hands", "4", "--repeat", "1", "--json"]
    assert main(argv + ["--option", "cap=10"]) == 0
    case = json.loads(capsys.readouterr().out.splitlines()[-1])
    # every hand stopped at ten actions at most (the rates are rounded to a tenth, hence the margin)
    assert case["actions_per_s"] / case["hands_per_s"] <= 10.5


def test_bench_of_a_lineup_passes_the_options_to_the_route(capsys, monkeypatch):
    from experiments.runner import routes

    seen = []
    real = routes.play_matches

    def spy(*args, **kwargs):
        seen.append(kwargs.get("options"))
        return real(*args, **kwargs)

    monkeypatch.setattr(routes, "play_matches", spy)
    argv = ["bench", "--agents", "random", "--seats", "3", "--hands", "50", "--engine", "reference", "--repeat",
            "1", "--json", "--option", "repeat=0", "--option", "cap=40"]
    assert main(argv) == 0
    assert seen and all(options == {"cap": 40, "repeat": 0} for options in seen)


# ----- refusals, on every command -------------------------------------------------------------------------------

BAD = [("cap=0", "cap must be a whole number of phase-2 actions from 1 to 1,000,000, not 0"),
       ("cap=1000001", "from 1 to 1,000,000, not 1000001"),
       ("repeat=1", "repeat must be 0 (no repeat check) or a count from 2 to 10, not 1"),
       ("repeat=11", "a count from 2 to 10, not 11")]
COMMANDS = {
    "traj": ["traj", "--seats", "4", "--seeds", "0", "2"],
    "play": ["play", "--seats", "4"],
    "run": ["run", *RUN],
    "league": ["league", "--seats", "3", "--agents", "random,greedy", "--deals", "1", "--no-progress"],
    "bench": ["bench", "--engine", "reference", "--seats", "3", "--hands", "1", "--repeat", "1"],
    "bench --agents": ["bench", "--agents", "random", "--seats", "3", "--hands", "1", "--repeat", "1"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("option, says", BAD)
def test_out_of_range_options_are_refused_in_one_line_on_every_command(capsys, tmp_path, command, option, says):
    argv = COMMANDS[command] + (["--out", str(tmp_path / "out")] if command in ("run", "league") else [])
    said = one_line_error(capsys, argv + ["--option", option])
    assert says in said
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_hand_longer_than_65535_actions_is_stored_whole_in_the_widened_columns(tmp_path):
    # Four greedy seats loop for ever in the run's second hand (it ends by repeat at the default rules), so with
    # the repeat check off it runs to the cap, past what 16-bit columns could hold. The columns are the run's
    # schema, whichever engine plays: the compiled one plays the 70,000 actions in a blink, the reference one
    # (Python greedy at every decision) took most of this file's time.
    out = tmp_path / "long"
    argv = ["run", "--seats", "4", "--agents", "greedy", "--hands", "2", "--engine", "compiled", "--workers", "1",
            "--no-progress", "--log-actions", "--option", "repeat=0", "--option", "cap=70000", "--out", str(out)]
    assert main(argv) == 0
    hands = hands_of(out)
    assert list(hands["end_reason"]) == ["out", "cap"] and hands["phase2_actions"][1] == 70000
    assert hands["decisions"][1] > 70000 and hands["tricks_completed"].dtype == "int32"
    steps = pd.read_parquet(out / "actions").query("hand_index == 1")["step"]
    assert steps.dtype == "int32" and steps.max() == hands["decisions"][1] - 1


def test_a_new_run_into_the_folder_of_an_older_schema_is_one_line(tmp_path, capsys):
    run_into(tmp_path / "old")
    capsys.readouterr()
    manifest_path = tmp_path / "old" / "manifest.json"
    manifest_path.write_text(json.dumps({**json.loads(manifest_path.read_text()), "schema_version": 1}))
    said = one_line_error(capsys, ["run", *RUN, "--out", str(tmp_path / "old")])
    assert f"holds a run written with schema version 1 (this knorri-sim writes {SCHEMA_VERSION})" in said
