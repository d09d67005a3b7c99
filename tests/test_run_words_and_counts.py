"""A run's words and figures match its own options (its cap, percent signs, singular counts), and every count it
stores is a signed integer, so differences never wrap; older runs are read as signed."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from experiments.analysis.knorri import stats as knorri_stats
from experiments.analysis.knorri.figures import phase2_length_figure
from experiments.analysis.knorri.load import load_run
from experiments.analysis.knorri.stream import stream_run
from experiments.analysis.load import read_shards
from experiments.cli import main
from experiments.runner.schema import SCHEMA_VERSION, extra_columns, game_columns, id_columns
from experiments.runner.summary import legend
from sim import games
from sim.contract import plural

# ----- words and figures that match their run -------------------------------------------------------------------


@pytest.fixture(scope="module")
def capped_run(tmp_path_factory) -> tuple[Path, str]:
    """Random play at 3 seats under cap=20000 and no repeat check: the folder and what ``run`` printed."""
    out = tmp_path_factory.mktemp("words") / "run"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["run", "--seats", "3", "--agents", "random", "--hands", "12", "--option", "cap=20000",
                     "--option", "repeat=0", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    return out, printed.getvalue()


def test_the_summarys_legend_quotes_the_runs_own_cap(capped_run):
    legend_line = capped_run[1].strip().splitlines()[-2]
    assert legend_line.startswith("Legend: ")
    assert "cap = cut off at the phase-2 action cap (option cap: 20,000 phase-2 actions)" in legend_line
    assert "1,500" not in legend_line
    assert "(option cap: 1,500 phase-2 actions)" in legend(games.adapter("knorri"))  # no run: the game's default


def test_the_reports_rates_say_percent_its_counts_agree_in_number_and_one_agent_draws_no_agent_figure(capped_run,
                                                                                                       tmp_path,
                                                                                                       capsys):
    assert main(["report", str(capped_run[0]), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out.splitlines()[0]
    pages = len(list((tmp_path / "report").glob("*.html")))
    assert f" {pages} {plural('replay', pages)} and report.md" in printed and "1 replays" not in printed
    summary = (tmp_path / "report" / "report.md").read_text()
    assert "1 hand per match" in summary and "hand(s)" not in summary
    headers = [line for line in summary.splitlines() if line.startswith("| ") and "loss rate" in line]
    assert headers and all("| loss rate % |" in line for line in headers)
    assert "at the 20,000 cap" in summary
    assert not (tmp_path / "report" / "agent_scores.png").exists()  # one agent: nothing to tell apart
    assert "Not drawn: " in summary and "agent_scores" in summary


def test_counted_words_are_singular_for_one():
    assert [plural("replay", n) for n in (0, 1, 2)] == ["replays", "replay", "replays"]
    assert plural("match", 1) == "match" and plural("match") == "matches"


def test_the_phase2_figure_marks_the_runs_own_cap(capped_run):
    histogram = knorri_stats.phase2_histogram(stream_run(capped_run[0]))
    drawn = phase2_length_figure(histogram)
    marked = [line.get_xdata()[0] for line in drawn.axes[0].lines if line.get_label() == "cap: 20,000 actions"]
    assert marked == [20000]

# ----- counts that subtract safely ------------------------------------------------------------------------------

BIT_PATTERNS = {"match_seed", "seed", "held", "cycle_seats", "decisions_crc32", "continued_decisions_crc32"}
"""The unsigned columns: seeds, card sets, a seat mask and checksums, never subtracted."""
VERSION_2_TYPES = {"chunk": pa.uint32(), "table": pa.uint8(), "deal_group": pa.uint32(), "arrangement": pa.uint16(),
                   "match": pa.uint32(), "hand_in_match": pa.uint8(), "n_seats": pa.uint8(), "first_seat": pa.uint8(),
                   "loser": pa.uint8(), "phase2_actions": pa.uint32(), "tricks_completed": pa.uint32(),
                   "redeals": pa.uint8(), "seats_out_after_phase1": pa.uint8(), "pile": pa.uint8(),
                   "cycle_length": pa.uint32(), "decisions": pa.uint32(), "cycle_start": pa.uint32(),
                   "cycle_choices": pa.uint32()}
"""A Knorri hands shard's column types in schema version 2 (per-seat columns by their stem): how older runs hold
their counts."""


@pytest.mark.parametrize("game", list(games.names()))
def test_every_number_in_every_table_is_signed_and_only_bit_patterns_are_unsigned(game):
    adapter = games.adapter(game)
    specs = (id_columns(adapter) + game_columns(adapter, continued=True) + sum(extra_columns(adapter).values(), ())
             + adapter.ACTION_COLUMNS)
    integers = [spec for spec in specs if spec.categories is None and np.dtype(spec.dtype).kind in "iu"]
    unsigned = {spec.name for spec in integers if np.dtype(spec.dtype).kind == "u"}
    assert unsigned <= BIT_PATTERNS, unsigned - BIT_PATTERNS
    counts = {spec.name: spec.dtype for spec in integers if spec.name in ("decisions", "phase2_actions", "step",
                                                                           "chunk", "match", "deal_group", "rounds")}
    assert set(counts.values()) <= {"int32", "int64"}, counts


def test_a_runs_counts_subtract_to_the_differences_of_their_values(capped_run):
    hands = pd.read_parquet(capped_run[0] / "hands")
    for column in hands.columns:
        if hands[column].dtype.kind in "iu":
            assert hands[column].dtype.kind == "i" or re.sub(r"_\d+$", "", column) in BIT_PATTERNS, column
    lengths = hands["phase2_actions"]
    assert lengths.nunique() > 1
    shifted = lengths.shift(-1).dropna().astype(lengths.dtype)
    differences = (lengths.iloc[:-1].reset_index(drop=True) - shifted.reset_index(drop=True)).tolist()
    assert differences == [int(a) - int(b) for a, b in zip(lengths.iloc[:-1], lengths.iloc[1:], strict=True)]
    assert min(differences) < 0  # a negative difference, not 4,294,967,...


def _as_version_2(folder: Path) -> None:
    """Rewrite a run's hands shards and manifest as schema version 2 wrote them: unsigned counts, and no checksums
    (its chunks are checked by their row counts alone)."""
    for path in sorted((folder / "hands").glob("*.parquet")):
        table = pq.read_table(path, partitioning=None)
        for index, field in enumerate(table.schema):
            old = VERSION_2_TYPES.get(re.sub(r"_\d+$", "", field.name))
            if old is not None:
                table = table.set_column(index, pa.field(field.name, old, field.nullable),
                                         table.column(index).cast(old))
        metadata = {**(table.schema.metadata or {}), b"knorri_sim_schema_version": b"2"}
        pq.write_table(table.replace_schema_metadata(metadata), path)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.pop("chunk_sha256")
    (folder / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 2}))


def test_a_run_of_schema_version_2_is_read_with_signed_counts_and_its_resume_refused(capped_run, tmp_path, capsys):
    old = tmp_path / "old"
    shutil.copytree(capped_run[0], old)
    _as_version_2(old)
    assert pq.read_schema(next((old / "hands").glob("*.parquet"))).field("phase2_actions").type == pa.uint32()
    read = read_shards(old, sorted((old / "hands").glob("*.parquet")), lambda width: ["phase2_actions", "pile_0"])
    assert read.schema.field("phase2_actions").type == pa.int32() and read.schema.field("pile_0").type == pa.int32()
    now, then = load_run(capped_run[0]), load_run(old)
    assert then.hands["phase2_actions"].dtype == now.hands["phase2_actions"].dtype
    assert then.hands["phase2_actions"].dtype.kind == "i"
    pd.testing.assert_frame_equal(then.hands, now.hands)
    assert main(["report", str(old), "--out", str(tmp_path / "report")]) == 0
    assert main(["replay", str(old), "--hand-index", "1", "--out", str(tmp_path / "hand.html")]) == 0
    capsys.readouterr()
    assert main(["run", "--resume", str(old)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"schema version 2 and this knorri-sim writes version {SCHEMA_VERSION}" in err
