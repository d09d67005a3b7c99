"""Knorri's fixed integer encodings: the 65-id action space and the deal layout.

Both engines import these names; nothing else defines them.
"""

from __future__ import annotations

from sim.cards import CLUBS, DIAMONDS, HEARTS, SPADES, SUIT_MASK, CardSet, card_text

NUM_ACTIONS = 65
PICK_UP = 52
RUN_BASE = 53  # id 53 plays 2C 3C; id 53 + k plays 2C up to the (k+3)-rank club
LAST_RUN = 64
TWO_OF_CLUBS = 0
TABLE_SIZE = 9
STOCK_SIZE = 43
MIN_SEATS, MAX_SEATS = 3, 6
MAX_PHASE2_ACTIONS = 1500  # the default cap (option ``cap``)
DEFAULT_REPEAT = 2  # the default repeat rule: the first return to a position (option ``repeat``)
MAX_CAP = 1_000_000
MAX_REPEAT = 10

CLUB_MASK: CardSet = SUIT_MASK[CLUBS]
DIAMOND_MASK: CardSet = SUIT_MASK[DIAMONDS]
SPADES_AND_HEARTS: CardSet = SUIT_MASK[HEARTS] | SUIT_MASK[SPADES]


def run_action(length: int) -> int:
    """The action id of the opening run of ``length`` clubs from 2C (length 1 is id 0)."""
    if not 1 <= length <= 13:
        raise ValueError(f"an opening run has 1 to 13 clubs, not {length}")
    return TWO_OF_CLUBS if length == 1 else RUN_BASE + length - 2


def run_length(action: int) -> int:
    """How many clubs from 2C an opening action plays (id 0 is one card)."""
    return 1 if action == TWO_OF_CLUBS else action - RUN_BASE + 2


def run_cards(action: int) -> list[int]:
    """The cards an opening action plays, lowest first."""
    return list(range(run_length(action)))


def action_text(action: int) -> str:
    """A readable name for an action id."""
    if 0 <= action < PICK_UP:
        return card_text(action)
    if action == PICK_UP:
        return "pick up"
    if RUN_BASE <= action <= LAST_RUN:
        return "run 2C-" + card_text(run_length(action) - 1)
    raise ValueError(f"action id {action} is out of range: ids are 0 to {NUM_ACTIONS - 1}")
