"""The small faults a new user met in the first hour (issues 15.7 and 18.12), each fixed and checked here:
``play`` like ``run`` (commas, ``--game``, seeds), one-line errors that name the program once and name a
replay command, what the summary and the reports show for one-agent runs, and the figures' details."""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace

import pandas as pd
import pyarrow.parquet as pq
import pytest
from tqdm import tqdm

from experiments.analysis import figures, reports
from experiments.analysis.knorri import figures as knorri_figures
from experiments.analysis.knorri import report
from experiments.analysis.knorri.load import load_run
from experiments.analysis.kort import figures as kort_figures
from experiments.analysis.kort import stats as kort_stats
from experiments.analysis.kort.load import load_run as load_kort_run
from experiments.cli import main
from experiments.runner.chunk import ChunkTask, run_chunk
from experiments.runner.config import build_config
from experiments.runner.execute import plan_run, scaled_counts
from experiments.runner.summary import format_summary, summarise, summarise_run
from sim.errors import AgentFailure


def _run(tmp_path, *words: str) -> str:
    out = str(tmp_path)
    assert main(["run", *words, "--out", out, "--workers", "1", "--no-progress"]) == 0
    return out


@pytest.fixture(scope="module")
def kort_run(tmp_path_factory):
    """Greedy as a team against random, both ways round, matches to 2: a few matches on the reference engine."""
    out = tmp_path_factory.mktemp("kort") / "run"
    assert main(["run", "--game", "kort", "--agents", "greedy;random;greedy;random", "--assign", "rotate",
                 "--matches", "6", "--option", "target_wins=2", "--seed", "4", "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 0
    return out


@pytest.fixture(scope="module")
def one_agent_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "run"
    assert main(["run", "--seats", "3,4", "--agents", "random", "--hands", "60", "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 0
    return out


# ----- play ---------------------------------------------------------------------------------------------------


def test_play_accepts_commas_between_agents_as_run_does(capsys):
    assert main(["play", "--seed", "3", "--agents", "greedy,random,mcts:iters=5,c=0.5,random"]) == 0
    assert "agents: greedy; random; mcts:iters=5,c=0.5; random" in capsys.readouterr().out


@pytest.mark.parametrize(("words", "ending"), [
    (["--game", "knockout-whist", "--seats", "3", "--agents", "random;greedy;tracker", "--option", "rainbow=true"],
     r"end \((last_trick|last_standing|rainbow)\): scores \[.*\]"),
    (["--game", "kort", "--agents", "greedy,random,greedy,random", "--option", "target_wins=1"],
     r"end \(target_reached\): scores \[(1, -1, 1, -1|-1, 1, -1, 1)\]"),
])
def test_play_plays_knockout_whist_and_kort_with_game(words, ending, capsys):
    assert main(["play", "--seed", "5", *words]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(ending, lines[-1]) and len(lines) > 10


def test_play_replays_a_kort_row_of_a_run_from_its_seed(kort_run, capsys):
    row = pq.read_table(kort_run / "hands").to_pandas().iloc[3]
    lineup = ";".join(row[f"agent_{seat}"] for seat in range(4))
    assert main(["play", "--game", "kort", "--seed", str(row["seed"]), "--agents", lineup, "--option",
                 "target_wins=2"]) == 0
    scores = [int(row[f"score_{seat}"]) for seat in range(4)]
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"end (target_reached): scores {scores}"


@pytest.mark.parametrize("seed", ["-1", str(2**64 + 5)])
def test_play_refuses_a_seed_outside_64_bits_naming_the_seed(seed, capsys):
    assert main(["play", "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert "--seed must be from 0 to 2**64 - 1" in err and "agent" not in err and err.count("\n") == 1


def test_play_refuses_options_of_another_game_in_one_line(capsys):
    assert main(["play", "--option", "rainbow=true"]) == 2
    assert "unknown option 'rainbow': Knorri's options are cap, repeat" in capsys.readouterr().err


# ----- the command line ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("words", "help_command"), [
    (["nope"], "knorri-sim --help"), (["run", "--bogus"], "knorri-sim --help"),
    (["run", "--hands", "x"], "knorri-sim run --help"),
])
def test_usage_errors_name_the_program_once(words, help_command, capsys):
    with pytest.raises(SystemExit) as stop:
        main(words)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "knorri-sim knorri-sim" not in err and f"(see '{help_command}')" in err


@pytest.mark.parametrize("words", [["--help"], ["report", "--help"], ["play", "--help"]])
def test_help_names_kort(words, capsys):
    with pytest.raises(SystemExit):
        main(words)
    assert "Kort" in " ".join(capsys.readouterr().out.split())


def test_a_json_config_is_refused_in_one_line_naming_the_file_once(tmp_path, capsys):
    config = tmp_path / "exp.json"
    config.write_text('{"hands": 4}')
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count(str(config)) == 1 and "use a .toml, .yaml or .yml file" in err and err.count("\n") == 1


@pytest.mark.parametrize(("total", "done", "shown"), [(24, 8, "8/24"), (1_000_000, 250_000, "250k/1.00M")])
def test_a_small_progress_bar_counts_whole_rows(total, done, shown):
    meter = tqdm.format_meter(done, total, 1.0, unit="hand", unit_scale=scaled_counts(total))
    assert f"| {shown} [" in meter


# ----- what one-agent runs show ---------------------------------------------------------------------------------


def test_a_one_agent_summary_prints_no_signed_zero(one_agent_run):
    text = format_summary(summarise_run(one_agent_run))
    assert "+0.000" not in text and "±0.000" not in text and "-0.000" not in text
    rows = [line for line in text.splitlines() if line.lstrip().startswith("random")]
    assert len(rows) == 2 and all("n/a (every seat)" in line for line in rows)  # one row per seat count
    assert "the agent held every seat" in text.splitlines()[-1]


def test_one_agent_tables_sharing_a_seat_count_each_print_no_signed_zero(tmp_path):
    config = tmp_path / "two.toml"
    config.write_text('hands = 40\nseed = 5\n[[tables]]\nseats = 4\nagents = ["random"]\n'
                      '[[tables]]\nseats = 4\nagents = ["greedy"]\n')
    out = tmp_path / "run"
    assert main(["run", "--config", str(config), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    rows = summarise(out)
    assert [(r.agent, r.every_seat) for r in rows] == [("greedy", True), ("random", True)]
    text = format_summary(summarise_run(out))
    assert "+0.000" not in text and "4 seats (2 tables): 80 hands" in text


def test_a_one_agent_report_draws_no_agent_charts_and_says_why(one_agent_run, tmp_path):
    written = report.write_report(load_run(one_agent_run), tmp_path)
    names = {path.stem for path in written}
    assert not names & {"agent_scores", "ladder_means", "pairwise", "ratings"} and "cutoff_rates" in names
    summary = (tmp_path / "report.md").read_text()
    assert "Not drawn: agent_scores, ladder_means, pairwise, ratings: no two different agents met" in summary


def test_head_to_head_shares_are_wilson_intervals_never_a_bare_zero_width():
    pairwise = pd.DataFrame({"win_share": [1.0, 0.5], "low": [0.83, 0.4], "high": [1.0, 0.6], "ci95": [0.0, 0.1]})
    assert reports.head_to_head_shares(pairwise) == ["100.0% (83.0–100.0)", "50.0% (40.0–60.0)"]


def test_head_to_head_intervals_come_from_proportion_ci(kort_run):
    from experiments.analysis import ladder

    pairwise = ladder.pairwise_results(load_kort_run(kort_run))
    assert ((pairwise["low"] <= pairwise["win_share"]) & (pairwise["win_share"] <= pairwise["high"])).all()
    assert ((pairwise["high"] - pairwise["low"]) > 0).all() and (pairwise["high"] <= 1).all()


# ----- figures ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "text"), [(-0.0001, "0.000"), (0.0, "0.000"), (0.5, "+0.500"), (-1.25, "-1.250"),
                                             (float("nan"), "n/a")])
def test_figure_numbers_never_show_minus_zero(value, text):
    assert figures.signed(value, 3) == text


def test_the_cutoff_legend_sits_below_the_bars_not_over_them(one_agent_run):
    from experiments.analysis.knorri import stats

    figure = knorri_figures.cutoff_rates_figure(stats.cutoff_rates(load_run(one_agent_run)))
    assert figure.axes[0].get_legend() is None and len(figure.legends) == 1


def test_kort_ladder_markers_at_100_percent_are_not_clipped(kort_run):
    figure = kort_figures.team_ladder_figure(kort_stats.team_results(load_kort_run(kort_run)))
    low, high = figure.axes[0].get_xlim()
    assert low < 0 and high > 100


def test_kort_holder_counts_are_not_white_on_white(kort_run):
    figure = kort_figures.holder_value_figure(kort_stats.holder_value(load_kort_run(kort_run)))
    labels = [text for text in figure.axes[0].texts if text.get_text().replace(",", "").isdigit()]
    assert labels and all(text.get_color() == "black" for text in labels)


# ----- failures: a replay command, hand_index, worker problems ---------------------------------------------------

FAILING_BOT = '''
class Failing:
    """Raises at its fifth decision."""
    PARAMETERS = {}

    def __init__(self, seed=0):
        self.name, self.decisions = "failing", 0

    def reset(self, seat, n_seats, seed=None):
        pass

    def act(self, observation, legal):
        self.decisions += 1
        if self.decisions == 5:
            raise RuntimeError("boom")
        return legal[0]
'''


@pytest.mark.parametrize(("words", "replay"), [
    (["--game", "kort", "--agents", "failing:Failing;random;random;random", "--option", "target_wins=2"],
     "knorri-sim play --game kort --seats 4 --seed {seed} --option target_wins=2 --agents "
     "'failing:Failing;random;random;random'"),
    (["--game", "knockout-whist", "--seats", "3", "--agents", "failing:Failing;random;random"],
     "knorri-sim play --game knockout-whist --seats 3 --seed {seed} --agents 'failing:Failing;random;random'"),
    (["--seats", "3", "--agents", "failing:Failing;random;random"],
     "knorri-sim play --seats 3 --seed {seed} --agents 'failing:Failing;random;random'"),
])
def test_a_failure_names_its_hand_index_and_a_replay_command(words, replay, tmp_path, monkeypatch, capsys):
    (tmp_path / "failing.py").write_text(textwrap.dedent(FAILING_BOT))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", *words, "--hands", "4", "--assign", "fixed", "--out", "out", "--workers", "1",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    seed = re.search(r"with seed (\d+)", err).group(1)
    assert "(hand_index 0)" in err and f"replay it with: {replay.format(seed=seed)};" in err
    assert err.count("\n") == 1


def test_an_agent_module_missing_on_a_worker_is_reported_as_a_worker_problem(tmp_path):
    config = build_config({"seats": [3], "agents": ["random"], "hands": 3, "out": str(tmp_path)})
    task = plan_run(config).tasks[0]
    seating = ("nowhere_module:Bot", "random", "random")
    broken = ChunkTask(task.run_id, task.chunk, replace(task.table, seatings=(seating,), route="reference"),
                       task.master_seed, task.log_actions, task.width,
                       {**task.categories, "agent": [*task.categories["agent"], seating[0]]}, task.game, task.options)
    with pytest.raises(AgentFailure) as failure:
        run_chunk(broken)
    text = str(failure.value)
    assert text.startswith("worker ") and "cannot make an agent the client could" in text
    assert "cannot import 'nowhere_module'" in text and "install the same agent modules on every worker" in text

