"""Agents seated by the runner: specs checked once per run, an agent maker per game for the engines, and the
command line that replays a deal an agent failed in.

The engines in ``sim`` seat agents through the ``AgentMaker`` they are handed; this module is
where specs become agents (``agents.base.make_agent``), so a constructor that fails is one
spec error line wherever it is built: when a run checks its lineups before it starts, and in
each worker.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from types import ModuleType

from agents.base import Agent, AgentMaker, AgentSpecError, make_agent
from sim import games
from sim.errors import FailedDeal, GameInputError, raised_at
from sim.seating import described


def build_agent(spec: str, game: str, seed: int = 0) -> Agent:
    """``make_agent(spec, seed, game)``; a constructor that raises anything becomes one spec error line."""
    try:
        return make_agent(spec, seed=seed, game=game)
    except (AgentSpecError, GameInputError):
        raise
    except (Exception, SystemExit) as error:  # a user's constructor: any failure is reported, named
        module = str(spec).strip().partition(":")[0] if ":" in spec else None
        where = raised_at(error, module)
        raise AgentSpecError(f"agent spec {spec!r} failed to start: {described(error)}"
                             + (f" (raised at {where})" if where else "")) from None


@contextlib.contextmanager
def agents_print_to_stderr() -> Iterator[None]:
    """While agents play, what they ``print`` goes to stderr: stdout holds the command's own output (a run's
    summary, a played deal's log), which a script may read."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def agent_maker(game: str) -> AgentMaker:
    """The ``AgentMaker`` an engine seats ``game``'s agents with (``build_agent`` with seed 0: every agent is
    reseeded at each deal)."""
    return partial(build_agent, game=game)


def check_specs(specs: Sequence[str], game: str) -> None:
    """Refuse a spec that makes no agent of ``game``, in one line: each distinct spec's agent is built once, here,
    so a constructor that fails says so before a run starts (the agents that play are built afresh,
    ``agent_maker``)."""
    for spec in dict.fromkeys(specs):
        build_agent(spec, game)


def replay_command(adapter: ModuleType, game: str, deal: FailedDeal) -> str:
    """The ``knorri-sim play`` command that plays ``deal`` of ``game`` again with the same agents (and the options
    that differ from the defaults of its ``adapter``), as a failure message quotes it."""
    words = ["knorri-sim play"] + ([] if game == games.DEFAULT_GAME else [f"--game {game}"])
    words += [f"--seats {deal.n_seats}", f"--seed {deal.seed}"]
    words += [] if not deal.first_seat else [f"--first {deal.first_seat}"]
    defaults = adapter.check_options({})
    for name, value in deal.options.items():
        if defaults.get(name) != value:
            words.append(f"--option {name}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(words) + " --agents " + shlex.quote(";".join(deal.seating))
