"""Agents seated by a runner adapter: built once per chunk from their specs, named when they fail.

Every game's adapter seats its agents the same way: one agent object per (seat,
spec), reset for every deal, wrapped so that an exception inside a user's agent
or an illegal action stops the run with the agent, seat and deal named in one
line (``AgentFailure``). The wrapper can also hand every decision to a recorder
(the optional actions table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from agents.base import Agent, make_agent
from sim.errors import GameInputError, IllegalActionError
from sim.games import AgentFailure
from sim.reference_base import ReferenceGame
from sim.rng import agent_seed

T = TypeVar("T")
G = TypeVar("G", bound=ReferenceGame)


def check_specs(n_seats: int, specs: Sequence[str], game: str) -> None:
    """Refuse a lineup of the wrong length or a spec that makes no agent of ``game``, in one line."""
    if len(specs) != n_seats:
        raise GameInputError(f"a {n_seats}-seat table needs {n_seats} agent specs, not {len(specs)}")
    for spec in specs:
        make_agent(spec, seed=0, game=game)


def play_with_agents(game: G, agents: Sequence[Agent], seed: int) -> G:
    """Play a reference ``game`` to its end, each seat's decisions taken by its agent; return it.

    ``seed`` is the game's seed: the agent at ``seat`` is reset once with ``agent_seed(seed, seat)``.
    An illegal choice raises ``IllegalActionError`` naming the agent and changes nothing.
    """
    n = game.n_seats
    if len(agents) != n:
        raise GameInputError(f"a {n}-seat {game.UNIT} needs {n} agents, not {len(agents)}")
    for seat, agent in enumerate(agents):
        agent.reset(seat, n, agent_seed(seed, seat))
    while not game.done:
        seat = game.to_move
        legal = game.legal_actions()
        action = agents[seat].act(game.observation(seat), legal)
        if action not in legal:
            raise IllegalActionError(seat, action, legal, who=f"agent {agents[seat].name!r}")
        game.apply(action)
    return game


class DecisionRecorder(Protocol):
    """Where a seated agent reports each legal decision it takes."""

    def record(self, seat: int, observation: Any, action: int) -> None:
        """Note that ``seat``, seeing ``observation``, chose ``action``."""


class SeatedAgent:
    """An agent at one seat that names itself when it fails and, if asked, records its decisions."""

    def __init__(self, agent: Agent, spec: str, recorder: DecisionRecorder | None) -> None:
        self.agent = agent
        self.spec = spec
        self.name = agent.name
        self.recorder = recorder
        self.seat = -1

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Reset the agent for a new deal at ``seat``."""
        self.seat = seat
        self._guard("reset", lambda: self.agent.reset(seat, n_seats, seed))

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The agent's choice (recorded when it is legal and a recorder is attached)."""
        action = self._guard("act", lambda: self.agent.act(observation, legal))
        if self.recorder is not None and action in legal:
            self.recorder.record(self.seat, observation, int(action))
        return action

    def _guard(self, verb: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except AgentFailure:
            raise
        except Exception as error:  # any failure inside a user's agent stops the run, named
            raise AgentRaised(self.spec, self.seat, f"{type(error).__name__} in {verb}(): {error}") from error


class AgentRaised(Exception):
    """An agent's own exception, with the spec and seat it was seated as."""

    def __init__(self, spec: str, seat: int, what: str) -> None:
        super().__init__(what)
        self.spec, self.seat, self.what = spec, seat, what


class AgentPool:
    """One agent object per (seat, spec) of a game, built once per chunk and reset for every deal."""

    def __init__(self, n_seats: int, recorder: DecisionRecorder | None, game: str = "knorri") -> None:
        self.n_seats = n_seats
        self.recorder = recorder
        self.game = game
        self._agents: dict[tuple[int, str], SeatedAgent] = {}

    def seat(self, seating: Sequence[str]) -> list[SeatedAgent]:
        """The seated agents of one seating (a spec per seat)."""
        if len(seating) != self.n_seats:
            raise ValueError(f"a seating of {len(seating)} specs for {self.n_seats} seats")
        agents = []
        for seat, spec in enumerate(seating):
            key = (seat, spec)
            if key not in self._agents:
                self._agents[key] = SeatedAgent(make_agent(spec, seed=0, game=self.game), spec, self.recorder)
            agents.append(self._agents[key])
        return agents


def play_guarded(play: Callable[[], T], agents: Sequence[SeatedAgent], where: str,
                 action_name: Callable[[int], str]) -> T:
    """Run ``play()``; an illegal action or an agent's exception becomes one ``AgentFailure`` line.

    ``where`` names the deal (e.g. ``the hand with seed 5 (first seat 0)``); ``action_name`` turns an
    action id into words for the message.
    """
    try:
        return play()
    except IllegalActionError as error:
        spec = agents[error.seat].spec
        legal = ", ".join(map(str, error.legal))
        raise AgentFailure(f"agent {spec!r} at seat {error.seat} chose illegal action "
                           f"{_named(error.action, action_name)} in {where}; legal ids were {legal}") from None
    except AgentRaised as error:
        raise AgentFailure(f"agent {error.spec!r} at seat {error.seat} failed in {where}: {error.what}") from None


def _named(action: Any, action_name: Callable[[int], str]) -> str:
    try:
        return f"{int(action)} ({action_name(int(action))})"
    except (TypeError, ValueError):
        return repr(action)
