"""The reference engine for a whole game of Knockout Whist: plain Python, written to be read against the rules.

A game deals hand 1 from a fresh permutation, then hands every decision (trump
choice, card exchange, play or knock) to the seat to move, and deals each later
hand itself, drawing a tie cut first when the most tricks were tied. It keeps a
public event log and the game's record (who went out when, dog's lives, how it
ended), all as ``seeds/knockout_whist.md`` describes.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sim.cards import bit, card_list, popcount, suit_of, to_set
from sim.errors import GameInputError, check_deck
from sim.knockout_whist import rules
from sim.knockout_whist.encoding import (
    END_EXCHANGE,
    FIRST_DEALER,
    KNOCK,
    LAST_HAND,
    NUM_ACTIONS,
    RAINBOW_HAND,
    EndReason,
    Options,
    OptionsLike,
    Phase,
    Status,
    cards_in_hand,
    parse_options,
    trumps_of_action,
)
from sim.knockout_whist.observation import KnockoutWhistObservation
from sim.reference_base import DeckSource, ReferenceGame
from sim.rng import SplitMix64


def as_options(options: OptionsLike) -> Options:
    """``Options`` from an ``Options``, a mapping of names to values, or None for the defaults."""
    return parse_options(() if options is None else options)


class KnockoutWhistGame(ReferenceGame):
    """One game of Knockout Whist, from the deal of hand 1 to its winner."""

    NUM_ACTIONS = NUM_ACTIONS
    RENDER = "sim.knockout_whist.render"
    COPIED = ("status", "out_hand", "dog_hand", "dog_saved", "log", "decisions", "scores", "hands", "dealt", "thrown",
              "exchanged", "tricks", "trick", "trick_seats")

    def __init__(self, options: OptionsLike = None, seed: int = 0, deck_source: DeckSource | None = None) -> None:
        """A game with ``options`` (default: 4 players, the main rules), dealt from ``seed``.

        Every permutation the game needs (a tie cut, then the deal, for each hand) comes
        from ``deck_source`` when given, else from a splitmix64 stream started at ``seed``.
        ``clone()`` copies a source that is a bound method of an object (like
        ``SplitMix64(seed).shuffled_deck``); a plain function is shared.
        """
        self._setup(as_options(options), deck_source or SplitMix64(seed).shuffled_deck)
        self._start_hand(1, FIRST_DEALER, chooser=None)

    @classmethod
    def at_hand(
        cls,
        options: OptionsLike,
        hand_no: int,
        dealer: int,
        deck_source: DeckSource,
        status: Sequence[int] | None = None,
        chooser: int | None = None,
        dogs_life_used: bool | None = None,
    ) -> KnockoutWhistGame:
        """A game that starts at the deal of hand ``hand_no``, so a rule can be shown without playing up to it.

        ``status`` gives each seat's ``Status`` (default: all in); ``chooser`` is the seat
        that chooses trumps (required from hand 2 on, absent in hand 1); ``dogs_life_used``
        defaults to whether any seat is a dog. A start the rules could not reach is refused
        with a one-line ``GameInputError``.
        """
        game = object.__new__(cls)
        game._setup(as_options(options), deck_source)
        n = game.n_seats
        statuses = [Status.IN] * n if status is None else [_status(value) for value in status]
        if len(statuses) != n:
            raise GameInputError(f"a {n}-seat game needs {n} statuses, not {len(statuses)}")
        if not isinstance(hand_no, int) or not 1 <= hand_no <= LAST_HAND:
            raise GameInputError(f"a hand number is 1 to {LAST_HAND}, not {hand_no}")
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise GameInputError(f"the dealer must be a seat 0 to {n - 1}, not {dealer}")
        if sum(s != Status.OUT for s in statuses) < 2:
            raise GameInputError("a game in progress has at least two seats not knocked out")
        has_dogs = Status.DOG in statuses
        if has_dogs and (hand_no == 1 or not game.options.dogs_life):
            raise GameInputError("a dog plays a hand after hand 1, and only with the option dogs_life")
        used = has_dogs if dogs_life_used is None else bool(dogs_life_used)
        if has_dogs and not used:
            raise GameInputError("with a dog in the game, the dog's life has been used")
        if hand_no == 1 and (chooser is not None or any(s != Status.IN for s in statuses)):
            raise GameInputError("hand 1 starts with every seat in and trumps turned up, no chooser")
        if hand_no > 1 and (not isinstance(chooser, int) or not 0 <= chooser < n or statuses[chooser] == Status.OUT):
            raise GameInputError(f"from hand 2 on the chooser must be a seat still in the game, not {chooser}")
        if hand_no > 1 and game.options.winner_deals and dealer != chooser:
            raise GameInputError("with winner_deals the trump chooser deals from hand 2 on")
        game.status = statuses
        game.out_hand = [hand_no - 1 if s == Status.OUT else None for s in statuses]
        game.dog_hand = [hand_no if s == Status.DOG else None for s in statuses]
        game.dogs_life_used = used
        game._start_hand(hand_no, dealer, chooser)
        return game

    def _setup(self, options: Options, deck_source: DeckSource) -> None:
        self.options = options
        self.n_seats = n = options.players
        self._draw = deck_source
        self.status: list[Status] = [Status.IN] * n
        self.out_hand: list[int | None] = [None] * n  # the hand at whose end a seat went out
        self.dog_hand: list[int | None] = [None] * n  # the hand a seat played on its dog's life
        self.dog_saved: list[bool] = [False] * n  # whether that dog's card won a trick
        self.dogs_life_used = False
        self.log: list[dict[str, Any]] = []
        self.decisions: list[int] = []
        self.hands_played = 0
        self.winner: int | None = None
        self.end_reason: EndReason | None = None
        self.scores = [0] * n

    # ----- what anyone may ask -----------------------------------------------------------

    @property
    def stock_left(self) -> int:
        """How many cards of this hand's stock have not been drawn."""
        return len(self.stock) - self._stock_drawn

    @property
    def led_suit(self) -> int | None:
        """The suit of the first card played to the current trick (None before one is played)."""
        return rules.led_suit_of(self.trick)

    def legal_actions(self) -> list[int]:
        """The legal action ids for the seat to move, ascending (empty once the game has ended)."""
        if self.phase == Phase.CHOOSE:
            return rules.trump_choices(self.options)
        if self.phase == Phase.EXCHANGE:
            hand = self.hands[self._to_move]
            limit = rules.exchange_limit(popcount(hand), self.stock_left)
            picks = card_list(hand & ~self._picked) if popcount(self._picked) < limit else []
            return picks + [END_EXCHANGE]
        if self.phase == Phase.PLAY:
            seat = self._to_move
            return rules.play_actions(self.hands[seat], self.led_suit, self.status[seat] == Status.DOG,
                                      self._last_trick)
        return []

    def seats_in_game(self) -> list[int]:
        """The seats not knocked out (ordinary seats and dogs), ascending."""
        return [seat for seat, status in enumerate(self.status) if status != Status.OUT]

    def observation(self, seat: int) -> KnockoutWhistObservation:
        """What ``seat`` may know: its own cards, everything public, and the public log."""
        view = self.seat_view(seat)
        own_turn = seat == view["to_move"]
        return KnockoutWhistObservation(
            **view,
            n_seats=self.n_seats,
            options=self.options.to_dict(),
            hand_no=self.hand_no,
            dealer=self.dealer,
            leader=self.leader,
            phase=int(self.phase),
            picked=tuple(card_list(self._picked)) if own_turn and self.phase == Phase.EXCHANGE else (),
            thrown=tuple(card_list(self.thrown[seat])),
            turned=self.turned,
            trumps=self.trumps,
            trick=tuple(self.trick),
            trick_seats=tuple(self.trick_seats),
            tricks=tuple(self.tricks),
            status=tuple(int(s) for s in self.status),
            out_hand=tuple(self.out_hand),
            dogs_life_used=self.dogs_life_used,
            exchanged=tuple(self.exchanged),
            winner=self.winner,
        )

    def record(self) -> dict[str, Any]:
        """The game's record: options, hands played, how it ended, who went out when, the dog's lives, scores."""
        return {
            "options": self.options.to_dict(),
            "hands_played": self.hands_played,
            "winner": self.winner,
            "end_reason": None if self.end_reason is None else self.end_reason.value,
            "out_hand": list(self.out_hand),
            "dog_hand": list(self.dog_hand),
            "dog_saved": list(self.dog_saved),
            "scores": list(self.scores),
            "decisions": len(self.decisions),
        }

    def _finish_clone(self, twin: KnockoutWhistGame) -> None:
        twin._draw = copy.deepcopy(self._draw)  # the deals the clone's actions cause come from its own stream

    # ----- the one verb (``apply``, checked by ReferenceGame) ------------------------------

    def _take(self, action: int) -> None:
        if self.phase == Phase.CHOOSE:
            self._set_trumps(trumps_of_action(action), self._to_move)
        elif self.phase == Phase.EXCHANGE:
            self._exchange(action)
        else:
            self._play(action)

    # ----- a hand: deal, trumps, exchange --------------------------------------------------

    def _start_hand(self, hand_no: int, dealer: int, chooser: int | None) -> None:
        n = self.n_seats
        self.hand_no = self.hands_played = hand_no
        self.dealer, self.chooser = dealer, chooser
        self.in_hand = [seat for seat in range(n) if self.status[seat] != Status.OUT]
        dogs = [seat for seat in self.in_hand if self.status[seat] == Status.DOG]
        order = rules.deal_order(dealer, n, self.in_hand)
        deck = check_deck(self._draw())
        dealt, used = rules.deal(deck, order, cards_in_hand(hand_no), dogs)
        self.hands = [dealt.get(seat, 0) for seat in range(n)]
        self.dealt = list(self.hands)  # what each seat was dealt: never public
        self.turned: int | None = deck[used] if hand_no == 1 else None
        self.stock = deck[used + (hand_no == 1):]
        self._stock_drawn = 0
        self.leader = rules.first_leader(dealer, n, self.in_hand, hand_no, self.options)
        self.trumps: int | None = None
        self.thrown = [0] * n
        self.exchanged: list[int | None] = [None] * n
        self.tricks = [0] * n
        self.trick: list[tuple[int, int]] = []
        self.trick_seats: list[int] = []
        self.trick_no = 0
        self._picked = 0
        self._last_trick = False
        self.log.append({"kind": "hand", "hand": hand_no, "dealer": dealer, "leader": self.leader,
                         "cards": cards_in_hand(hand_no), "seats": order, "dogs": dogs, "chooser": chooser,
                         "card_counts": self.card_counts()})
        if self.turned is not None:
            self.log.append({"kind": "turned", "hand": hand_no, "card": self.turned})
        if self.options.rainbow and hand_no == RAINBOW_HAND:
            for seat in rules.clockwise_from(self.leader, n, self.in_hand):
                if self.status[seat] == Status.IN and rules.is_rainbow(self.hands[seat]):
                    self.log.append({"kind": "rainbow", "hand": hand_no, "seat": seat,
                                     "cards": card_list(self.hands[seat])})
                    self._finish(seat, EndReason.RAINBOW)
                    return
        if self.turned is not None:
            self._set_trumps(suit_of(self.turned), None)
        else:
            self.phase, self._to_move = Phase.CHOOSE, chooser

    def _set_trumps(self, trumps: int, chooser: int | None) -> None:
        self.trumps = trumps
        self.log.append({"kind": "trumps", "hand": self.hand_no, "suit": trumps, "seat": chooser})
        if self.options.card_exchange:
            self.phase = Phase.EXCHANGE
            self._exchange_order = rules.clockwise_from(self.leader, self.n_seats, self.in_hand)
            self._to_move = self._exchange_order[0]
        else:
            self._start_play()

    def _exchange(self, action: int) -> None:
        seat = self._to_move
        if action != END_EXCHANGE:
            self._picked |= bit(action)
            return
        count = popcount(self._picked)
        drawn = self.stock[self._stock_drawn:self._stock_drawn + count]
        self._stock_drawn += count
        self.hands[seat] = (self.hands[seat] & ~self._picked) | to_set(drawn)
        self.thrown[seat] |= self._picked
        self.exchanged[seat] = count
        self._picked = 0
        self.log.append({"kind": "exchange", "hand": self.hand_no, "seat": seat, "count": count})
        position = self._exchange_order.index(seat) + 1
        if position < len(self._exchange_order):
            self._to_move = self._exchange_order[position]
        else:
            self._start_play()

    # ----- tricks ------------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self._start_trick(self.leader)

    def _start_trick(self, leader: int) -> None:
        holding = [seat for seat in self.in_hand if self.hands[seat]]
        self.trick_seats = rules.clockwise_from(leader, self.n_seats, holding)
        self.trick = []
        self._last_trick = rules.is_last_trick(self.hands, self.status)
        self._to_move = leader

    def _play(self, action: int) -> None:
        seat = self._to_move
        self.trick.append((seat, action))
        if action == KNOCK:
            self.log.append({"kind": "knock", "hand": self.hand_no, "seat": seat})
        else:
            self.hands[seat] &= ~bit(action)
            self.log.append({"kind": "play", "hand": self.hand_no, "seat": seat, "card": action})
        if len(self.trick) < len(self.trick_seats):
            self._to_move = self.trick_seats[len(self.trick)]
            return
        winner = rules.trick_winner(self.trick, self.trumps)
        self.tricks[winner] += 1
        self.log.append({"kind": "trick", "hand": self.hand_no, "no": self.trick_no, "winner": winner,
                         "plays": [list(play) for play in self.trick]})
        self.trick_no += 1
        if not any(self.hands[seat] for seat in self.in_hand if self.status[seat] == Status.IN):
            self._end_hand()
            return
        holding = [s for s in self.in_hand if self.hands[s]]
        self._start_trick(rules.leader_after_trick(winner, self.status[winner] == Status.DOG, self.n_seats, holding))

    # ----- the end of a hand and of the game -------------------------------------------------

    def _end_hand(self) -> None:
        hand_no = self.hand_no
        self.trick, self.trick_seats = [], []
        for seat in self.in_hand:
            if self.status[seat] == Status.DOG and self.tricks[seat]:
                self.dog_saved[seat] = True
        self.status, out, dogs = rules.after_hand(self.status, self.tricks, hand_no, self.options,
                                                  self.dogs_life_used)
        for seat in out:
            self.out_hand[seat] = hand_no
        for seat in dogs:
            self.dog_hand[seat] = hand_no + 1
        self.dogs_life_used = self.dogs_life_used or bool(dogs)
        self.log.append({"kind": "end_hand", "hand": hand_no, "tricks": list(self.tricks), "out": out, "dogs": dogs})
        if hand_no == LAST_HAND:
            self._finish(self.tricks.index(1), EndReason.LAST_TRICK)
            return
        left = self.seats_in_game()
        if len(left) == 1:
            self._finish(left[0], EndReason.LAST_STANDING)
            return
        tied = rules.most_tricks(self.tricks, self.in_hand)
        chooser = tied[0]
        if len(tied) > 1:
            chooser, cards = rules.cut_winner(tied, check_deck(self._draw()))
            self.log.append({"kind": "cut", "hand": hand_no + 1, "seats": tied, "cards": cards, "chooser": chooser})
        dealer = rules.next_dealer(self.dealer, self.n_seats, self.in_hand, chooser, self.options)
        self._start_hand(hand_no + 1, dealer, chooser)

    def _finish(self, winner: int, reason: EndReason) -> None:
        self.phase = Phase.OVER
        self.winner, self.end_reason = winner, reason
        self.scores = rules.game_scores(self.n_seats, winner)
        self._to_move = -1
        self.log.append({"kind": "end", "winner": winner, "reason": reason.value, "hands_played": self.hands_played,
                         "scores": list(self.scores)})


def _status(value: int | str) -> Status:
    if isinstance(value, str):
        names = {status.name.lower(): status for status in Status}
        if value.lower() not in names:
            raise GameInputError(f"a seat's status is in, dog or out, not {value!r}")
        return names[value.lower()]
    try:
        return Status(value)
    except ValueError:
        raise GameInputError(f"a seat's status is 0 (in), 1 (dog) or 2 (out), not {value!r}") from None
