"""`run --seats N` without `--agents`: each shipped config states its lineup at every seat count, a count it
lacks cycles or trims its lineup, and the run says which lineup it seats, in one line."""

from __future__ import annotations

import pytest

from agents.lineup import cycle_to_seats
from experiments.cli import build_parser
from experiments.commands import run as run_command
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


def _run_config(*argv: str):
    """The config ``knorri-sim run ARGV`` would play, built without playing it."""
    return run_command._config_from(build_parser().parse_args(["run", *argv]))


# ----- the default run at any seat count ------------------------------------------------------------------------


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
