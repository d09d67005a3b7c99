"""What every game's readable reference engine does the same way: the checked step, copies, masks and views.

A game's engine subclasses ``ReferenceGame``: it keeps its own state and rules,
says which list fields a copy must not share, and writes ``_take`` (one legal
action applied). ``Observation`` is the base of each game's per-seat view, ``SeatView`` the
fields the built-in games' views share.

The conformance protocol drives any of them the same way (``play_by_protocol``,
``protocol_fields``, ``trace_protocol``): one splitmix64 stream started at the seed
gives every deck and every decision (``legal[next() % len(legal)]``).
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from sim.cards import card_list, popcount
from sim.errors import GameInputError, GameOverError, IllegalActionError
from sim.rng import SplitMix64


class ReferenceGame:
    """The step, the copy and the questions every reference engine answers alike.

    A subclass sets ``UNIT`` (what one game is called in messages), ``NUM_ACTIONS``
    and ``COPIED``, the attributes holding lists or dicts that actions change in place,
    and keeps ``n_seats``, ``hands`` (one card set a seat), ``decisions``, ``end_reason`` and
    ``_to_move``; it writes ``legal_actions`` and ``_take``.
    """

    UNIT: ClassVar[str] = "game"
    NUM_ACTIONS: ClassVar[int]
    COPIED: ClassVar[tuple[str, ...]] = ()
    """List attributes a clone copies (one level deep) rather than shares."""
    RENDER: ClassVar[str | None] = None
    """The module that draws a position (its ``render_svg(deal)``), for ``_repr_svg_``; None: not drawn."""

    n_seats: int
    hands: list[int]
    decisions: list[int]
    scores: list[int]
    log: list[dict[str, Any]]
    end_reason: Any
    _to_move: int

    def _repr_svg_(self) -> str | None:
        """The position drawn as SVG, the whole deal face up: a notebook cell ending in an engine shows it as it
        stands (None, nothing drawn, without ``RENDER``). The drawing is imported on first use: it imports the
        engine."""
        if self.RENDER is None:
            return None
        return importlib.import_module(self.RENDER).render_svg(self)

    @property
    def done(self) -> bool:
        """Whether play has ended."""
        return self.end_reason is not None

    @property
    def to_move(self) -> int:
        """The seat whose decision it is (-1 once play has ended)."""
        return -1 if self.done else self._to_move

    def legal_actions(self) -> list[int]:
        """The legal action ids for the seat to move, ascending (empty once play has ended)."""
        raise NotImplementedError

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a ``bool[NUM_ACTIONS]`` mask (all False once play has ended)."""
        mask = np.zeros(self.NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def _own_turn(self, seat: int) -> bool:
        """Whether it is ``seat``'s decision, for its observation (which shows its legal actions only then); a
        seat the table does not have (``n_seats``) is refused in one line."""
        if not 0 <= seat < self.n_seats:
            raise GameInputError(f"a seat is 0 to {self.n_seats - 1}, not {seat}")
        return seat == self.to_move

    def seat_view(self, seat: int) -> dict[str, Any]:
        """The ``SeatView`` fields of ``seat``'s observation: the seat, who is to move, its own cards, every seat's
        card count, the scores, its legal actions (only on its own turn: another seat's options would tell what
        that seat holds), whether play has ended and the public log. A game's ``observation`` adds its own."""
        own_turn = self._own_turn(seat)
        return {"seat": seat, "to_move": self.to_move, "hand": tuple(card_list(self.hands[seat])),
                "card_counts": tuple(self.card_counts()), "scores": tuple(self.scores),
                "legal": tuple(self.legal_actions()) if own_turn else (), "done": self.done, "log": tuple(self.log)}

    def card_counts(self) -> list[int]:
        """How many cards each seat holds now."""
        return [popcount(hand) for hand in self.hands]

    def clone(self) -> Self:
        """An independent copy: applying actions to it never touches this one."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        for name in self.COPIED:
            setattr(twin, name, list(getattr(self, name)))
        self._finish_clone(twin)
        return twin

    def _finish_clone(self, twin: Self) -> None:
        """Copy what the copied lists would still share, and state that is not a list (nested lists, a stream)."""

    def apply(self, action: int) -> None:
        """Take ``action`` for the seat to move; an illegal id raises and changes nothing."""
        if self.done:
            raise GameOverError(f"the {self.UNIT} is over ({self.end_reason.value}); no action {action} can be taken")
        if not self.allows(action):
            raise IllegalActionError(self._to_move, action, self.legal_actions())
        action = int(action)
        self.decisions.append(action)
        self._take(action)

    def allows(self, action: object) -> bool:
        """Whether ``apply(action)`` would take it: ``action`` is among ``legal_actions()``. A game may answer
        without listing them all, since every applied action is checked."""
        return action in self.legal_actions()

    def _take(self, action: int) -> None:
        """Apply a legal action of the seat to move (already recorded in ``decisions``)."""
        raise NotImplementedError


class Observation:
    """Base of each game's per-seat view: a frozen dataclass of plain data."""

    def to_dict(self) -> dict[str, Any]:
        """The observation as plain lists and dicts."""
        return asdict(self)


@dataclass(frozen=True)
class SeatView(Observation):
    """The fields every built-in game's view starts with, as ``ReferenceGame.seat_view`` fills them: an agent
    written for one game finds its seat, cards, legal actions and the log under the same names in every other."""

    seat: int
    to_move: int
    hand: tuple[int, ...]
    card_counts: tuple[int, ...]
    scores: tuple[int, ...]
    legal: tuple[int, ...]
    done: bool
    log: tuple[dict[str, Any], ...]


DeckSource = Callable[[], Sequence[int]]
"""Where a game takes each fresh deck from: a call returning a permutation of the 52 card ids."""
G = TypeVar("G", bound=ReferenceGame)


def play_by_protocol(new_game: Callable[[DeckSource], G], seed: int) -> G:
    """The game ``new_game(deck_source)`` makes, played to its end on the protocol's one stream from ``seed``."""
    rng = SplitMix64(seed)
    game = new_game(rng.shuffled_deck)
    while not game.done:
        game.apply(rng.choice(game.legal_actions()))
    return game


def protocol_fields(seed: int, fields: Sequence[int], decisions: bytes | Sequence[int]) -> str:
    """A protocol line: the seed, the game's ``fields``, then the decisions' count and CRC-32 (a byte each)."""
    data = bytes(decisions)
    return " ".join(str(f) for f in [seed, *fields, len(data), zlib.crc32(data)])


def trace_protocol(new_game: Callable[[DeckSource], G], seed: int,
                   event_lines: Callable[[Mapping[str, Any], G, list[list[int]]], list[str]],
                   step_line: Callable[[G, list[int], int], str]) -> list[str]:
    """The protocol game's trace: each log event's lines (``event_lines(event, game, decks)``, where ``decks``
    holds the decks drawn and not yet shown, oldest first) and a line per decision (``step_line(game, legal,
    action)``, written before the action is applied)."""
    rng = SplitMix64(seed)
    decks: list[list[int]] = []

    def draw() -> list[int]:
        decks.append(rng.shuffled_deck())
        return decks[-1]

    game = new_game(draw)
    lines: list[str] = []
    read = 0
    while True:
        for event in game.log[read:]:
            lines += event_lines(event, game, decks)
        read = len(game.log)
        if game.done:
            return lines
        legal = game.legal_actions()
        action = rng.choice(legal)
        lines.append(step_line(game, legal, action))
        game.apply(action)
