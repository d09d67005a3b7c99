"""Agents seated at a reference engine: built once per call by the caller's maker, named when they fail.

Every game's adapter seats its agents the same way: one agent object per (seat,
spec), made by the ``AgentMaker`` it is given (the engines never build an agent
from a spec themselves), reset for every deal, wrapped so that an exception inside
a user's agent or an illegal action stops the play with the agent, seat and deal
named in one line (``AgentFailure``). The wrapper can also hand every decision to a
recorder (the optional actions table). The reference loop that the games playing
one engine deal per match (Knockout Whist, Kort) share lives here too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np

from sim.agent import Agent, AgentMaker, AgentSpecError
from sim.decision_limit import DecisionTimeout, current_limit, decision
from sim.engine_words import AUTO, ENGINES, REFERENCE, engine_word
from sim.errors import (
    AgentFailure,
    FailedDeal,
    GameInputError,
    IllegalActionError,
    agent_location,
    full_trace,
    method_location,
)
from sim.reference_base import ReferenceGame
from sim.rng import agent_seed, derive_seed

T = TypeVar("T")
G = TypeVar("G", bound=ReferenceGame)


def described(error: BaseException) -> str:
    """An exception in one line: its type and its message, blanks folded."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class ActionTypeError(GameInputError):
    """An agent's ``act`` returned something that is not an integer action id (a str, bool, float, None...)."""


def action_id(action: Any, who: str) -> int:
    """``action`` as an int, if it is an integer (Python or NumPy, not a bool); else one ``ActionTypeError`` line.

    A float or a string is refused rather than converted: ``"5"`` or ``5.0`` hides a bug in the agent,
    and ``True`` would be read as action 1.
    """
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    raise ActionTypeError(f"{who}: act() returned {type(action).__name__} {action!r}; an action is an int id "
                          "from legal (Python or NumPy integer)")


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
    return play_on(game, agents)


def play_on(game: G, agents: Sequence[Agent]) -> G:
    """Play ``game`` on from where it stands to its end with ``agents`` as they are (not reset: a hand played on
    past its cut-off keeps what its agents remember); return it. An illegal choice raises as in
    ``play_with_agents``."""
    while not game.done:
        seat = game.to_move
        legal = game.legal_actions()
        action = action_id(agents[seat].act(game.observation(seat), legal), f"agent {agents[seat].name!r}")
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
        action = self._guard("act", lambda: action_id(self.agent.act(observation, legal), "the agent"))
        if self.recorder is not None and action in legal:
            self.recorder.record(self.seat, observation, action)
        return action

    def _guard(self, verb: str, call: Callable[[], T]) -> T:
        try:
            with decision():
                return call()
        except AgentFailure:
            raise
        except DecisionTimeout as error:
            where = agent_location(self.agent, error) or method_location(self.agent, verb)
            raise AgentRaised(self.spec, self.seat, f"no answer from {verb}() within {current_limit():g} s "
                              f"(the decision time limit, --decision-timeout), waiting at {where}") from None
        except ActionTypeError as error:
            raise AgentRaised(self.spec, self.seat, str(error).removeprefix("the agent: ")
                              + f" ({verb}() at {method_location(self.agent, verb)})") from error
        except (Exception, SystemExit) as error:  # any failure inside a user's agent stops the run, named
            where = agent_location(self.agent, error)
            what = f"{described(error)} in {verb}()" + (f" at {where}" if where else "")
            raise AgentRaised(self.spec, self.seat, what, full_trace(error)) from error


class AgentRaised(Exception):
    """An agent's own exception, with the spec and seat it was seated as."""

    def __init__(self, spec: str, seat: int, what: str, trace: str = "") -> None:
        super().__init__(what)
        self.spec, self.seat, self.what, self.trace = spec, seat, what, trace


class AgentPool:
    """One agent object per (seat, spec), built once by ``make_agent`` and reset for every deal."""

    def __init__(self, n_seats: int, recorder: DecisionRecorder | None, make_agent: AgentMaker | None) -> None:
        if make_agent is None:
            raise ValueError("agents are seated by the make_agent the caller gives (the runner's agent_maker)")
        self.n_seats = n_seats
        self.recorder = recorder
        self.make_agent = make_agent
        self._agents: dict[tuple[int, str], SeatedAgent] = {}

    def seat(self, seating: Sequence[str]) -> list[SeatedAgent]:
        """The seated agents of one seating (a spec per seat)."""
        if len(seating) != self.n_seats:
            raise ValueError(f"a seating of {len(seating)} specs for {self.n_seats} seats")
        agents = []
        for seat, spec in enumerate(seating):
            key = (seat, spec)
            if key not in self._agents:
                try:
                    agent = self.make_agent(spec)
                except AgentSpecError as error:
                    raise AgentFailure(f"{error} (at seat {seat})") from None
                self._agents[key] = SeatedAgent(agent, spec, self.recorder)
            agents.append(self._agents[key])
        return agents


def play_guarded(play: Callable[[], T], agents: Sequence[SeatedAgent], where: str,
                 action_name: Callable[[int], str], row: int | None = None, deal: FailedDeal | None = None) -> T:
    """Run ``play()``; an illegal action or an agent's exception becomes one ``AgentFailure`` line.

    ``where`` names the deal (e.g. ``the hand with seed 5 (first seat 0)``); ``action_name`` turns an
    action id into words for the message; ``row`` (the deal's row among those played) and ``deal`` (what
    replays it) travel with the failure.
    """
    try:
        return play()
    except IllegalActionError as error:
        spec = agents[error.seat].spec
        legal = ", ".join(map(str, error.legal))
        chose = method_location(getattr(agents[error.seat], "agent", agents[error.seat]), "act")
        raise AgentFailure(f"agent {spec!r} at seat {error.seat} chose illegal action "
                           f"{_named(error.action, action_name)} in {where}; legal ids were {legal}"
                           + (f" (act() at {chose})" if chose else ""), row, deal) from None
    except AgentRaised as error:
        raise AgentFailure(f"agent {error.spec!r} at seat {error.seat} failed in {where}: {error.what}",
                           row, deal, error.trace) from None


def _named(action: Any, action_name: Callable[[int], str]) -> str:
    try:
        return f"{int(action)} ({action_name(int(action))})"
    except (TypeError, ValueError):
        return repr(action)


def is_engine_lineup(seatings: Sequence[Sequence[str]], policies: Collection[str]) -> bool:
    """Whether the engine's own compiled policies play every seating: every spec a bare name of ``policies``."""
    return all(spec.strip() in policies for seating in seatings for spec in seating)


def check_one_per_match(match_hands: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]] | None,
                        one_match: str) -> None:
    """Refuse matches that are not one engine deal each (``one_match`` says what a match is),
    or whose seeds and seatings (when given) differ in number."""
    if match_hands != 1:
        raise ValueError(f"{one_match}, not {match_hands}")
    if seatings is not None and len(match_seeds) != len(seatings):
        raise ValueError(f"{len(match_seeds)} match seeds but {len(seatings)} seatings")


def on_compiled_engine(engine: str, seatings: Sequence[Sequence[str]], policies: Collection[str], log_actions: bool,
                       logs_actions: bool) -> bool:
    """Whether ``play_matches`` plays on the engine's own compiled policies, as ``engine`` says: the word the run's
    plan chose (``compiled`` or ``reference``; ``auto`` is resolved there, by ``experiments.runner.routes``, never
    in an adapter). ``compiled`` for a lineup ``policies`` cannot play, or an action log the engine cannot keep
    (``logs_actions``), is refused in one line rather than played on another engine."""
    if engine == AUTO:
        raise GameInputError("an adapter plays the engine it is given, reference or compiled, not 'auto': the run's "
                             "plan chooses the route (experiments.runner.routes.choose_route)")
    if engine_word(engine, ENGINES) == REFERENCE:
        return False
    if not policies:
        raise ValueError("this game has no compiled engine: its lineups play on the reference engine")
    if not is_engine_lineup(seatings, policies) or (log_actions and not logs_actions):
        raise ValueError("the engine's own policies play only lineups of " + ", ".join(policies)
                         + ("" if logs_actions else ", without an action log"))
    return True


class DecisionLog:
    """Collects (row, step, seat, [period,] phase, action) for every decision played: the actions table.

    ``period`` names the column (and the observation's attribute) saying which part of a match a decision
    came in, e.g. ``("hand", "hand_no")``; a game without one leaves it out. The types are those of
    ``sim.contract.decision_columns``.
    """

    def __init__(self, period: tuple[str, str] | None = None) -> None:
        self.names = ("hand_row", "step", "seat", *(period[:1] if period else ()), "phase", "action")
        self.dtypes = ("int64", "int32", "int16", *(("int16",) if period else ()), "int16", "int16")
        self._period = period[1] if period else None
        self.rows: list[tuple[int, ...]] = []
        self._row = 0
        self._step = 0

    def start_row(self, row: int) -> None:
        """The decisions from now on belong to row ``row`` (of those played), counted from step 0."""
        self._row, self._step = row, 0

    def record(self, seat: int, observation: Any, action: int) -> None:
        """Note that ``seat``, seeing ``observation``, chose ``action``."""
        period = () if self._period is None else (getattr(observation, self._period),)
        self.rows.append((self._row, self._step, seat, *period, observation.phase, action))
        self._step += 1

    def columns(self) -> dict[str, np.ndarray]:
        """Every recorded decision, one array per column."""
        table = np.array(self.rows, dtype=np.int64).reshape(-1, len(self.names))
        return {name: table[:, i].astype(dtype)
                for i, (name, dtype) in enumerate(zip(self.names, self.dtypes, strict=True))}


def play_one_per_seed(n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]],
                      log: DecisionLog | None, make_agent: AgentMaker | None, new_match: Callable[[int], G], what: str,
                      action_name: Callable[[int], str],
                      replay_options: Mapping[str, Any] | None = None) -> list[tuple[int, G]]:
    """Play one reference deal per match seed with its seating's agents (made by ``make_agent``); return (seed,
    deal) pairs.

    Deal ``i`` is ``new_match(derive_seed(match_seeds[i], 0))``, played by ``play_with_agents``; a failing
    agent stops the play with one ``AgentFailure`` line naming ``what`` (e.g. ``the Kort match``) and the seed;
    given ``replay_options`` (the game's checked options), the failure carries the ``FailedDeal`` that replays it.
    """
    pool = AgentPool(n_seats, log, make_agent)
    played: list[tuple[int, G]] = []
    for match_seed, seating in zip(match_seeds, seatings, strict=True):
        seed = derive_seed(int(match_seed), 0)
        deal = new_match(seed)
        agents = pool.seat(seating)
        if log is not None:
            log.start_row(len(played))
        failed = None if replay_options is None else FailedDeal(n_seats, seed, tuple(seating), replay_options)
        play_guarded(partial(play_with_agents, deal, agents, seed), agents, f"{what} with seed {seed}", action_name,
                     len(played), failed)
        played.append((seed, deal))
    return played
