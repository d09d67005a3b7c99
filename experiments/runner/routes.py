"""The route a lineup takes to the kernel, chosen once when a run is planned, and the call that follows it.

Four routes give the same rows (tested), from the fastest:

- ``ENGINE``: the game's compiled engine with its own policies (bare ``random``, and Knorri's ``greedy``),
  through the adapter's ``play_matches`` with ``engine="compiled"``;
- ``LINEUP``: the compiled lineup player the game's agents package registers (``agents.base.lineup_player``),
  for lineups of built-in agents with compiled twins (search, trackers);
- ``BATCH``: vectorised agents (``act_batch``) stepping the game's batch engine (``batch_agents``);
- ``REFERENCE``: the reference engine, every agent built from its spec (``seating.agent_maker``).

``choose_route`` decides it from the game (its adapter, and its name for the agents' registry), the seatings, the
action log and the engine asked for (a word of ``sim.engine_words``); the plan stores it per table and the chunk
executor only follows it (``play_route``). It is the only place ``auto`` is read: an adapter's ``play_matches`` is
handed ``compiled`` or ``reference``, and ``play_matches`` here is the one-call form, by name, for the Python API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from agents.base import AgentMaker, lineup_player
from agents.base import compiled_code as agent_code
from experiments.runner import batch_agents
from experiments.runner.seating import agent_maker
from sim import games
from sim.contract import ChunkColumns, batch_code
from sim.engine_words import AUTO, COMPILED, engine_word
from sim.engine_words import REFERENCE as REFERENCE_ENGINE
from sim.seating import is_engine_lineup

ENGINE, LINEUP, BATCH, REFERENCE = "engine", "lineup", "batch", "reference"


def choose_route(adapter: ModuleType, game: str, seatings: Sequence[Sequence[str]], log_actions: bool,
                 engine: str = AUTO) -> str:
    """The route that plays ``seatings`` of ``game`` (``adapter`` its adapter): compiled whenever some compiled code
    plays every seating (and keeps the action log if one is asked for) unless ``engine`` is ``reference``;
    ``compiled`` insists on it."""
    engine = engine_word(engine)
    distinct = list(dict.fromkeys(tuple(seating) for seating in seatings))
    if (engine != REFERENCE_ENGINE and adapter.BATCH_POLICIES is not None
            and batch_agents.takes_batch_path(log_actions, distinct, game, adapter.BATCH_POLICIES)):
        return BATCH
    player = lineup_player(game)
    compiled, logs = None, False
    if is_engine_lineup(distinct, adapter.ENGINE_POLICIES):
        compiled, logs = ENGINE, adapter.COMPILED_LOGS_ACTIONS
    elif player is not None and all(player.accepts(seating) for seating in distinct):
        compiled, logs = LINEUP, player.logs_actions
    keeps_log = logs or not log_actions
    if engine == COMPILED and (compiled is None or not keeps_log):
        names = dict.fromkeys((*adapter.ENGINE_POLICIES, *(player.names if player else ())))
        raise ValueError("the compiled engine plays only lineups of " + ", ".join(names)
                         + (" (mcts without time=)" if "mcts" in names else "")
                         + ("" if adapter.COMPILED_LOGS_ACTIONS else ", without an action log"))
    if compiled is None or not keeps_log or engine == REFERENCE_ENGINE:
        return REFERENCE
    return compiled


def built_in_only(adapter: ModuleType, route: str, seatings: Sequence[Sequence[str]]) -> bool:
    """Whether a table on ``route`` runs only this project's code: a compiled route, or the engine's own policies
    (bare names, ``adapter.ENGINE_POLICIES``) on any route; a user's agent may crash or hang its process."""
    return route in (ENGINE, LINEUP) or is_engine_lineup(seatings, adapter.ENGINE_POLICIES)


def compiled_code(adapter: ModuleType, game: str, route: str, specs: Sequence[str]) -> dict[str, float]:
    """The modules of compiled code a lineup of ``game`` on ``route`` runs, each with its measured compile seconds:
    the engine's kernels (its ``adapter``'s), the lineup player's, or (batch and reference) each agent's own
    (``agents.base.compiled_code``), on the batch route with the batch engine's (``sim.contract.batch_code``)."""
    if route == ENGINE:
        return dict(adapter.COMPILED_CODE)
    if route == LINEUP:
        player = lineup_player(game)
        assert player is not None
        return player.compiled_code(specs)
    code: dict[str, float] = batch_code(adapter) if route == BATCH else {}
    for spec in specs:
        code.update(agent_code(spec, game, batch=route == BATCH))
    return code


def compile_parts(game: str, route: str, specs: Sequence[str]) -> Sequence[Callable[[], object]]:
    """The parts of a lineup's compiled code that compile on their own, the biggest first
    (``LineupPlayer.compile_parts``): only a lineup player's kernels split so, and a plug-in's player written
    without the method has none."""
    player = lineup_player(game) if route == LINEUP else None
    parts = getattr(player, "compile_parts", None)
    return tuple(parts(specs)) if parts is not None else ()


def play_route(route: str, adapter: ModuleType, game: str, n_seats: int, match_seeds: Sequence[int],
               seatings: Sequence[Sequence[str]], match_hands: int, log_actions: bool,
               options: Mapping[str, Any] | None, make_agent: AgentMaker | None = None,
               continuation: Mapping[str, Any] | None = None) -> ChunkColumns:
    """Play one match of ``game`` (``adapter`` its adapter) per seed, ``seatings[i]`` at the table, on ``route`` (as
    ``choose_route`` chose it); the reference route seats the agents ``make_agent`` builds (by default
    ``seating.agent_maker(game)``). A ``continuation`` (a run continued past its cut-offs) is handed on only when
    given, so a game without cut-offs never sees the word."""
    options = dict(options or {})
    more = {} if continuation is None else {"continuation": dict(continuation)}
    if route == LINEUP:
        player = lineup_player(game)
        assert player is not None
        return player.play(n_seats, match_seeds, seatings, match_hands, log_actions, options, **more)
    if route == BATCH:
        return batch_agents.play_batched(adapter, game, n_seats, match_seeds, seatings, match_hands, options, **more)
    engine = COMPILED if route == ENGINE else REFERENCE_ENGINE
    return adapter.play_matches(n_seats, match_seeds, seatings, match_hands, log_actions, options,
                                make_agent or agent_maker(game), engine=engine, **more)


def play_matches(game: str, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]],
                 match_hands: int = 1, log_actions: bool = False, options: Mapping[str, Any] | None = None,
                 engine: str = AUTO, continuation: Mapping[str, Any] | None = None) -> ChunkColumns:
    """``choose_route`` then ``play_route``: one call that plays matches of the game called ``game`` as a run would
    (for tests, benches and notebooks), its adapter looked up once."""
    adapter = games.adapter(game)
    route = choose_route(adapter, game, seatings, log_actions, engine)
    return play_route(route, adapter, game, n_seats, match_seeds, seatings, match_hands, log_actions, options,
                      continuation=continuation)
