"""Errors every game raises for bad input; each message is one line that says what is allowed."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class GameInputError(ValueError):
    """Input a game refuses (a bad deck, seat count or option); nothing was changed."""


class IllegalActionError(GameInputError):
    """An action id that is not legal for the seat to move; the state is untouched."""

    def __init__(self, seat: int, action: int, legal: Sequence[int], who: str | None = None) -> None:
        self.seat = seat
        self.action = action
        self.legal = list(legal)
        self.who = who
        subject = f"{who} at seat {seat}" if who else f"seat {seat}"
        super().__init__(
            f"illegal action {action} by {subject}: legal ids are {', '.join(map(str, self.legal)) or 'none'}"
        )


class GameOverError(GameInputError):
    """An action sent to a hand that has already ended."""


def check_deck(deck: Sequence[int], size: int = 52) -> list[int]:
    """The deck as a list of ints, if it is a permutation of ``0..size-1``; otherwise a clear error."""
    try:
        cards = [int(c) for c in deck]
    except (TypeError, ValueError):
        raise GameInputError(f"a deck is a permutation of the card ids 0 to {size - 1}") from None
    if len(cards) != size or sorted(cards) != list(range(size)):
        missing = sorted(set(range(size)) - set(cards))
        detail = f"{len(cards)} cards" + (f", missing {missing[:5]}" if missing else "")
        raise GameInputError(
            f"a deck must be a permutation of the {size} card ids 0 to {size - 1}; got {detail}"
        )
    return cards


@dataclass(frozen=True)
class FailedDeal:
    """The deal an agent failed in, as the engine played it: what a command line needs to play it again.

    ``options`` are the game's checked options (the command leaves out those at their defaults);
    ``first_seat`` is the opening seat, where the game lets one choose it.
    """

    n_seats: int
    seed: int
    seating: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    first_seat: int | None = None


class AgentFailure(RuntimeError):
    """An agent raised or chose an illegal action: the message names the agent, seat, seed and action.

    ``row`` is the failing row's place among those played (the runner turns it into ``hand_index``), and
    ``deal`` the deal itself (the runner writes the ``knorri-sim play`` command that replays it as
    ``replay``); both are added to the message when known.
    """

    def __init__(self, message: str, row: int | None = None, deal: FailedDeal | None = None,
                 trace: str = "") -> None:
        super().__init__(message)
        self.message, self.row, self.deal = message, row, deal
        self.replay: str | None = None
        self.hand_index: int | None = None
        self.trace = trace  # the agent's whole traceback, printed by the command line with --debug

    def __str__(self) -> str:
        where = "" if self.hand_index is None else f" (hand_index {self.hand_index})"
        return self.message + where + (f"; replay it with: {self.replay}" if self.replay else "")


def agent_location(agent: Any, error: BaseException) -> str:
    """Where in the agent's own module ``error`` was raised, as ``file:line`` (the innermost frame in that file),
    or ``""`` when no frame of the traceback is in it."""
    module = sys.modules.get(type(agent).__module__)
    source = getattr(module, "__file__", None)
    if not source:
        return ""
    source = str(Path(source).resolve())
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        if str(Path(frame.filename).resolve()) == source:
            where = f"{frame.filename}:{frame.lineno}"
    return where


def method_location(agent: Any, method: str) -> str:
    """Where an agent's ``method`` (``act``, ``reset``) is written, as ``file:line`` of its ``def`` (``""`` when
    unknown): what a message points at when the agent returned something wrong rather than raised."""
    function = getattr(type(agent), method, None)
    try:
        code = getattr(function, "__code__", None)
        return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    except AttributeError:
        return ""


def raised_at(error: BaseException, module: str | None = None) -> str:
    """Where ``error`` was raised, as ``file:line``: the innermost frame in ``module``'s file when one is (a user's
    class), else the innermost frame of all; ``""`` without a traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    source = getattr(sys.modules.get(module or ""), "__file__", None)
    own = [frame for frame in frames if source and str(Path(frame.filename).resolve()) == str(Path(source).resolve())]
    frame = (own or frames or [None])[-1]
    return f"{frame.filename}:{frame.lineno}" if frame is not None else ""


def full_trace(error: BaseException) -> str:
    """The exception's whole traceback as text (for ``--debug``)."""
    return "".join(traceback.format_exception(error))
