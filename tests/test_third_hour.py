"""The third hour of a new user (issue 38), one test per point fixed: the default run at any seat count, words and
figures that match their run, replays that name their agents, notebooks that run anywhere, a first bot on the site
and counts that subtract safely. The duel's verdicts and folder (points 1 and 3) are tested in
``test_duel_verdicts.py``."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from notebook_runs import errors, execute, execute_cells, images, make_kernel_dir, printed
from test_readme_commands import page_files

from agents.lineup import cycle_to_seats
from experiments.analysis.knorri import stats as knorri_stats
from experiments.analysis.knorri.figures import phase2_length_figure
from experiments.analysis.knorri.load import load_run, stream_run
from experiments.analysis.knorri.sample import make_small_run
from experiments.analysis.load import read_shards
from experiments.cli import build_parser, main
from experiments.commands import run as run_command
from experiments.errors import ConfigError
from experiments.replay.build import fresh_replay
from experiments.runner.config import (
    DEFAULT_CONFIG,
    build_config,
    default_experiment,
    lineup_at_seats,
    load_file,
    shipped_configs,
)
from experiments.runner.schema import SCHEMA_VERSION, extra_columns, game_columns, id_columns
from experiments.runner.summary import legend
from sim import games
from sim.cards import card_list
from sim.contract import plural
from sim.knorri import render as knorri_render
from sim.knorri.encoding import PICK_UP, run_cards
from sim.svg_cards import seat_label

ROOT = Path(__file__).resolve().parents[1]


def _run_config(*argv: str):
    """The config ``knorri-sim run ARGV`` would play, built without playing it."""
    return run_command._config_from(build_parser().parse_args(["run", *argv]))


# ----- 2. the default run at any seat count ------------------------------------------------------------------------


def test_seats_alone_seats_the_lineup_the_default_config_states_for_that_count_and_says_so_in_one_line(capsys):
    config = _run_config("--seats", "3")
    stated = load_file(DEFAULT_CONFIG)["lineups"]["3"]
    assert [(t.seats, list(t.agents), t.assign) for t in config.tables] == [(3, stated, "rotate")]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "; ".join(stated) in err and "default.toml's lineup for 3 seats" in err


def test_seats_alone_at_the_configs_own_count_keeps_its_lineup():
    default = load_file(DEFAULT_CONFIG)
    config = _run_config("--seats", str(default["seats"]))
    assert list(config.tables[0].agents) == default["agents"]


def test_every_shipped_config_states_its_lineup_at_every_seat_count_its_game_has():
    for name, path in shipped_configs().items():
        raw = load_file(path)
        adapter = games.adapter(raw.get("game", games.DEFAULT_GAME))
        for seats in range(adapter.MIN_SEATS, adapter.MAX_SEATS + 1):
            specs, _, how = lineup_at_seats(raw, seats, adapter, name)
            assert "cycled" not in how and "trimmed" not in how, (name, seats, how)
            assert len(specs) in (1, seats), (name, seats, specs)


def test_a_config_that_states_no_lineup_for_a_count_has_its_lineup_cycled_or_trimmed(tmp_path, capsys):
    config_file = tmp_path / "four.toml"
    config_file.write_text('seats = 4\nagents = ["random", "greedy", "loginf", "greedy"]\nhands = 8\n')
    trimmed = _run_config("--config", str(config_file), "--seats", "3")
    cycled = _run_config("--config", str(config_file), "--seats", "6")
    assert list(trimmed.tables[0].agents) == ["random", "greedy", "loginf"]
    assert list(cycled.tables[0].agents) == ["random", "greedy", "loginf", "greedy", "random", "greedy"]
    err = capsys.readouterr().err
    assert "4-seat lineup trimmed to 3 seats" in err and "4-seat lineup cycled to 6 seats" in err
    assert cycle_to_seats(["a", "b"], 5) == ["a", "b", "a", "b", "a"]


def test_several_seat_counts_get_a_table_each_with_its_own_lineup(capsys):
    config = _run_config("--game", "knockout-whist", "--seats", "2,5")
    stated = load_file(shipped_configs()["knockout_whist"])["lineups"]
    assert [list(t.agents) for t in config.tables] == [stated["2"], stated["5"]]
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("lineups, words", [
    ({"4": ["random"]}, "already plays 4 seats"),
    ({"7": ["random"]}, "3 to 6 seats, not 7"),
    ({"3": ["random", "greedy"]}, "2 agent specs for 3 seats"),
    ({"three": ["random"]}, "must be a whole number"),
])
def test_a_lineups_key_that_names_a_count_twice_or_a_wrong_count_is_refused_in_one_line(lineups, words):
    raw = {**default_experiment(games.DEFAULT_GAME), "lineups": lineups}
    with pytest.raises(ConfigError, match=words) as caught:
        build_config(raw)
    assert "\n" not in str(caught.value)


def test_the_seats_notice_is_not_printed_when_the_command_is_refused(capsys):
    with pytest.raises(ConfigError, match="unknown option 'rainbow'"):
        _run_config("--seats", "4", "--option", "rainbow=true")
    assert capsys.readouterr().err == ""  # bad input stays one line


def test_a_seat_count_the_game_lacks_is_refused_before_anything_is_seated(capsys):
    with pytest.raises(ConfigError, match="--seats: Knorri is for 3 to 6 seats, not 7"):
        _run_config("--seats", "7")
    assert capsys.readouterr().err == ""


# ----- 7. words and figures that match their run -------------------------------------------------------------------


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
    assert "(option cap: 1,500 phase-2 actions)" in legend("knorri")  # no run: the game's default


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


# ----- 8. replays name each seat's agent and mark the legal plays --------------------------------------------------


MARKED = re.compile(r'<g class="c(?: red)? mark" transform="translate\(([-\d.]+),([-\d.]+)\)"')


def _positions(game: str, seats: int, seed: int, steps: int = 400):
    """Positions of a deal played by uniform random choices, each before a decision (a copy of the deal there)."""
    adapter = games.adapter(game)
    deal = adapter.deal(seats, seed, adapter.check_options({}), None)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if deal.done:
            return
        yield copy.deepcopy(deal)
        legal = deal.legal_actions()
        deal.apply(int(legal[int(rng.integers(len(legal)))]))


def test_a_replay_names_the_agent_at_every_seat_on_every_frame():
    specs = ["greedy", "random", "loginf", "random"]
    replay = fresh_replay("knorri", 4, 7, specs, {})
    for frame in (replay.frames[0], replay.frames[len(replay.frames) // 2], replay.frames[-1]):
        assert all(f"seat {seat}: {spec}" in frame for seat, spec in enumerate(specs))


def test_a_long_agent_name_is_shortened_beside_its_seat_and_whole_in_the_title():
    label = seat_label(1, ["random", "runner_fixtures.agents:PythonRandom"])
    assert label.startswith("seat 1: runner_fixtu") and label.endswith("\u2026") and len(label) <= 8 + 16


def test_knorris_phase2_raises_exactly_the_cards_of_the_legal_plays_of_the_seat_to_move():
    checked = 0
    for position in _positions("knorri", 4, 11, 600):
        if position.phase != 2:
            continue
        legal = position.legal_actions()
        playable = {card for action in legal if action != PICK_UP
                    for card in ([action] if action < PICK_UP else run_cards(action))}
        drawn = knorri_render.render_svg(position)
        assert len(MARKED.findall(drawn)) == len(playable), (legal, playable)
        others = [seat for seat in range(4) if seat != position.to_move]
        assert MARKED.findall(knorri_render.render_svg(position, seat=others[0])) == []  # not its turn: no marks
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("game, seats", [("knockout-whist", 4), ("kort", 4)])
def test_the_other_games_raise_the_legal_cards_of_the_seat_to_move(game, seats):
    adapter = games.adapter(game)
    checked = 0
    for position in _positions(game, seats, 5, 120):
        hand = card_list(position.hands[position.to_move])
        cards = [action for action in position.legal_actions() if action in hand]
        assert len(MARKED.findall(adapter.render_svg(position))) == len(cards)
        checked += bool(cards)
    assert checked > 5


# ----- 5. notebooks that run anywhere ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_without_widgets(tmp_path_factory) -> Path:
    """A kernel of this interpreter in which ``import ipywidgets`` fails, as in a Jupyter that lacks it."""
    return make_kernel_dir(tmp_path_factory.mktemp("bare-kernel"), without=("ipywidgets",))


def test_duckdb_is_quiet_in_a_kernel_without_ipywidgets_where_it_refuses_to_change_its_progress_bar(
        kernel_without_widgets):
    checked = execute_cells([
        "try:\n    import ipywidgets\n    print('ipywidgets found')\nexcept ImportError:\n    print('no ipywidgets')",
        "import duckdb\ntry:\n    duckdb.connect().execute('SET enable_progress_bar = false')\n"
        "except duckdb.InvalidInputException as error:\n    print('refused:', error)",
        "from experiments.analysis.duck import connect\nwith connect() as con:\n"
        "    print('progress bar', con.execute(\"SELECT current_setting('enable_progress_bar')\").fetchone()[0])",
    ], kernel_without_widgets)
    assert not errors(checked), errors(checked)
    text = printed(checked)
    assert "no ipywidgets" in text and "refused:" in text and "ipywidgets" in text.split("refused:")[1]
    assert "progress bar False" in text


def test_the_cutoffs_notebook_runs_in_a_kernel_without_ipywidgets(kernel_without_widgets, tmp_path):
    run = make_small_run(tmp_path / "run", hands=24, seed=3)
    notebook = execute("cutoffs", kernel_without_widgets, run)
    assert not errors(notebook), errors(notebook)
    assert images(notebook) > 0


def test_the_notebooks_headless_command_is_on_the_site_and_in_the_notebooks_extra_and_runs(tmp_path):
    page = (ROOT / "notebooks" / "README.md").read_text()
    (command,) = [line.strip() for line in page.splitlines() if line.strip().startswith("jupyter nbconvert")]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(requirement.startswith("nbconvert") for requirement in extras["notebooks"])
    assert "notebooks.md" in (ROOT / "mkdocs.yml").read_text()  # the page is on the site (its text: docs/hooks.py)
    words = shlex.split(command)
    words[words.index("--output-dir") + 1] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", *words], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    ran = nbformat.read(tmp_path / Path(words[words.index("--execute") + 1]).name, as_version=4)
    assert not errors(ran) and images(ran) > 0


# ----- 4. your first bot -------------------------------------------------------------------------------------------

FIRST_BOT = ROOT / "docs" / "first_bot.md"
CLI = Path(sys.executable).parent / "knorri-sim"


def _first_bot() -> tuple[str, str]:
    (saved,) = page_files(FIRST_BOT.read_text(encoding="utf-8"))
    return saved


def test_the_first_bot_page_shows_a_whole_short_bot_and_is_on_the_site():
    name, code = _first_bot()
    assert name == "lowbot.py" and len(code.strip().splitlines()) <= 20
    namespace: dict = {}
    exec(compile(code, name, "exec"), namespace)  # the page's code as the reader saves it
    bot = namespace["LowBot"](seed=1)
    bot.reset(0, 4)
    assert bot.name == "lowbot" and bot.act(None, [13, 27, 52]) == 13  # the 2 of diamonds, lowest by rank
    assert bot.act(None, [52]) == 52  # only a pick-up: it picks up
    assert "first_bot.md" in (ROOT / "mkdocs.yml").read_text()


def test_the_first_bot_is_found_from_its_folder_and_from_anywhere_by_pythonpath(tmp_path):
    name, code = _first_bot()
    bots, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    bots.mkdir()
    elsewhere.mkdir()
    (bots / name).write_text(code)
    play = [str(CLI), "play", "--seats", "4", "--seed", "3", "--agents", "lowbot:LowBot;greedy;random;random"]
    here = subprocess.run(play, cwd=bots, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert here.returncode == 0, here.stderr
    assert here.stdout.startswith("Knorri, seed 3, agents: lowbot:LowBot; greedy; random; random")
    lost = subprocess.run(play, cwd=elsewhere, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert lost.returncode == 2 and lost.stderr.count("\n") == 1 and "lowbot" in lost.stderr
    found = subprocess.run(play, cwd=elsewhere, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(bots)])})
    assert found.returncode == 0 and found.stdout == here.stdout


# ----- 6. counts that subtract safely ------------------------------------------------------------------------------

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


@pytest.mark.parametrize("game", list(games.GAMES))
def test_every_number_in_every_table_is_signed_and_only_bit_patterns_are_unsigned(game):
    adapter = games.adapter(game)
    specs = (id_columns(game) + game_columns(game, continued=True) + sum(extra_columns(game).values(), ())
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
