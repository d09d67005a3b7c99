"""What each seat cannot hold in Knockout Whist, deduced from one seat's observations; and ``tracker``, greedy with it.

``KnockoutWhistTracker`` reads the public log a seat's observations carry, plus the seat's own cards, and keeps
for every other seat the cards it cannot hold now (played, held or thrown away by the observer, or of a suit it
failed to follow), starting again at each deal. ``might_beat`` and ``must_hold_suit`` read those sets.

``tracker`` plays as ``greedy`` does, except where the deductions settle a trick. ``compiled_tracker.py`` is the
same tracker and choice in numba, for games played inside compiled code; the tests hold the two equal at every
decision. The deductions and choices in full are in docs/internals.md, ``agents.knockout_whist.tracker``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import register
from agents.knockout_whist.greedy import best_card, cheapest, greedy_action
from agents.log_reader import LogReader
from sim.cards import FULL_DECK, SUIT_MASK, CardSet, bit, higher_in_suit, popcount, suit_of, to_set
from sim.knockout_whist.encoding import KNOCK, NO_TRUMPS, Phase, Status
from sim.knockout_whist.rules import card_beats, led_suit_of

GAME = "knockout-whist"


class KnockoutWhistTracker(LogReader):
    """Follows one game from one seat's observations and keeps what every seat cannot hold.

    Attributes a caller may read (card sets are ints, bit ``id`` per card):
    ``hand_no``, ``trumps``, ``turned`` (hand 1's turned card, as a set), ``played``
    (cards played this hand), ``voids`` (per seat, a set of the suits' cards it
    showed it lacks this hand), ``shown`` (per seat, the cards it played this hand),
    ``dogs`` (the seats on their dog's life this hand).
    """

    def __init__(self, n_seats: int, seat: int) -> None:
        self.n_seats = n_seats
        self.seat = seat
        self._read = 0
        self._start_hand(0, [])

    def _start_hand(self, hand_no: int, dogs: Sequence[int]) -> None:
        self.hand_no = hand_no
        self.trumps: int | None = None
        self.turned: CardSet = 0
        self.played: CardSet = 0
        self.voids: list[CardSet] = [0] * self.n_seats
        self.shown: list[CardSet] = [0] * self.n_seats
        self.dogs = set(dogs)
        self._trick: list[tuple[int, int]] = []
        self._own: CardSet = 0
        self._thrown: CardSet = 0

    def update(self, observation: Any) -> None:
        """Read the log events of ``observation`` not read yet, and the seat's own cards now."""
        self.read_log(observation.log)
        self._own = to_set(observation.hand)
        self._thrown = to_set(observation.thrown)

    def _restart(self) -> None:
        """A new game: start over."""
        self.__init__(self.n_seats, self.seat)

    def _apply_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "hand":
            self._start_hand(event["hand"], event["dogs"])
        elif kind == "turned":
            self.turned = bit(event["card"])
        elif kind == "trumps":
            self.trumps = event["suit"]
        elif kind == "play":
            self._play(event["seat"], event["card"])
        elif kind == "knock":
            self._trick.append((event["seat"], KNOCK))
        elif kind == "trick":
            self._trick = []

    def _play(self, seat: int, card: int) -> None:
        led = led_suit_of(self._trick)
        if led is not None and suit_of(card) != led and seat not in self.dogs:
            self.voids[seat] |= SUIT_MASK[led]
        self.played |= bit(card)
        self.shown[seat] |= bit(card)
        self._trick.append((seat, card))

    # ----- the deductions -------------------------------------------------------------------

    def cannot_hold(self, seat: int) -> CardSet:
        """The cards ``seat`` surely does not hold now (for the observing seat: every card but its own)."""
        if seat == self.seat:
            return FULL_DECK & ~self._own
        return self.played | self.turned | self._own | self._thrown | self.voids[seat]

    def possible(self, seat: int) -> CardSet:
        """The cards ``seat`` may hold now."""
        return FULL_DECK & ~self.cannot_hold(seat)

    def must_hold_suit(self, seat: int, suit: int, card_count: int) -> bool:
        """Whether ``seat``, holding ``card_count`` cards, must hold a ``suit`` card (too few possible outside it)."""
        return card_count > popcount(self.possible(seat) & ~SUIT_MASK[suit])

    def might_beat(self, seat: int, card: int, led: int, card_count: int) -> bool:
        """Whether ``seat`` may still play a card beating ``card``, the best of a trick whose suit led is ``led``.

        It may beat with a higher card of ``card``'s suit that it may hold (when
        that suit is not the led suit it must first be free of the led suit), or
        with a trump when ``card`` is no trump and it may be void in the led suit.
        A dog may play its card whatever the suit led.
        """
        possible = self.possible(seat)
        trumps = NO_TRUMPS if self.trumps is None else self.trumps
        may_discard = seat in self.dogs or not self.must_hold_suit(seat, led, card_count)
        higher = possible & higher_in_suit(card)
        if higher and (suit_of(card) == led or may_discard):
            return True
        if trumps == NO_TRUMPS or suit_of(card) == trumps:
            return False
        return bool(possible & SUIT_MASK[trumps]) and may_discard


def tracker_action(tracker: KnockoutWhistTracker, observation: Any, legal: Sequence[int]) -> int:
    """Tracker's choice: greedy's, unless the deductions show a trick it is sure to win (module docstring)."""
    if observation.phase != Phase.PLAY or len(legal) == 1:
        return greedy_action(observation, legal)
    trumps = observation.trumps
    cards = [action for action in legal if action < KNOCK]
    still_to_play = observation.trick_seats[len(observation.trick) + 1:]  # seats after this one in the trick
    best = best_card(observation.trick, trumps)
    counts = observation.card_counts

    def unbeatable(card: int, led: int, seats: Sequence[int]) -> bool:
        return not any(tracker.might_beat(seat, card, led, counts[seat]) for seat in seats)

    if observation.status[observation.seat] == Status.DOG:
        card = cards[0]
        led = suit_of(card) if best is None else led_suit_of(observation.trick)
        wins_now = best is None or card_beats(card, best, trumps)
        return card if wins_now and unbeatable(card, led, still_to_play) else KNOCK
    if best is None:
        sure = [card for card in cards if unbeatable(card, suit_of(card), still_to_play)]
        return cheapest(sure, trumps) if sure else greedy_action(observation, legal)
    led = led_suit_of(observation.trick)
    sure = [card for card in cards if card_beats(card, best, trumps) and unbeatable(card, led, still_to_play)]
    return cheapest(sure, trumps) if sure else greedy_action(observation, legal)


class TrackerAgent:
    """Greedy with card tracking (see the module docstring); deterministic, so its seed is unused."""

    PARAMETERS: dict[str, type] = {}

    def __init__(self, seed: int = 0) -> None:
        self.name = "tracker"
        self.seat = 0
        self.tracker = KnockoutWhistTracker(2, 0)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new game: forget everything the tracker knew."""
        self.seat = seat
        self.tracker = KnockoutWhistTracker(n_seats, seat)

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """Update the tracker from the observation, then choose."""
        self.tracker.update(observation)
        return tracker_action(self.tracker, observation, legal)


register("tracker", game=GAME)(TrackerAgent)
