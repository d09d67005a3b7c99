"""The agent protocol: specs and their errors, user agents by import path, illegal actions, determinism."""

from __future__ import annotations

import sys
import textwrap

import pytest

from agents import AgentSpecError, known_agents, make_agent, parse_spec
from agents.base import Agent
from sim.errors import IllegalActionError
from sim.knorri.reference import KnorriHand
from sim.seating import play_with_agents

BUILT_IN_SPECS = ["random", "greedy", "loginf", "mcts:iters=6", "mcts:iters=3,rollout=random,c=0.5,seed=4"]


def test_built_in_agents_are_registered():
    assert {"random", "greedy", "loginf", "mcts"} <= set(known_agents())


def test_parse_spec_splits_name_and_parameters():
    assert parse_spec("mcts:iters=400,c=1.4") == ("mcts", {"iters": "400", "c": "1.4"})
    assert parse_spec(" greedy ") == ("greedy", {})
    assert parse_spec("mypkg.bots:MyBot:depth=3") == ("mypkg.bots:MyBot", {"depth": "3"})


def test_make_agent_builds_each_agent_with_its_parameters():
    agent = make_agent("mcts:iters=12,c=0.7,rollout=random,time=0.5,seed=3")
    assert (agent.iters, agent.c, agent.rollout, agent.time_budget) == (12, 0.7, "random", 0.5)
    assert isinstance(agent, Agent)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty agent spec"),
        ("alphazero", "unknown agent 'alphazero': known agents are greedy, learned, loginf, mcts, random"),
        ("mcts:depth=3", "agent 'mcts' has no parameter 'depth'; its parameters: c, chance_iters, eps, horizon, "
                         "iters, line_iters, models, others, pick, prior, rollout, seed, time, version"),
        ("mcts:iters=many", "agent 'mcts': iters='many' is not a valid int"),
        ("mcts:iters", "parameter 'iters' is not key=value"),
        ("mcts:iters=0", "give at least 1 playout per decision"),
        ("mcts:rollout=smart", "rollout='smart' is unknown: use random or greedy"),
        ("loginf:rollout=smart", "rollout='smart' is unknown"),
        ("greedy:x=1", "agent 'greedy' has no parameter 'x'; its parameters: none"),
        ("no_such_pkg.bots:Bot", "cannot import 'no_such_pkg.bots'"),
        ("sim.rng:NoSuchBot", "module 'sim.rng' has no 'NoSuchBot'"),
        ("sim.rng:SplitMix64", "does not make an agent"),
    ],
)
def test_bad_specs_fail_with_one_line_that_says_what_is_allowed(spec, message):
    with pytest.raises(AgentSpecError) as error:
        make_agent(spec)
    text = str(error.value)
    assert message in text and "\n" not in text


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """A user's own package on the path: mypkg/bots.py with one agent, written as a user would."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bots.py").write_text(textwrap.dedent('''
        class HighestBot:
            """Always the highest legal id."""
            PARAMETERS = {"offset": int}

            def __init__(self, seed=0, offset=0):
                self.name = "highest"
                self.offset = offset

            def reset(self, seat, n_seats, seed=None):
                self.seat = seat

            def act(self, observation, legal):
                return legal[max(0, len(legal) - 1 - self.offset)]
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "mypkg.bots"
    for name in ("mypkg.bots", "mypkg"):
        sys.modules.pop(name, None)


def test_a_user_agent_loads_by_import_path_and_plays(user_package):
    bot = make_agent(f"{user_package}:HighestBot:offset=0")
    hand = play_with_agents(KnorriHand.from_seed(4, 11), [bot, make_agent("greedy"), make_agent("random"),
                                                   make_agent("loginf")], 11)
    assert hand.done and sum(hand.scores) == 0
    with pytest.raises(AgentSpecError, match="has no parameter 'depth'; its parameters: offset"):
        make_agent(f"{user_package}:HighestBot:depth=2")


class _Cheat:
    name = "cheat"

    def reset(self, seat, n_seats, seed=None):
        self.seat = seat

    def act(self, observation, legal):
        return 99 if observation.phase == 2 else legal[0]


def test_an_illegal_action_is_an_error_naming_agent_seat_and_action():
    agents = [make_agent("greedy") for _ in range(3)] + [_Cheat()]
    with pytest.raises(IllegalActionError) as error:
        play_with_agents(KnorriHand.from_seed(4, 2), agents, 2)
    assert error.value.action == 99 and error.value.seat == 3
    assert str(error.value).startswith("illegal action 99 by agent 'cheat' at seat 3: legal ids are ")


@pytest.mark.parametrize("spec", BUILT_IN_SPECS)
def test_every_agent_is_deterministic_for_a_fixed_seed(spec):
    """Same hand seed, same choices; agents are rebuilt and reused across hands alike."""
    def play(seed, agents):
        return play_with_agents(KnorriHand.from_seed(4, seed), agents, seed)

    reused = [make_agent(spec, seed=1) for _ in range(4)]
    play(5, reused)  # memory from an earlier hand must not leak into the next
    first = play(6, reused)
    again = play(6, [make_agent(spec, seed=2) for _ in range(4)])
    assert first.decisions == again.decisions and first.scores == again.scores


def test_random_agents_differ_between_hand_seeds():
    a = play_with_agents(KnorriHand.from_seed(4, 1), [make_agent("random") for _ in range(4)], 1)
    b = play_with_agents(KnorriHand.from_seed(4, 1), [make_agent("random") for _ in range(4)], 2)
    assert a.decisions != b.decisions


def test_mcts_with_a_time_budget_returns_a_legal_action():
    hand = KnorriHand.from_seed(4, 8)
    agents = [make_agent("mcts:time=0.002")] + [make_agent("greedy") for _ in range(3)]
    assert play_with_agents(hand, agents, 8).done
