"""The reference engine for one hand of Knorri: plain Python, written to be read against the rules.

A hand is built from a deal (a permutation of the 52 card ids), plays phase 1
by itself up to each real choice, then hands every phase-2 decision to the seat
to move. It keeps the public event log, detects a repeated position exactly and
stops at the cap, all as ``seeds/knorri.md`` describes, under the table's cut-off
options ``cap`` and ``repeat`` (the rulings' "Cut-off options"). A hand cut off by
a repeat also reports the anatomy of its loop (``cycle_start`` .. ``cycle_seats``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

import numpy as np

from sim.cards import FULL_DECK, NUM_CARDS, CardSet, bit, card_list, cards_text, popcount, to_set
from sim.errors import GameInputError, check_deck
from sim.knorri import rules
from sim.knorri.encoding import (
    DEFAULT_REPEAT,
    MAX_CAP,
    MAX_PHASE2_ACTIONS,
    MAX_REPEAT,
    MAX_SEATS,
    MIN_SEATS,
    NUM_ACTIONS,
    PICK_UP,
    TABLE_SIZE,
    TWO_OF_CLUBS,
    run_cards,
)
from sim.knorri.observation import KnorriObservation
from sim.reference_base import DeckSource, ReferenceGame
from sim.rng import SplitMix64

ACE_OF_CLUBS = 12
Position = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int, int, bool]


class EndReason(StrEnum):
    """Why a hand ended: a seat was left holding cards, a position repeated, or the cap was reached."""

    OUT = "out"
    REPEAT = "repeat"
    CAP = "cap"


def check_cut_offs(cap: int, repeat: int) -> tuple[int, int]:
    """The cut-off options ``(cap, repeat)`` if the rulings allow them; otherwise one line naming the range."""
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or not 1 <= cap <= MAX_CAP:
        raise GameInputError(f"cap must be a whole number of phase-2 actions from 1 to {MAX_CAP:,}, not {cap!r}")
    if (isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer))
            or not (repeat == 0 or 2 <= repeat <= MAX_REPEAT)):
        raise GameInputError(f"repeat must be 0 (no repeat check) or a count from 2 to {MAX_REPEAT}, not {repeat!r}")
    return int(cap), int(repeat)


def check_continuation(cap: int, repeat: int, continued_cap: int, continued_repeat: int) -> tuple[int, int]:
    """The rules ``(cap, repeat)`` a hand cut off under ``cap`` and ``repeat`` plays on under, if they may continue
    it; otherwise one line saying what a continuation may be.

    A continuation turns the repeat check off and keeps or raises the cap: under those rules the same
    decisions reach the cut-off position without being stopped earlier, so the hand played on is the
    very hand that was cut off, and needs no positions remembered from before the cut.
    """
    continued_cap, continued_repeat = check_cut_offs(continued_cap, continued_repeat)
    if continued_repeat != 0 or continued_cap < cap:
        raise GameInputError(f"a continuation past the cut-off plays on with repeat=0 and a cap of at least the "
                             f"table's ({cap:,}), not repeat={continued_repeat} cap={continued_cap:,}")
    return continued_cap, continued_repeat


def check_seats(n_seats: int) -> int:
    """The seat count, if Knorri allows it (3 to 6); otherwise a clear error."""
    if not isinstance(n_seats, (int, np.integer)) or not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise GameInputError(f"Knorri is for {MIN_SEATS} to {MAX_SEATS} seats, not {n_seats}")
    return int(n_seats)


class KnorriHand(ReferenceGame):
    """One hand of Knorri, from the first turned card to the loser."""

    UNIT = "hand"
    NUM_ACTIONS = NUM_ACTIONS
    RENDER = "sim.knorri.render"
    COPIED = ("hands", "scores", "log", "decisions")

    def __init__(
        self,
        n_seats: int,
        deck: Sequence[int],
        first_seat: int = 0,
        redeal: DeckSource | None = None,
        *,
        cap: int = MAX_PHASE2_ACTIONS,
        repeat: int = DEFAULT_REPEAT,
    ) -> None:
        """Deal ``deck`` for ``n_seats`` with ``first_seat`` turning first, under the cut-off options.

        ``redeal`` gives the next deck when nobody captures in phase 1; by default
        it is a splitmix64 stream seeded from the deck, so a hand is a function of
        its arguments. ``cap`` and ``repeat`` are the table's cut-off rules (the
        rulings' "Cut-off options"; the defaults are the rules as written).
        """
        self.n_seats = check_seats(n_seats)
        self.cap, self.repeat = check_cut_offs(cap, repeat)
        if not isinstance(first_seat, (int, np.integer)) or not 0 <= first_seat < self.n_seats:
            raise GameInputError(f"the first seat must be 0 to {self.n_seats - 1}, not {first_seat}")
        self.first_seat = int(first_seat)
        deck = check_deck(deck)
        if redeal is None:
            redeal = SplitMix64(_deck_fingerprint(deck)).shuffled_deck
        self._redeal_source = redeal
        self.redeals = 0
        self.log: list[dict[str, Any]] = []
        self.decisions: list[int] = []
        self.phase2_actions = 0
        self.tricks_completed = 0
        self.scores = [0] * self.n_seats
        self.end_reason: EndReason | None = None
        self.loser: int | None = None
        self._no_cycle()
        self._deal(deck)

    @classmethod
    def from_seed(cls, n_seats: int, seed: int, first_seat: int = 0, *, cap: int = MAX_PHASE2_ACTIONS,
                  repeat: int = DEFAULT_REPEAT) -> KnorriHand:
        """The hand the conformance protocol deals for ``seed`` (redeals from the same stream)."""
        rng = SplitMix64(seed)
        return cls(n_seats, rng.shuffled_deck(), first_seat, redeal=rng.shuffled_deck, cap=cap, repeat=repeat)

    @classmethod
    def from_position(
        cls,
        hands: Sequence[Iterable[int]],
        to_move: int,
        trick: Sequence[Sequence[int]] = (),
        plays_needed: int | None = None,
        opening: bool = False,
        scores: Sequence[int] | None = None,
        *,
        cap: int = MAX_PHASE2_ACTIONS,
        repeat: int = DEFAULT_REPEAT,
    ) -> KnorriHand:
        """A hand that starts in phase 2 at a given position, so a rule can be shown without a whole deal.

        ``hands[s]`` are seat s's cards (empty: the seat is out); ``trick`` lists the
        plays still in the trick, oldest first, each play's cards lowest first;
        ``plays_needed`` is what the trick needs (default: the seats holding cards);
        ``opening`` says the 2C holder's opening play is still to be made; ``scores``
        are the points already earned; ``cap`` and ``repeat`` the cut-off options,
        counted from this position as phase 2's start. Cards in no hand and not in the trick count
        as set aside in earlier tricks. The position is checked against the rules
        and refused with a one-line ``GameInputError`` if it could not occur. The
        log opens with the whole position, hands included: piles are public.
        """
        n_seats = check_seats(len(hands))
        hand_sets = [_position_cards(cards, f"seat {seat}'s hand") for seat, cards in enumerate(hands)]
        plays = [[int(c) for c in play] for play in trick]
        _check_position(hand_sets, to_move, plays, plays_needed, opening)
        holding = sum(1 for cards in hand_sets if cards)
        scores = [0] * n_seats if scores is None else [int(s) for s in scores]
        if len(scores) != n_seats:
            raise GameInputError(f"a {n_seats}-seat position needs {n_seats} scores, not {len(scores)}")
        hand = object.__new__(cls)
        hand.n_seats, hand.first_seat = n_seats, int(to_move)
        hand.cap, hand.repeat = check_cut_offs(cap, repeat)
        hand._redeal_source = None
        hand.redeals, hand.decisions, hand.phase2_actions, hand.tricks_completed = 0, [], 0, 0
        hand.scores, hand.end_reason, hand.loser = scores, None, None
        hand._no_cycle()
        hand.deck, hand._phase, hand.table, hand._stock, hand._turn = [], 2, 0, [], 0
        hand._turned, hand._choice_candidates, hand._last_capturer = -1, 0, None
        hand.hands, hand.trick, hand.opening = hand_sets, plays, bool(opening)
        hand.trick_needed = (plays_needed or holding) if plays else 0
        in_play = to_set(c for play in plays for c in play)
        for cards in hand_sets:
            in_play |= cards
        hand.set_aside = FULL_DECK & ~in_play
        hand.piles_after_phase1 = hand.card_counts()
        hand._history, hand._times, hand._steps = {}, {}, []
        hand._to_move = int(to_move)
        hand.log = [{
            "kind": "phase2", "card_counts": hand.card_counts(), "from_position": True,
            "hands": [card_list(cards) for cards in hand_sets], "trick": [list(p) for p in plays],
            "plays_needed": hand.plays_needed(), "to_move": hand._to_move, "opening": hand.opening,
        }]
        hand._remember_position()
        return hand

    # ----- what anyone may ask -----------------------------------------------------------

    @property
    def phase(self) -> int:
        """1 while the stock is being turned, 2 while the cards are played out (2 also once ended)."""
        return self._phase

    def legal_actions(self) -> list[int]:
        """The legal action ids for the seat to move, ascending (empty once the hand has ended)."""
        if self.done:
            return []
        if self._phase == 1:
            return card_list(self._choice_candidates)
        return rules.phase2_legal(self.hands[self._to_move], self.top_card, self.opening)

    def allows(self, action: object) -> bool:
        """Whether ``apply(action)`` would take it, by the rules' own test rather than the listed legal ids."""
        if type(action) is not int or self.done:  # other types compare as the list's items would
            return super().allows(action)
        if self._phase == 1:
            return 0 <= action < NUM_CARDS and bool(self._choice_candidates >> action & 1)
        return rules.phase2_allows(self.hands[self._to_move], self.top_card, self.opening, action)

    @property
    def top_card(self) -> int | None:
        """The last card of the newest play in the trick, or None when the trick is empty."""
        return self.trick[-1][-1] if self.trick else None

    @property
    def seats_holding(self) -> int:
        """How many seats hold cards (in phase 1 every seat counts)."""
        return self.n_seats - self.hands.count(0) if self._phase == 2 else self.n_seats

    def plays_needed(self) -> int:
        """The plays the current trick needs; for an empty trick, what the next lead will need."""
        return self.trick_needed if self.trick else rules.plays_needed(self.seats_holding)

    def observation(self, seat: int) -> KnorriObservation:
        """What ``seat`` may know: its own cards, the table, the trick, counts, scores and the public log."""
        return KnorriObservation(
            **self.seat_view(seat),
            n_seats=self.n_seats,
            phase=self._phase,
            table=tuple(card_list(self.table)),
            turned=self._turned if self._choice_candidates else None,
            stock_left=len(self._stock) - self._turn,
            trick=tuple(tuple(play) for play in self.trick),
            plays_needed=self.plays_needed(),
            opening=self.opening,
            out=tuple(self._phase == 2 and not hand for hand in self.hands),
            phase2_actions=self.phase2_actions,
            cap=self.cap,
            repeat=self.repeat,
        )

    def _finish_clone(self, twin: KnorriHand) -> None:
        twin.trick = [list(play) for play in self.trick]
        if isinstance(getattr(self._redeal_source, "__self__", None), SplitMix64):
            twin._redeal_source = copy.deepcopy(self._redeal_source)  # the twin redeals from its own stream
        twin._history = dict(self._history)
        twin._times = dict(self._times)
        twin._steps = list(self._steps)

    # ----- the one verb (``apply``, checked by ReferenceGame) ------------------------------

    def _take(self, action: int) -> None:
        if self._phase == 1:
            self._capture(self._to_move, self._turned, action, chosen=True)
            self._choice_candidates = 0
            self._run_phase1()
        else:
            self._phase2_action(action)

    # ----- phase 1 -----------------------------------------------------------------------

    def _deal(self, deck: list[int]) -> None:
        self.deck = deck
        self._phase = 1
        self.table: CardSet = to_set(deck[:TABLE_SIZE])
        self._stock = deck[TABLE_SIZE:]
        self._turn = 0
        self._turned = -1
        self._choice_candidates: CardSet = 0
        self._last_capturer: int | None = None
        self.hands: list[CardSet] = [0] * self.n_seats
        self.trick: list[list[int]] = []
        self.trick_needed = 0
        self.opening = False
        self.set_aside: CardSet = 0  # the cards of completed tricks
        # Since the last irreversible event: position -> the phase-2 action count at its latest occurrence, and,
        # for a position reached more than once (only when repeat > 2), how many times it has been reached.
        self._history: dict[Position, int] = {}
        self._times: dict[Position, int] = {}
        # (legal actions, seat) of each phase-2 action since the last irreversible event: the loop anatomy's input
        self._steps: list[tuple[int, int]] = []
        self._to_move = self.first_seat
        self.log.append({"kind": "deal", "redeal": self.redeals, "table": card_list(self.table)})
        self._run_phase1()

    def _run_phase1(self) -> None:
        """Turn stock cards and make every forced capture, until a seat must choose or the stock is out."""
        while self._turn < len(self._stock):
            seat = (self.first_seat + self._turn) % self.n_seats
            turned = self._stock[self._turn]
            self._turn += 1
            self.log.append({"kind": "turn", "seat": seat, "card": turned})
            candidates = rules.capture_candidates(turned, self.table)
            if popcount(candidates) == 1:
                self._capture(seat, turned, candidates.bit_length() - 1, chosen=False)
            elif candidates:
                self._to_move, self._turned, self._choice_candidates = seat, turned, candidates
                return
            else:
                self.table |= bit(turned)
        self._end_phase1()

    def _capture(self, seat: int, turned: int, taken: int, chosen: bool) -> None:
        self.table &= ~bit(taken)
        self.hands[seat] |= bit(turned) | bit(taken)
        self._last_capturer = seat
        self.log.append({"kind": "capture", "seat": seat, "card": turned, "took": taken, "chosen": chosen})

    def _end_phase1(self) -> None:
        if self._last_capturer is None:
            self.redeals += 1
            self.log.append({"kind": "redeal", "count": self.redeals})
            self._deal(check_deck(self._redeal_source()))
            return
        if self.table:
            self.log.append({"kind": "sweep", "seat": self._last_capturer, "cards": card_list(self.table)})
            self.hands[self._last_capturer] |= self.table
            self.table = 0
        self._start_phase2()

    # ----- phase 2 -----------------------------------------------------------------------

    def _start_phase2(self) -> None:
        self._phase = 2
        holding = self.seats_holding
        self.piles_after_phase1 = self.card_counts()
        self.log.append({"kind": "phase2", "card_counts": self.card_counts()})
        for seat, hand in enumerate(self.hands):
            if not hand:
                self._go_out(seat, others_holding=holding)
        if holding == 1:
            self._finish(EndReason.OUT, rules.next_seat_holding(self.hands, 0))
            return
        self._to_move = next(s for s, hand in enumerate(self.hands) if hand & bit(TWO_OF_CLUBS))
        self.opening = True
        self._remember_position()

    def _phase2_action(self, action: int) -> None:
        seat = self._to_move
        if self.repeat:  # before the action: an irreversible one clears this with the history
            self._steps.append((rules.phase2_legal_count(self.hands[seat], self.top_card, self.opening), seat))
        if action == PICK_UP:
            self._pick_up(seat)
        else:
            self._play(seat, run_cards(action) if self.opening else [action])
        self.phase2_actions += 1
        if not self.done:
            self._apply_cut_offs()

    def _apply_cut_offs(self) -> None:
        """After a phase-2 action: end the hand by a repeat or the cap if the table's rules say so, else remember the
        position."""
        if self.repeat:
            position = self._position()
            latest = self._history.get(position)
            times = 0 if latest is None else self._times.get(position, 1)
            if rules.repeat_ends_hand(times + 1, self.repeat):
                self._measure_cycle(latest)
                self._cut_off(EndReason.REPEAT)
                return
        if self.phase2_actions >= self.cap:
            self._cut_off(EndReason.CAP)
        elif self.repeat:
            self._history[position] = self.phase2_actions
            if times:
                self._times[position] = times + 1

    def continue_past_cutoff(self, cap: int, repeat: int = 0) -> None:
        """Play on, under the rules ``cap`` and ``repeat``, a hand that its table's rules cut off.

        The hand stays at the position where it was cut, the seat that was to move moves next, and
        every seat still holding cards holds its points again (none); the observations and any look-ahead
        from here on read the new rules. ``check_continuation`` says which rules may continue a hand.
        The log gets a ``continue`` event after the cut-off's ``end``.
        """
        if self.end_reason not in (EndReason.REPEAT, EndReason.CAP):
            raise GameInputError(f"only a hand cut off by repeat or cap can be continued, not one that ended by "
                                 f"{self.end_reason}")
        cap, repeat = check_continuation(self.cap, self.repeat, cap, repeat)
        reason = self.end_reason
        for seat, hand in enumerate(self.hands):
            if hand:
                self.scores[seat] = 0
        self.end_reason, self.loser = None, None
        self._no_cycle()
        self.cap, self.repeat = cap, repeat
        self.log.append({"kind": "continue", "reason": reason.value, "cap": cap, "repeat": repeat})
        self._apply_cut_offs()

    def _measure_cycle(self, cycle_start: int) -> None:
        """The anatomy of the loop just closed: the actions from the latest earlier occurrence up to the repeat."""
        self.cycle_start = cycle_start
        self.cycle_length = self.phase2_actions - cycle_start
        steps = self._steps[len(self._steps) - self.cycle_length:]
        self.cycle_choices = sum(1 for legal, _ in steps if legal > 1)
        self.cycle_log2_paths = sum(math.log2(legal) for legal, _ in steps)  # in action order, float64
        self.cycle_seats = sum({1 << seat for _, seat in steps})

    def _no_cycle(self) -> None:
        self.cycle_start: int | None = None
        self.cycle_length: int | None = None
        self.cycle_choices: int | None = None
        self.cycle_log2_paths: float | None = None
        self.cycle_seats: int | None = None

    def _forget_positions(self) -> None:
        """An irreversible event: no position before it can come back."""
        self._history.clear()
        self._times.clear()
        self._steps.clear()

    def _pick_up(self, seat: int) -> None:
        bottom_play = self.trick[0]
        card = bottom_play.pop(0)
        if not bottom_play:
            self.trick.pop(0)
        self.hands[seat] |= bit(card)
        self.log.append({"kind": "pickup", "seat": seat, "card": card})
        self._to_move = rules.next_seat_holding(self.hands, seat)

    def _play(self, seat: int, cards: list[int]) -> None:
        if not self.trick:
            self.trick_needed = rules.plays_needed(self.seats_holding)
        if self.opening:
            self.opening = False
            self._forget_positions()  # the opening can never be undone
        self.trick.append(cards)
        self.hands[seat] &= ~to_set(cards)
        self.log.append({"kind": "play", "seat": seat, "cards": list(cards)})
        if not self.hands[seat]:
            self._go_out(seat, others_holding=self.seats_holding)
        trick_complete = len(self.trick) >= self.trick_needed
        if trick_complete:
            self.tricks_completed += 1
            self.log.append({"kind": "trick", "seat": seat, "cards": [c for play in self.trick for c in play]})
            self.set_aside |= to_set(c for play in self.trick for c in play)
            self.trick = []
            self._forget_positions()  # cards set aside never come back
        if self.seats_holding == 1:
            self._finish(EndReason.OUT, rules.next_seat_holding(self.hands, seat))
        elif trick_complete and self.hands[seat]:
            self._to_move = seat
        else:
            self._to_move = rules.next_seat_holding(self.hands, seat)

    def _go_out(self, seat: int, others_holding: int) -> None:
        self.scores[seat] = rules.going_out_score(others_holding)
        self._forget_positions()  # a seat out never comes back
        self.log.append({"kind": "out", "seat": seat, "score": self.scores[seat]})

    def _cut_off(self, reason: EndReason) -> None:
        counts = self.card_counts()
        ranking = rules.cutoff_ranking(counts, self._to_move)
        k = len(ranking)
        for place, seat in enumerate(ranking[:-1]):
            self.scores[seat] = k - 1 - place
        self._finish(reason, ranking[-1], ranking=ranking)

    def _finish(self, reason: EndReason, loser: int, ranking: list[int] | None = None) -> None:
        self.scores[loser] = rules.loser_score(self.scores, loser)
        self.loser = loser
        self.end_reason = reason
        event: dict[str, Any] = {"kind": "end", "reason": reason.value, "loser": loser, "scores": list(self.scores)}
        if ranking is not None:
            event["ranking"] = ranking
            event["cards_held"] = [card_list(hand) for hand in self.hands]
        if self.cycle_length is not None:
            event["cycle_length"] = self.cycle_length
        self.log.append(event)

    def _position(self) -> Position:
        return (
            tuple(self.hands),
            tuple(tuple(play) for play in self.trick),
            self.plays_needed(),
            self._to_move,
            self.opening,
        )

    def _remember_position(self) -> None:
        if self.repeat:
            self._history[self._position()] = self.phase2_actions


def _position_cards(cards: Iterable[int], where: str) -> CardSet:
    ids = [int(c) for c in cards]
    if any(not 0 <= c < NUM_CARDS for c in ids) or len(set(ids)) != len(ids):
        raise GameInputError(f"{where} must list distinct card ids 0 to 51, not {ids}")
    return to_set(ids)


def _check_position(
    hands: list[CardSet], to_move: int, trick: list[list[int]], plays_needed: int | None, opening: bool
) -> None:
    """Refuse a phase-2 position that the rules could never reach, with a one-line reason."""
    n_seats = len(hands)
    trick_cards = [c for play in trick for c in play]
    _position_cards(trick_cards, "the trick")
    seen = to_set(trick_cards)
    for cards in hands:
        if seen & cards:
            raise GameInputError(f"{cards_text(card_list(seen & cards))}: a card can be in one place only")
        seen |= cards
    holding = sum(1 for cards in hands if cards)
    if holding < 2:
        raise GameInputError(f"a position needs at least two seats holding cards, not {holding}")
    if not isinstance(to_move, (int, np.integer)) or not 0 <= to_move < n_seats or not hands[to_move]:
        raise GameInputError(f"the seat to move must be a seat 0 to {n_seats - 1} holding cards, not {to_move}")
    if opening and (trick or not hands[to_move] & bit(TWO_OF_CLUBS)):
        raise GameInputError("the opening play is made into an empty trick by the holder of 2C")
    if not trick:
        if plays_needed is not None:
            raise GameInputError("plays_needed is given only for a trick in progress; an empty trick has none yet")
        return
    needed = holding if plays_needed is None else plays_needed
    if not len(trick) < needed <= n_seats:
        raise GameInputError(f"a trick of {len(trick)} plays in progress needs {len(trick) + 1} to {n_seats}, "
                             f"not {needed}")
    for index, play in enumerate(trick):
        if not play:
            raise GameInputError("every play in the trick holds at least one card")
        if len(play) > 1 and (index > 0 or any(c != play[0] + k or c > ACE_OF_CLUBS for k, c in enumerate(play))):
            raise GameInputError(f"only the first play may hold several cards, a run of clubs: not {cards_text(play)}")
        if index > 0 and not rules.beats(play[0], trick[index - 1][-1]):
            below = cards_text(trick[index - 1][-1:])
            raise GameInputError(f"{cards_text(play[:1])} does not beat {below}, the card before it")


def _deck_fingerprint(deck: Sequence[int]) -> int:
    value = 0
    for card in deck:
        value = (value * 53 + card + 1) & ((1 << 64) - 1)
    return value
