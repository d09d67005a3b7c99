"""Kort's fixed encodings: the 63-id action space, seats and teams, lead states, round results and the options.

The reference engine and any compiled engine import these names; nothing else
defines them. Every value is a small int (or a 64-bit card set from
``sim.cards``), so the same values fit fixed-size arrays: a lead state packs
into one int16 (``LeadState.code``), a phase, result or automatic case into one int8.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from sim.cards import SUIT_LETTERS, card_text, parse_card, suit_named
from sim.errors import GameInputError
from sim.options import parse_named_options

# ----- the action space -----------------------------------------------------------------------

NUM_ACTIONS = 63
TRUMP_BASE = 52  # 52 + suit makes that suit trumps (clubs 52 .. spades 55)
TRUMP_13 = 56  # trumps are the suit of the holder's 13th card
SAR = 57
TROP = 58
TROP_TO_END = 59
REDEAL = 60
BAVAN_YES = 61
BAVAN_NO = 62
TRUMP_ACTIONS = (52, 53, 54, 55, TRUMP_13)
VOTE_ACTIONS = (BAVAN_YES, BAVAN_NO)

# ----- the table ------------------------------------------------------------------------------

NUM_SEATS = 4
NUM_TEAMS = 2
CARDS_EACH = 13
FIRST_PACKET = 5  # the holder's cards before choosing trumps; the others' first packet too
PACKET = 4  # the two later packets of each seat
THIRTEENTH_POSITION = 39  # deck position of the holder's 13th card (its second packet of four ends there)

# ----- the round's numbers ----------------------------------------------------------------------

TRICKS_TO_WIN = 7  # the round ends when a team has this many tricks (except in Bavan)
TRICKS_IN_ROUND = 13
SAR_BELOW_TRUMPS = 3  # fewer trumps than this (the led card included) makes a trump lead an automatic Sar
SAR_FROM_TRICKS = 5  # a team with this many tricks (and not playing Bavan) may only declare Sar
TROP_LEADS = 3  # trump leads a Trop commits to
TROP_TO_END_LEADS = 7  # trump leads Trop to the end commits to
TROP_TO_END_TRUMPS = 7  # trumps in hand (the led card included) needed to offer Trop to the end


class Phase(IntEnum):
    """What the seat to move is deciding (the words are the conformance traces' ``kind``)."""

    TRUMP = 0  # the holder, with 5 cards, picks a suit or "13"
    LEAD = 1  # lead a card (or redeal, at the round's first lead)
    DECLARE = 2  # after a trump lead that needs a choice: Sar, Trop, or Trop to the end
    FOLLOW = 3  # play a card to the trick
    VOTE = 4  # a seat of the 7:0 team votes on Bavan
    OVER = 5  # the match has ended

    @property
    def word(self) -> str:
        """The lower-case name the traces use: ``trump``, ``lead``, ``declare``, ``follow``, ``vote``, ``over``."""
        return self.name.lower()


class LeadKind(IntEnum):
    """A team's lead state, without the Trop count (see ``LeadState``)."""

    FREE = 0  # lead any card
    SAR = 1  # Sar declared on the trick being played; resolved when the trick ends
    SAR_NEXT = 2  # the next lead must not be a trump, unless the leader holds only trumps
    TROP = 3  # a Trop in progress: the next lead must be a trump
    TROP_DONE = 4  # no trump leads (unless the leader holds only trumps) until the team leads a non-trump


class LeadState(NamedTuple):
    """One team's lead state: its kind and, for a Trop, the trump leads made of the leads committed to."""

    kind: LeadKind = LeadKind.FREE
    made: int = 0
    of: int = 0

    @property
    def code(self) -> int:
        """The state as one int: ``kind + 8 * made + 64 * of`` (fits an int16)."""
        return int(self.kind) + 8 * self.made + 64 * self.of

    @classmethod
    def from_code(cls, code: int) -> LeadState:
        """The state an int from ``code`` stands for."""
        return cls(LeadKind(code % 8), (code // 8) % 8, code // 64)

    @property
    def text(self) -> str:
        """``free``, ``sar``, ``sar_next``, ``trop(k,N)`` or ``trop_done`` (the traces' words)."""
        if self.kind == LeadKind.TROP:
            return f"trop({self.made},{self.of})"
        return self.kind.name.lower()

    @classmethod
    def from_text(cls, text: str) -> LeadState:
        """The state a trace word names (``free``, ``trop(2,3)``, …): the inverse of ``text``."""
        if text.startswith("trop("):
            made, of = text[len("trop("):-1].split(",")
            return cls(LeadKind.TROP, int(made), int(of))
        return cls(LeadKind[text.upper()])


FREE = LeadState()


def trop_state(made: int, of: int) -> LeadState:
    """The state of a Trop with ``made`` trump leads of ``of`` (3 for Trop, 7 for Trop to the end)."""
    return LeadState(LeadKind.TROP, made, of)


class TrumpLead(IntEnum):
    """The rulings' case analysis of a fresh trump lead, in their order; the first that applies decides."""

    ALL_TRUMPS = 0  # the hand is all trumps: nothing declared
    SAR_FEWER_THAN_3 = 1  # fewer than 3 trumps: Sar, automatically
    SAR_5_TRICKS = 2  # the team has 5 tricks and is not playing Bavan: Sar, automatically
    CHOOSE = 3  # the leader declares: Sar or Trop (and Trop to the end at the round's first lead)

    @property
    def word(self) -> str:
        """The traces' name of an automatic case: ``alltrump``, ``sar_auto_fewer_than_3``, ``sar_auto_5_tricks``."""
        return _TRUMP_LEAD_WORDS[self]


_TRUMP_LEAD_WORDS = {
    TrumpLead.ALL_TRUMPS: "alltrump",
    TrumpLead.SAR_FEWER_THAN_3: "sar_auto_fewer_than_3",
    TrumpLead.SAR_5_TRICKS: "sar_auto_5_tricks",
    TrumpLead.CHOOSE: "choose",
}


DECLARATION_KINDS: tuple[str, ...] = ("sar", "trop", "trop_to_end", *(case.word for case in (
    TrumpLead.ALL_TRUMPS, TrumpLead.SAR_FEWER_THAN_3, TrumpLead.SAR_5_TRICKS)))
"""A declaration as one small int, indexing this: a chosen one is its action id minus ``SAR``
(sar, trop, trop_to_end), an automatic one ``AUTOMATIC_BASE`` plus its ``TrumpLead`` case
(alltrump, sar_auto_fewer_than_3, sar_auto_5_tricks). The words are the records' and traces'."""
AUTOMATIC_BASE = 3


class Result(IntEnum):
    """How a round ended."""

    ORDINARY = 0  # first to 7 tricks, the losers having 1 or more
    KORT = 1  # 7:0 by the holder's team, no Bavan
    AT_KORT = 2  # 7:0 by the other team, no Bavan
    BAVAN_MADE = 3  # all 13 tricks after both voted Bavan
    BAVAN_FAILED = 4  # the opponents took a trick during Bavan
    TROP_FAILED = 5  # Trop to the end broke: an opponent's trick, or a winner of the team without trumps

    @property
    def word(self) -> str:
        """The lower-case name: ``ordinary``, ``kort``, ``at_kort``, ``bavan_made``, ``bavan_failed`` or
        ``trop_failed``."""
        return self.name.lower()


class MatchEnd(StrEnum):
    """How a match ended: there is one way, a team reaching the target (no draws, no other cut-off)."""

    TARGET_REACHED = "target_reached"


# How many match wins each result gives (to the team named in the rulings' results table).
RESULT_WINS = {
    Result.ORDINARY: 1,
    Result.KORT: 5,
    Result.AT_KORT: 7,
    Result.BAVAN_MADE: 7,
    Result.BAVAN_FAILED: 1,
    Result.TROP_FAILED: 1,
}

# ----- options --------------------------------------------------------------------------------

MAX_TARGET_WINS = 100


@dataclass(frozen=True)
class Options:
    """A match's options: its length in wins (7 in Practice and rooms, 3 in ranked play) and the first holder."""

    target_wins: int = 7
    first_holder: int = 0

    def __post_init__(self) -> None:
        target = self.target_wins
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TARGET_WINS:
            raise GameInputError(f"option target_wins is a number of wins 1 to {MAX_TARGET_WINS} "
                                 f"(7 in Practice and rooms, 3 in ranked play), not {target!r}")
        holder = self.first_holder
        if isinstance(holder, bool) or not isinstance(holder, int) or not 0 <= holder < NUM_SEATS:
            raise GameInputError(f"option first_holder is a seat 0 to {NUM_SEATS - 1}, not {holder!r}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (JSON-serialisable)."""
        return asdict(self)


OptionsLike = Options | Mapping[str, Any] | None
"""How callers may give options: ``Options``, a mapping of names to values, or None for the defaults."""
OPTION_NAMES: tuple[str, ...] = tuple(option.name for option in fields(Options))
DEFAULT_OPTIONS = Options()


def parse_options(settings: Iterable[str] | Mapping[str, Any] = ()) -> Options:
    """Options from ``name=value`` strings or a mapping; unnamed options keep their defaults.

    A bad name or value raises a one-line ``GameInputError`` that says what is allowed.
    """
    return parse_named_options(settings, Options, _option_value, "Kort's options")


def _option_value(name: str, value: Any) -> Any:
    """A number as an int; anything else (a bool included) as given, for ``Options`` to refuse with the range."""
    if isinstance(value, bool):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


# ----- actions as text --------------------------------------------------------------------------

_NAMED_ACTIONS = {
    TRUMP_13: "trump 13",
    SAR: "sar",
    TROP: "trop",
    TROP_TO_END: "trop to the end",
    REDEAL: "redeal",
    BAVAN_YES: "bavan yes",
    BAVAN_NO: "bavan no",
}


def action_text(action: int) -> str:
    """A readable name for an action id: a card, ``trump H``, ``trump 13``, ``sar``, ``trop``, ``redeal``, …"""
    if 0 <= action < TRUMP_BASE:
        return card_text(action)
    if TRUMP_BASE <= action < TRUMP_13:
        return "trump " + SUIT_LETTERS[action - TRUMP_BASE]
    if action in _NAMED_ACTIONS:
        return _NAMED_ACTIONS[action]
    raise ValueError(f"action id {action} is out of range: ids are 0 to {NUM_ACTIONS - 1}")


def parse_action(text: str | int) -> int:
    """The action id of ``7C``, ``trump H``, ``trump 13``, ``sar``, ``trop``, ``trop to the end``, ``redeal``,
    ``bavan yes`` or ``bavan no`` (or a bare id)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if not 0 <= text < NUM_ACTIONS:
            raise GameInputError(f"action id {text} is out of range: ids are 0 to {NUM_ACTIONS - 1}")
        return text
    cleaned = " ".join(str(text).strip().lower().split())
    for action, name in _NAMED_ACTIONS.items():
        if cleaned == name:
            return action
    if cleaned.startswith("trump "):
        return TRUMP_BASE + suit_named(text, cleaned, "trump ", "write trump C, D, H, S or 13")
    return parse_card(cleaned)


def suit_text(suit: int | None) -> str:
    """``C``, ``D``, ``H`` or ``S`` (``-`` while trumps are not known)."""
    return "-" if suit is None else SUIT_LETTERS[suit]
