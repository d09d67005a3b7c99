"""A run's agent specs are parsed once, when its config is built: everything downstream reads the resolved specs."""

from __future__ import annotations

import pickle

import pytest
from conftest import count_arguments

import agents.base
import agents.lineup
from agents.base import AgentSpec, AgentSpecError, resolve_spec
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment

LINEUPS = {  # every route: the engine's own policies, the compiled lineup, the batch and the reference engine
    "knorri": ["random", "greedy", "loginf", "mcts:iters=20"],
    "knockout-whist": ["random", "tracker", "mcts:iters=20,seed=3", "learned"],
    "kort": ["greedy", "tracker", "mcts:iters=10", "random"],
    "reference": ["agents.examples.highest_card:HighestCardAgent", "random", "greedy", "loginf"],
}


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every spec text the parser is handed from now on."""
    return count_arguments(monkeypatch, agents.base.parse_spec, (agents.base, "parse_spec"),
                           (agents.lineup, "parse_spec"))


@pytest.mark.parametrize("name", LINEUPS)
def test_no_spec_is_parsed_after_the_config_is_built(name, tmp_path, parses):
    game = "knorri" if name == "reference" else name
    config = build_config({"game": game, "seats": 4, "agents": LINEUPS[name], "hands": 8, "assign": "rotate",
                           "workers": 1, "log_actions": name == "reference"})
    assert parses, "the config parses its specs"
    parses.clear()
    run_experiment(config, tmp_path / "run")
    assert parses == []


def test_a_resolved_spec_holds_typed_parameters_and_keeps_its_text():
    spec = resolve_spec(" mcts:iters=40,c=1.25 ", "knorri")
    assert isinstance(spec, AgentSpec) and spec == "mcts:iters=40,c=1.25"
    assert (spec.game, spec.name, spec.params) == ("knorri", "mcts", {"iters": 40, "c": 1.25})
    copy = pickle.loads(pickle.dumps(spec))
    assert (copy, copy.game, copy.params) == (spec, "knorri", spec.params)
    assert resolve_spec(spec, "knorri") is spec


def test_a_config_holds_its_specs_resolved():
    config = build_config({"seats": 4, "agents": ["random", "greedy", "loginf", "mcts:iters=20"], "hands": 4})
    assert all(isinstance(spec, AgentSpec) for table in config.tables for spec in table.agents)
    assert config.tables[0].agents[3].params == {"iters": 20}


def test_a_bad_parameter_is_refused_when_the_config_is_built():
    with pytest.raises(AgentSpecError, match="agent 'mcts': iters='many' is not a valid int"):
        build_config({"seats": 4, "agents": ["mcts:iters=many"], "hands": 4})
