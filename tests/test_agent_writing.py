"""Writing your own agent: specs by import path (top-level modules, the working directory), the seed keyword,
bool parameters, integer actions, the example agent run through ``knorri-sim run``, and the observation page."""

from __future__ import annotations

import re
import shlex
import sys
import textwrap

import numpy as np
import pytest

from agents import AgentSpecError, make_agent, parse_spec
from agents.examples import highest_card
from experiments import observation_docs
from experiments.cli import main
from experiments.runner.seating import agent_maker
from experiments.runner.storage import read_manifest
from sim.errors import AgentFailure
from sim.knorri import adapter as knorri_adapter
from sim.knorri.reference import KnorriHand
from sim.seating import ActionTypeError, action_id, play_with_agents

BOT = '''
class MyBot:
    PARAMETERS = {"flag": bool, "depth": int}

    def __init__(self, seed=0, flag=True, depth=1):
        self.name, self.flag, self.depth = "mybot", flag, depth

    def reset(self, seat, n_seats, seed=None):
        self.seat = seat

    def act(self, observation, legal):
        return legal[0]
'''


@pytest.fixture
def bot_in_working_directory(tmp_path, monkeypatch):
    """``mybot.py`` in the working directory, with the directory off ``sys.path`` as under the console script."""
    (tmp_path / "mybot.py").write_text(textwrap.dedent(BOT))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    sys.modules.pop("mybot", None)


def test_a_top_level_module_spec_is_an_import_path_not_a_parameter():
    assert parse_spec("mybot:MyBot") == ("mybot:MyBot", {})
    assert parse_spec("mybot:MyBot:depth=3,flag=false") == ("mybot:MyBot", {"depth": "3", "flag": "false"})
    assert parse_spec("mcts:iters=400,c=1.4") == ("mcts", {"iters": "400", "c": "1.4"})


def test_an_agent_module_in_the_working_directory_is_found(bot_in_working_directory):
    bot = make_agent("mybot:MyBot:depth=3")
    assert (bot.name, bot.depth) == ("mybot", 3)


@pytest.mark.parametrize(("raw", "value"), [("false", False), ("False", False), ("0", False), ("no", False),
                                            ("off", False), ("true", True), ("1", True), ("yes", True)])
def test_a_bool_parameter_reads_false_as_false(bot_in_working_directory, raw, value):
    assert make_agent(f"mybot:MyBot:flag={raw}").flag is value


def test_a_bool_parameter_refuses_other_words(bot_in_working_directory):
    with pytest.raises(AgentSpecError, match="flag='maybe' is not a bool: use true or false"):
        make_agent("mybot:MyBot:flag=maybe")


def test_an_agent_class_without_a_seed_keyword_is_refused_in_one_line(bot_in_working_directory):
    (bot_in_working_directory / "seedless.py").write_text(BOT.replace("seed=0, ", ""))
    with pytest.raises(AgentSpecError) as error:
        make_agent("seedless:MyBot")
    assert "constructor must take a seed keyword" in str(error.value) and "\n" not in str(error.value)
    sys.modules.pop("seedless", None)


@pytest.mark.parametrize("action", [3, np.int64(3), np.uint8(3), np.int32(3)])
def test_an_integer_action_of_any_integer_type_is_accepted(action):
    assert action_id(action, "agent 'x'") == 3 and type(action_id(action, "agent 'x'")) is int


@pytest.mark.parametrize(("action", "kind"), [("5", "str"), (True, "bool"), (np.True_, "bool"), (5.0, "float"),
                                              (np.float64(5), "float64"), (None, "NoneType")])
def test_an_action_that_is_not_an_integer_is_refused_naming_its_type(action, kind):
    with pytest.raises(ActionTypeError) as error:
        action_id(action, "agent 'x'")
    assert f"act() returned {kind} " in str(error.value) and "\n" not in str(error.value)


class _Returns:
    """Plays legal[0], but as another type (a str, a bool, a float)."""

    PARAMETERS: dict[str, type] = {}

    def __init__(self, seed: int = 0, convert=str) -> None:
        self.name, self.convert = "returns", convert

    def reset(self, seat, n_seats, seed=None):
        self.seat = seat

    def act(self, observation, legal):
        return self.convert(legal[0])


@pytest.mark.parametrize("convert", [str, float, bool])
def test_a_non_integer_action_is_a_type_error_not_an_illegal_action(convert):
    agents = [_Returns(convert=convert)] + [make_agent("random") for _ in range(3)]
    with pytest.raises(ActionTypeError, match=f"agent 'returns': act\\(\\) returned {convert.__name__} "):
        play_with_agents(KnorriHand.from_seed(4, 5), agents, 5)


class StrBot(_Returns):
    """Returns its choice as a str."""


def test_a_non_integer_action_stops_a_run_naming_spec_seat_and_type():
    spec = f"{__name__}:StrBot"
    with pytest.raises(AgentFailure) as error:
        knorri_adapter.play_matches(4, [7], [(spec, "random", "random", "random")], 1,
                                     make_agent=agent_maker("knorri"), engine="reference")
    text = str(error.value)
    assert f"agent {spec!r} at seat 0" in text and "act() returned str '" in text and "illegal" not in text


def _docstring_command() -> str:
    line = next(line.strip() for line in highest_card.__doc__.splitlines() if line.strip().startswith("knorri-sim"))
    return line


def test_the_example_agent_runs_through_knorri_sim_run_as_its_docstring_says(tmp_path, capsys):
    words = shlex.split(_docstring_command())
    assert words[:2] == ["knorri-sim", "run"]
    words = [("60" if previous == "--hands" else word) for previous, word in zip(["", *words[:-1]], words, strict=True)]
    assert main([*words[1:], "--out", str(tmp_path / "run"), "--workers", "1", "--no-progress"]) == 0
    manifest = read_manifest(tmp_path / "run")
    assert manifest["config"]["tables"][0]["agents"][0] == "agents.examples.highest_card:HighestCardAgent"
    assert "agents.examples.highest_card:HighestCardAgent" in capsys.readouterr().out


def test_the_example_agent_sets_its_bool_parameter_from_a_spec():
    assert make_agent("agents.examples.highest_card:HighestCardAgent:low_when_ahead=false").low_when_ahead is False
    assert make_agent("agents.examples.highest_card:HighestCardAgent:low_when_ahead=true").low_when_ahead is True


@pytest.mark.parametrize(("title", "module_name", "class_name", "actions"), observation_docs.observations())
def test_every_observation_field_is_documented(title, module_name, class_name, actions):
    fields, docs = observation_docs.field_docs(module_name, class_name)
    names = [item.name for item in fields]
    missing, stale = set(names) - set(docs), set(docs) - set(names)
    assert not missing and not stale, f"{class_name}: undocumented {missing}, documented but gone {stale}"
    assert all(docs[name].strip() for name in names)


def test_every_game_of_the_package_is_on_the_observation_page():
    """The page reads the games' docs facets, so a built-in game that forgot its facet would drop off it unseen."""
    import importlib.metadata

    from sim import games, plugins

    built_in = {point.name for point in importlib.metadata.entry_points(group=plugins.GAMES)
                if point.dist.name == "knorri-sim"}
    shown = {title for title, *_ in observation_docs.observations()}
    assert {games.game(name).title for name in built_in} <= shown


def test_the_observation_page_is_the_one_the_code_renders():
    assert observation_docs.PAGE.read_text(encoding="utf-8") == observation_docs.render(), (
        "docs/observations.md is out of date: run python -m experiments.observation_docs")
    assert re.search(r"\| `hand` \|", observation_docs.PAGE.read_text(encoding="utf-8"))
