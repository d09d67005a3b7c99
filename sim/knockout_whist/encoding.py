"""Knockout Whist's fixed encodings: the 59-id action space, seat statuses, phases and the named options.

The reference engine and any compiled engine import these names; nothing else
defines them. Everything is a small int (or a 64-bit card set from
``sim.cards``), so the same values fit fixed-size arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import IntEnum, StrEnum
from typing import Any

from sim.cards import SUIT_LETTERS, card_text, parse_card, suit_named
from sim.errors import GameInputError
from sim.options import parse_named_options

NUM_ACTIONS = 59
KNOCK = 52  # a dog keeps its one card for a later trick
TRUMPS_BASE = 53  # 53 + suit chooses that suit (clubs 53 .. spades 56)
NO_TRUMPS_ACTION = 57  # only with the option no_trumps_choice
END_EXCHANGE = 58  # only with the option card_exchange

NO_TRUMPS = 4  # the trumps of a hand played without a trump suit (suits are 0..3)
MIN_SEATS, MAX_SEATS = 2, 7
LAST_HAND = 7
RAINBOW_HAND = 4
MAX_EXCHANGE = 3
FIRST_DEALER = 0


def cards_in_hand(hand_no: int) -> int:
    """How many cards an ordinary seat is dealt in hand ``hand_no`` (1..7): 7 down to 1."""
    return LAST_HAND + 1 - hand_no


class Phase(IntEnum):
    """What the seat to move is deciding."""

    CHOOSE = 0  # the trump chooser picks a suit (hands 2 to 7)
    EXCHANGE = 1  # card exchange: pick cards to throw away, then end the exchange
    PLAY = 2  # play a card to the trick (or knock, for a dog)
    OVER = 3  # the game has ended


class Status(IntEnum):
    """Where a seat stands in the game."""

    IN = 0  # an ordinary seat
    DOG = 1  # on its dog's life: one card this hand
    OUT = 2  # knocked out


class EndReason(StrEnum):
    """How a game ended."""

    LAST_TRICK = "last_trick"  # someone took the single trick of hand 7
    LAST_STANDING = "last_standing"  # everyone else was knocked out earlier
    RAINBOW = "rainbow"  # option rainbow: one card of each suit in hand 4


@dataclass(frozen=True)
class Options:
    """The named options of a game; the defaults are the rules text's main rules (dog's life on, no variant)."""

    players: int = 4
    dogs_life: bool = True
    safe_first_hand: bool = False
    winner_deals: bool = False
    card_exchange: bool = False
    no_trumps_choice: bool = False
    rainbow: bool = False

    def __post_init__(self) -> None:
        players = self.players
        if isinstance(players, bool) or not isinstance(players, int) or not MIN_SEATS <= players <= MAX_SEATS:
            raise GameInputError(f"Knockout Whist is for {MIN_SEATS} to {MAX_SEATS} players, not {players}")
        for option in fields(self)[1:]:
            if not isinstance(getattr(self, option.name), bool):
                raise GameInputError(f"option {option.name} is true or false, not {getattr(self, option.name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (JSON-serialisable); built at every observation, so kept cheap."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def flags(self) -> int:
        """The boolean options as one int, bit ``i`` for ``FLAG_OPTIONS[i]`` (for compiled engines)."""
        return sum(1 << i for i, name in enumerate(FLAG_OPTIONS) if getattr(self, name))


OptionsLike = Options | Mapping[str, Any] | None
"""How callers may give options: ``Options``, a mapping of names to values, or None for the defaults."""
OPTION_NAMES: tuple[str, ...] = tuple(option.name for option in fields(Options))
FLAG_OPTIONS: tuple[str, ...] = OPTION_NAMES[1:]
DEFAULT_OPTIONS = Options()

_TRUE_WORDS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}


def parse_options(settings: Iterable[str] | Mapping[str, Any] = ()) -> Options:
    """Options from ``name=value`` strings or a mapping; unnamed options keep their defaults.

    A bad name or value raises a one-line ``GameInputError`` that lists what is allowed.
    """
    return parse_named_options(settings, Options, _option_value, "the options")


def _option_value(name: str, value: Any) -> Any:
    """``players`` as a number; every other option as true or false (words like yes/no, on/off, 1/0)."""
    if name == "players":
        try:
            return int(value)
        except (TypeError, ValueError):
            raise GameInputError(f"option players is a number of seats {MIN_SEATS} to {MAX_SEATS}, "
                                 f"not {value!r}") from None
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word not in _TRUE_WORDS:
        raise GameInputError(f"option {name} is true or false, not {value!r}")
    return _TRUE_WORDS[word]


def trumps_action(suit: int) -> int:
    """The action id that chooses ``suit`` (0..3) as trumps, or no trumps for ``NO_TRUMPS``."""
    if suit == NO_TRUMPS:
        return NO_TRUMPS_ACTION
    if not 0 <= suit < 4:
        raise ValueError(f"a trump suit is 0 to 3 (or {NO_TRUMPS} for no trumps), not {suit}")
    return TRUMPS_BASE + suit


def trumps_of_action(action: int) -> int:
    """The trumps (suit 0..3, or ``NO_TRUMPS``) an action id 53..57 chooses."""
    if not TRUMPS_BASE <= action <= NO_TRUMPS_ACTION:
        raise ValueError(f"action id {action} does not choose trumps: those are {TRUMPS_BASE} to {NO_TRUMPS_ACTION}")
    return action - TRUMPS_BASE


def trumps_text(trumps: int | None) -> str:
    """``C``, ``D``, ``H``, ``S`` or ``none`` (``-`` while not yet chosen)."""
    if trumps is None:
        return "-"
    return "none" if trumps == NO_TRUMPS else SUIT_LETTERS[trumps]


def action_text(action: int) -> str:
    """A readable name for an action id: a card, ``knock``, ``trumps H``, ``no trumps``, ``end exchange``."""
    if 0 <= action < KNOCK:
        return card_text(action)
    if action == KNOCK:
        return "knock"
    if TRUMPS_BASE <= action < NO_TRUMPS_ACTION:
        return "trumps " + SUIT_LETTERS[action - TRUMPS_BASE]
    if action == NO_TRUMPS_ACTION:
        return "no trumps"
    if action == END_EXCHANGE:
        return "end exchange"
    raise ValueError(f"action id {action} is out of range: ids are 0 to {NUM_ACTIONS - 1}")


def parse_action(text: str | int) -> int:
    """The action id of ``7C``, ``knock``, ``trumps H``, ``no trumps`` or ``end exchange`` (or a bare id)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if not 0 <= text < NUM_ACTIONS:
            raise GameInputError(f"action id {text} is out of range: ids are 0 to {NUM_ACTIONS - 1}")
        return text
    cleaned = " ".join(str(text).strip().lower().split())
    named = {"knock": KNOCK, "no trumps": NO_TRUMPS_ACTION, "end exchange": END_EXCHANGE}
    if cleaned in named:
        return named[cleaned]
    if cleaned.startswith("trumps "):
        return TRUMPS_BASE + suit_named(text, cleaned, "trumps ", "write trumps C, D, H or S")
    return parse_card(cleaned)
