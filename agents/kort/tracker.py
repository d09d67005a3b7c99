"""What each seat cannot hold in Kort, deduced from one seat's observations; and ``tracker``, greedy with it.

``KortTracker`` reads the public log its seat's observations carry, plus the seat's own cards, and keeps for every
other seat what it cannot hold now and how many trumps it may hold, starting again at every deal (a round's or a
redeal's). ``tracker`` plays as ``greedy`` does, except that it uses the deductions to take tricks with *masters*
(``KortTracker.may_top``: cards no opponent still to play may top). It never overtakes a partner.

``compiled_tracker.py`` is the compiled twin of both, which the runner's compiled lineups play; a test holds the
two equal at every decision. Every deduction and choice is in docs/internals.md, ``agents.kort.tracker``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.kort.greedy import cheapest, greedy_choice, side_lead, trumps_of
from agents.kort.view import Table
from agents.log_reader import LogReader
from sim.cards import FULL_DECK, SUIT_MASK, CardSet, bit, higher_in_suit, suit_of, to_set
from sim.kort.encoding import (
    CARDS_EACH,
    NUM_SEATS,
    SAR_BELOW_TRUMPS,
    TROP_TO_END_TRUMPS,
    TRUMP_BASE,
    LeadKind,
    LeadState,
    Phase,
    TrumpLead,
)
from sim.kort.rules import card_beats, team_of

GAME = "kort"
FEWER_THAN_3 = TrumpLead.SAR_FEWER_THAN_3.word
SAR_5_TRICKS = TrumpLead.SAR_5_TRICKS.word
ALL_TRUMPS = TrumpLead.ALL_TRUMPS.word
# the fewest trumps a leader held (the led card included) when it declared each of these
TRUMPS_AT_LEAST = {"sar": SAR_BELOW_TRUMPS, "trop": SAR_BELOW_TRUMPS, "trop_to_end": TROP_TO_END_TRUMPS,
                   SAR_5_TRICKS: SAR_BELOW_TRUMPS}


class KortTracker(LogReader):
    """Follows one match from one seat's observations and keeps what every seat cannot hold in this deal.

    Attributes a caller may read (card sets are ints, bit ``id`` per card): ``holder``,
    ``trump`` (None until known), ``played`` (cards played this deal), ``voids`` (per seat,
    the cards of the suits it showed it lacks), ``known`` (per seat, cards everyone knows
    it holds: the 13th card), ``trump_low`` and ``trump_high`` (per seat, bounds on the
    trumps it holds now).
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._read = 0
        self._own: CardSet = 0
        self._start_deal(0)

    def _start_deal(self, holder: int) -> None:
        self.holder = holder
        self.trump: int | None = None
        self.played: CardSet = 0
        self.voids: list[CardSet] = [0] * NUM_SEATS
        self.known: list[CardSet] = [0] * NUM_SEATS
        self.trump_low = [0] * NUM_SEATS
        self.trump_high = [CARDS_EACH] * NUM_SEATS
        self._states = [LeadState(), LeadState()]
        self._trick: list[tuple[int, int]] = []

    def update(self, observation: Any) -> None:
        """Read the log events of ``observation`` not read yet, and the seat's own cards now."""
        self.read_log(observation.log)
        self._own = to_set(observation.hand)

    def _restart(self) -> None:
        """A new match: start over."""
        self.__init__(self.seat)

    def _apply_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "deal":
            self._start_deal(event["holder"])
        elif kind == "trump":
            self.trump = event["suit"]
        elif kind == "thirteenth":
            self.known[event["seat"]] |= bit(event["card"])
        elif kind == "play":
            self._play(event["seat"], event["card"])
        elif kind == "declare":
            self._declared(event["seat"], event["declaration"])
        elif kind == "trick":
            self._trick = []
            self._states = [LeadState.from_text(text) for text in event["states"]]

    def _play(self, seat: int, card: int) -> None:
        trump_suit = SUIT_MASK[self.trump]
        if self._trick:
            led = suit_of(self._trick[0][1])
            if suit_of(card) != led:
                self._void(seat, SUIT_MASK[led])
        elif self._states[team_of(seat)].kind == LeadKind.TROP and suit_of(card) != self.trump:
            self._void(seat, trump_suit)
        if suit_of(card) == self.trump:
            self.trump_low[seat] = max(0, self.trump_low[seat] - 1)
            self.trump_high[seat] = max(0, self.trump_high[seat] - 1)
        self.played |= bit(card)
        self.known[seat] &= ~bit(card)
        self._trick.append((seat, card))

    def _declared(self, seat: int, word: str) -> None:
        """A fresh trump lead's declaration (the led card already played) bounds the leader's trumps."""
        if word == ALL_TRUMPS:
            self._void(seat, FULL_DECK & ~SUIT_MASK[self.trump])
        elif word == FEWER_THAN_3:
            self.trump_high[seat] = min(self.trump_high[seat], SAR_BELOW_TRUMPS - 2)
        else:
            self.trump_low[seat] = max(self.trump_low[seat], TRUMPS_AT_LEAST[word] - 1)

    def _void(self, seat: int, cards: CardSet) -> None:
        self.voids[seat] |= cards
        if self.trump is not None and cards & SUIT_MASK[self.trump]:
            self.trump_high[seat] = 0

    def led_suit(self) -> int:
        """The suit led to the trick on the table (-1 before its lead)."""
        return suit_of(self._trick[0][1]) if self._trick else -1

    # ----- the deductions -------------------------------------------------------------------

    def cannot_hold(self, seat: int) -> CardSet:
        """The cards ``seat`` surely does not hold now (for the observing seat: every card but its own)."""
        if seat == self.seat:
            return FULL_DECK & ~self._own
        elsewhere = 0
        for other in range(NUM_SEATS):
            if other != seat:
                elsewhere |= self.known[other]
        return self.played | self._own | self.voids[seat] | elsewhere

    def possible(self, seat: int) -> CardSet:
        """The cards ``seat`` may hold now."""
        return FULL_DECK & ~self.cannot_hold(seat)

    def trump_bounds(self, seat: int) -> tuple[int, int]:
        """The fewest and most trumps ``seat`` may hold now (0 and 13 while trumps are unknown)."""
        return self.trump_low[seat], self.trump_high[seat]

    def may_hold_trump(self, seat: int) -> bool:
        """Whether ``seat`` may hold a trump now."""
        return self.trump is not None and self.trump_high[seat] > 0 and bool(self.possible(seat) & SUIT_MASK[
            self.trump])

    def may_top(self, seat: int, card: int, led: int) -> bool:
        """Whether ``seat``, still to play to a trick whose suit led is ``led``, may top ``card`` as far as it showed.

        It may when ``card`` follows the suit led and the seat may hold a higher card
        of it, or when the seat has shown it lacks the suit led and may hold a trump
        that beats ``card`` (any trump over a side card, a higher one over a trump).
        A card no opponent may top is a *master*: it takes the trick unless an
        opponent ruffs a suit it has not yet shown it lacks.
        """
        higher = self.possible(seat) & higher_in_suit(card)
        if suit_of(card) == led and higher:
            return True
        if not self.voids[seat] & SUIT_MASK[led]:
            return False
        if suit_of(card) == self.trump:
            return bool(higher) and self.trump_high[seat] > 0
        return self.may_hold_trump(seat)


def tracker_choice(tracker: KortTracker, table: Table, legal: Sequence[int]) -> int:
    """Tracker's choice: greedy's, except that it takes tricks with its cheapest masters (module docstring)."""
    choice = greedy_choice(table, legal)
    if table.phase not in (Phase.LEAD, Phase.FOLLOW) or len(legal) == 1 or choice >= TRUMP_BASE:
        return choice
    trump = table.trump
    cards = [action for action in legal if action < TRUMP_BASE]
    opponents = [seat for seat in range(NUM_SEATS) if team_of(seat) != table.team]
    opponents_after = [seat for seat in table.seats_after() if team_of(seat) != table.team]

    def master(card: int, led: int) -> bool:
        return not any(tracker.may_top(seat, card, led) for seat in opponents_after)

    if table.phase == Phase.LEAD:
        side = [card for card in cards if suit_of(card) != trump]
        drawn = not any(tracker.may_hold_trump(seat) for seat in opponents)
        if suit_of(choice) == trump and not (drawn and side and table.own_state.kind == LeadKind.FREE):
            return choice
        masters = [card for card in side if master(card, suit_of(card))]
        if masters:
            return cheapest(masters, trump)
        return side_lead(table.hand, side, len(trumps_of(table.hand, trump))) if suit_of(choice) == trump else choice
    seat, best = table.winning_play()
    if seat == table.partner:
        return choice
    led = suit_of(table.trick[0][1])
    masters = [card for card in cards if card_beats(card, best, trump) and master(card, led)]
    return cheapest(masters, trump) if masters else choice


class TrackerAgent:
    """Greedy with card tracking (see the module docstring); deterministic, so its seed is unused."""

    PARAMETERS: dict[str, type] = {}

    def __init__(self, seed: int = 0) -> None:
        self.name = "tracker"
        self.seat = 0
        self.tracker = KortTracker(0)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new match: forget everything the tracker knew."""
        self.seat = seat
        self.tracker = KortTracker(seat)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Update the tracker from the observation, then choose."""
        self.tracker.update(observation)
        return tracker_choice(self.tracker, Table.from_observation(observation), legal)


register("tracker", game=GAME)(TrackerAgent)
