"""The engine words are one table (``sim.engine_words``): every option and config key reads them from it."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.cli import build_parser
from experiments.runner import routes
from experiments.runner.config import ConfigError, build_config
from sim.engine_words import COMPILED, ENGINE_CHOICES, ENGINES, engine_word
from sim.errors import GameInputError
from sim.games import adapter


def _engine_choices(command: str) -> tuple[str, ...]:
    sub = next(action for action in build_parser()._subparsers._group_actions)  # the subcommands
    option = next(action for action in sub.choices[command]._actions if "--engine" in action.option_strings)
    return tuple(option.choices)


def test_fast_is_read_as_the_compiled_engine():
    assert engine_word("fast") == COMPILED


def test_an_unknown_engine_word_is_one_line_naming_the_words():
    with pytest.raises(GameInputError, match=r"engine must be auto, compiled, reference \(or fast, for compiled\)"):
        engine_word("turbo")


def test_run_takes_every_word_and_bench_and_traj_every_engine():
    assert _engine_choices("run") == (*ENGINE_CHOICES, "fast")
    assert set(_engine_choices("bench")) == set(_engine_choices("traj")) == {*ENGINES, "fast"}


def test_a_config_reads_the_same_words():
    assert build_config({"hands": 4, "engine": "fast"}).engine == COMPILED
    with pytest.raises(ConfigError, match="config: engine must be"):
        build_config({"hands": 4, "engine": "turbo"})


def test_the_python_api_reads_auto_through_the_plans_one_choice():
    seatings = [["random", "random"]] * 3
    assert routes.choose_route(adapter("knockout-whist"), "knockout-whist", seatings, False) == routes.ENGINE
    played = routes.play_matches("knockout-whist", 2, [1, 2, 3], seatings).hands
    engine = adapter("knockout-whist").play_matches(2, [1, 2, 3], seatings, engine=COMPILED).hands
    assert all(np.array_equal(played[name], engine[name]) for name in engine)
