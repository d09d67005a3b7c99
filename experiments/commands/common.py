"""What several commands ask of the command line the same way: the game, its seats and options, the engine."""

from __future__ import annotations

import argparse
from types import ModuleType

from experiments.errors import ConfigError, UsageError
from sim import games
from sim.contract import check_seats, has_compiled_engine
from sim.engine_words import COMPILED, ENGINES, engine_word, spelled
from sim.options import option_pairs

ENGINE_CHOICES = spelled(ENGINES)  # the words --engine takes where one engine plays or is timed (no auto)


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """``--game``, any registered game (default knorri)."""
    parser.add_argument("--game", choices=tuple(games.names()), default=games.DEFAULT_GAME,
                        help=f"which game (default {games.DEFAULT_GAME}): one of {', '.join(games.names())}")


def add_deal_arguments(parser: argparse.ArgumentParser, seats_help: str) -> None:
    """``--game``, ``--seats``, ``--first`` and ``--option``: which game, and how its deals are set up."""
    add_game_argument(parser)
    parser.add_argument("--seats", type=int, default=None, help=seats_help)
    parser.add_argument("--first", type=int, default=None,
                        help="the opening seat, where the game lets one choose (Knorri: the seat that turns first, "
                             "default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. cap=20000 or repeat=3 (Knorri), rainbow=true (Knockout Whist) or "
                             "target_wins=3 (Kort); repeatable")


def seat_count_list(text: str) -> list[int]:
    """The seat counts a ``--seats`` list names ("4", or "3,4,5,6"), in its order: whole numbers, none twice, at
    least one. Whether the game is played at each is checked where the game is known (``check_seats``)."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ConfigError(f"--seats takes seat counts separated by commas (4, or 3,4,5,6), not {text!r}") from None
    if not counts:
        raise ConfigError(f"--seats: seats must name at least one seat count, not {text!r}")
    if len(set(counts)) != len(counts):
        raise ConfigError(f"--seats names each seat count once, not {text!r}")
    return counts


def game_settings(name: str, seats: int | None, settings: list[str],
                  seats_required: bool = False) -> tuple[ModuleType, int, dict]:
    """The game's adapter, the seat count (its default where not given) and its checked options.

    With ``seats_required``, a game played at several seat counts needs ``--seats``.
    """
    adapter = games.adapter(name)
    if seats is None:
        if seats_required and adapter.MIN_SEATS != adapter.MAX_SEATS:
            raise UsageError(f"--seats is required for {adapter.TITLE}: {adapter.MIN_SEATS} to {adapter.MAX_SEATS}")
        seats = adapter.DEFAULT_SEATS
    n_seats = check_seats(adapter, seats)
    options = adapter.check_options(dict(option_pairs(settings)))
    return adapter, n_seats, options


def engine_name(adapter: ModuleType, engine: str) -> str:
    """``reference`` or ``compiled`` (``fast`` is read as ``compiled``); one line if the game has no compiled engine."""
    engine = engine_word(engine, ENGINES)
    if engine == COMPILED and not has_compiled_engine(adapter):
        raise UsageError(f"{adapter.TITLE} has no compiled engine: use --engine reference")
    return engine
