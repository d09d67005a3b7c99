"""The third hour of a new user (issue 38), one test per point fixed: the default run at any seat count, duel
verdicts in plain words, a duel's folder read as a duel, words and figures that match their run, replays that name
their agents, notebooks that run anywhere, a first bot on the site and counts that subtract safely."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.lineup import cycle_to_seats
from experiments.cli import build_parser, main
from experiments.commands import run as run_command
from experiments.duel.sprt import H0, H1, UNDECIDED, Sprt, Verdict, llr_against_bounds, verdict_words
from experiments.errors import ConfigError
from experiments.runner.config import (
    DEFAULT_CONFIG,
    build_config,
    default_experiment,
    lineup_at_seats,
    load_file,
    shipped_configs,
)
from sim import games

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


def test_a_seat_count_the_game_lacks_is_refused_before_anything_is_seated(capsys):
    with pytest.raises(ConfigError, match="--seats: Knorri is for 3 to 6 seats, not 7"):
        _run_config("--seats", "7")
    assert capsys.readouterr().err == ""


# ----- 3. duel verdicts in plain words -----------------------------------------------------------------------------


def _verdict(mean: float, low: float, high: float, llr: float, deals: int = 56) -> Verdict:
    return Verdict("", deals, mean, (low, high), llr, 0.2)


def test_h1_says_the_test_favours_the_edge_over_none_not_that_the_edge_is_at_least_delta1():
    words = verdict_words(H1, _verdict(0.080, 0.024, 0.136, 3.392), Sprt(), "mcts", "greedy")
    assert words == ("H1: A (mcts) is better than B (greedy): the test favours an edge of 0.05 over none "
                     "(LLR +3.39 ≥ 2.94); estimate +0.080 a hand (95% CI +0.024 to +0.136)")
    assert "at least" not in words


def test_h0_with_an_interval_below_zero_says_a_is_worse():
    words = verdict_words(H0, _verdict(-0.199, -0.313, -0.084, -3.28), Sprt(), "lowbot", "greedy")
    assert words.startswith("H0: A (lowbot) is not better than B (greedy) by 0.05: ")
    assert "(LLR -3.28 ≤ -2.94)" in words
    assert words.endswith("estimate -0.199 a hand (95% CI -0.313 to -0.084): A is worse")
    assert "at most 0" not in words


def test_h0_with_an_interval_across_zero_says_no_difference_is_shown_and_above_zero_that_a_is_better():
    across = verdict_words(H0, _verdict(0.011, -0.018, 0.040, -2.95), Sprt())
    above = verdict_words(H0, _verdict(0.012, 0.002, 0.022, -3.1), Sprt())
    assert across.endswith("no difference either way is shown") and above.endswith(": A is better")


def test_undecided_says_the_test_favours_neither_and_gives_the_llr_between_its_bounds():
    words = verdict_words(UNDECIDED, _verdict(0.02, -0.01, 0.05, 1.2, 2000), Sprt(), row="match")
    assert words.startswith("undecided: the test favours neither an edge of 0.05 nor none")
    assert "(LLR +1.20 between -2.94 and +2.94)" in words and "a match" in words


def test_the_progress_line_shows_the_bound_the_llr_crossed():
    test = Sprt()
    assert llr_against_bounds(-3.28, test) == "LLR -3.28 ≤ -2.94: H0"
    assert llr_against_bounds(3.39, test) == "LLR +3.39 ≥ +2.94: H1"
    assert llr_against_bounds(1.0, test) == "LLR +1.00 in [-2.94, +2.94]"


def test_a_duel_prints_its_verdict_with_the_words_of_verdict_words(tmp_path, capsys):
    assert main(["duel", "random", "greedy", "--seats", "3", "--max-deals", "40", "--workers", "1",
                 "--out", str(tmp_path / "duel")]) == 0
    printed = capsys.readouterr()
    assert "H0: A (random) is not better than B (greedy) by 0.05" in printed.out and ": A is worse" in printed.out
    assert "≤ -2.94: H0" in printed.err and " in [" not in printed.err.splitlines()[-1]
