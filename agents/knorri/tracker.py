"""What every seat holds, deduced from the public log alone (the rulings' "Agents and information").

Every card that goes into a pile is seen going in, so the log is enough:

- in phase 1 the tracker knows the table, every seat's pile, the turned card
  waiting for a choice, and the set of unseen cards (the stock, in an unknown
  order);
- from phase 2 on it knows every seat's hand exactly, and the trick.

It is fed observations and reads only the log events it has not read yet, so
following a whole hand costs one pass over the log. ``MCTS`` and ``loginf``
both build on it. The table's cut-off options (``cap``, ``repeat``) are public
rules that every observation carries: the tracker keeps them, and the positions
it rebuilds play under them, so a search plays out under the table's rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agents.log_reader import LogReader
from sim.cards import FULL_DECK, CardSet, bit, card_list, to_set
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS, PICK_UP, TABLE_SIZE, run_action
from sim.knorri.reference import KnorriHand

if TYPE_CHECKING:
    from sim.knorri.compiled import PositionRows, SteppedRows

STEPPED_CODE: dict[str, float] = {"sim.knorri.compiled.kernels:take_action": 1.0}
"""The engine's step as ``position_rows`` calls it from Python, and its measured compile seconds (docs/speed.md's
table): the searchers that ask for the stepped rows declare it in ``COMPILED_CODE``."""


class KnorriTracker(LogReader):
    """Follows one hand's public log and keeps what every seat holds.

    Attributes a caller may read (card sets are ints, bit ``id`` per card):
    ``phase`` (1 or 2), ``holdings`` (each seat's pile in phase 1, its hand in
    phase 2), ``table``, ``unseen`` (cards not yet turned; empty in phase 2),
    ``pending`` (the turned card waiting for a choice, or None; ``pending_seat``
    turned it), ``first_seat`` (the seat that turned first), ``trick`` (list
    of plays, each a list of cards), ``gone`` (cards set aside in completed
    tricks), ``deal_table`` and ``turned_order`` (the current deal's table and the
    stock cards in the order they were turned), ``decisions`` (every action id
    taken so far in this deal, in order, as the log shows them) and ``cap`` and
    ``repeat`` (the table's cut-off options, from the observations).
    """

    def __init__(self, n_seats: int, cap: int = MAX_PHASE2_ACTIONS, repeat: int = DEFAULT_REPEAT) -> None:
        self.n_seats = n_seats
        self.cap, self.repeat = cap, repeat
        self._read = 0
        self._start_deal([])

    def _start_deal(self, table: Sequence[int]) -> None:
        self.phase = 1
        self.holdings: list[CardSet] = [0] * self.n_seats
        self.table: CardSet = to_set(table)
        self.unseen: CardSet = FULL_DECK & ~self.table
        self.pending: int | None = None
        self.pending_seat = -1
        self.trick: list[list[int]] = []
        self.gone: CardSet = 0
        self.deal_table: list[int] = list(table)
        self.turned_order: list[int] = []
        self.first_seat = 0
        self.decisions: list[int] = []
        self._opening_done = False
        self._mirror: KnorriHand | None = None
        self._stepped: SteppedRows | None = None
        self._stepped_at = 0  # the decisions the stepped rows have taken

    def update(self, observation: Any) -> None:
        """Read the log events of ``observation`` not read yet (a new hand's log starts over), and the table's
        cut-off options it carries."""
        rules = (getattr(observation, "cap", self.cap), getattr(observation, "repeat", self.repeat))
        if rules != (self.cap, self.repeat):
            self.cap, self.repeat = rules
            self._mirror = self._stepped = None  # rebuilt under the table's rules
        self.read_log(observation.log)

    def _restart(self) -> None:
        """A new hand: start over (under the same table's rules)."""
        self.__init__(self.n_seats, self.cap, self.repeat)

    # ----- one event at a time -----------------------------------------------------------

    def _apply_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind != "capture" and self.pending is not None:
            self.table |= bit(self.pending)  # the turned card took nothing: it stays on the table
            self.pending = None
        if kind == "deal":
            self._start_deal(event["table"])
        elif kind == "turn":
            self.unseen &= ~bit(event["card"])
            if not self.turned_order:
                self.first_seat = event["seat"]
            self.turned_order.append(event["card"])
            self.pending, self.pending_seat = event["card"], event["seat"]
        elif kind == "capture":
            self.table &= ~bit(event["took"])
            self.holdings[event["seat"]] |= bit(event["card"]) | bit(event["took"])
            self.pending = None
            if event["chosen"]:
                self.decisions.append(event["took"])
        elif kind == "sweep":
            self.holdings[event["seat"]] |= to_set(event["cards"])
            self.table = 0
        elif kind == "phase2":
            self.phase = 2
        elif kind == "play":
            self._play(event["seat"], event["cards"])
        elif kind == "pickup":
            self._pick_up(event["seat"], event["card"])
        elif kind == "trick":
            self.gone |= to_set(event["cards"])
            self.trick = []

    def _play(self, seat: int, cards: list[int]) -> None:
        self.holdings[seat] &= ~to_set(cards)
        self.trick.append(list(cards))
        if not self._opening_done:
            self._opening_done = True
            self.decisions.append(run_action(len(cards)))
        else:
            self.decisions.append(cards[0])

    def _pick_up(self, seat: int, card: int) -> None:
        self.holdings[seat] |= bit(card)
        bottom = self.trick[0]
        bottom.pop(0)
        if not bottom:
            self.trick.pop(0)
        self.decisions.append(PICK_UP)

    # ----- what a searcher needs ----------------------------------------------------------

    def hand_of(self, seat: int) -> list[int]:
        """The cards ``seat`` holds (its pile in phase 1), ascending."""
        return card_list(self.holdings[seat])

    def rebuild(self, stock_rest: Sequence[int] = ()) -> KnorriHand:
        """A reference hand in exactly the position the log describes, built from public facts only.

        The deal is the logged table, then the stock in the order it was turned,
        then ``stock_rest`` (an order for the unseen cards; in phase 2 there are
        none). Replaying the logged decisions reaches the current position, so
        the result can be searched with ``clone()`` and ``apply()``; it plays under
        the table's cut-off options, its repeat history included.
        """
        deck = self.deal_table + self.turned_order + list(stock_rest)
        if len(self.deal_table) != TABLE_SIZE or len(deck) != 52:
            raise ValueError("rebuild needs the whole deal: the log's table and an order for every unseen card")
        hand = KnorriHand(self.n_seats, deck, self.first_seat, cap=self.cap, repeat=self.repeat)
        for action in self.decisions:
            hand.apply(action)
        return hand

    def position(self) -> KnorriHand:
        """In phase 2, the exact current position as a reference hand; clone it before applying actions.

        It is rebuilt once per hand and then kept in step with the log, so asking
        at every decision costs only the actions taken since the last ask.
        """
        if self.phase != 2:
            raise ValueError("the position is known exactly only in phase 2; in phase 1 use rebuild(stock_rest)")
        if self._mirror is None:
            self._mirror = self.rebuild()
        else:
            for action in self.decisions[len(self._mirror.decisions):]:
                self._mirror.apply(action)
        return self._mirror

    def position_rows(self) -> PositionRows:
        """In phase 2, the position of ``compiled.position_rows(self.position())`` and the positions it remembers,
        read once per hand and then stepped by the compiled engine (``SteppedRows``), so a searcher asking at every
        decision pays for the actions since its last ask only. Views of the tracker's arrays: read, never change."""
        if self.phase != 2:
            raise ValueError("the position is known exactly only in phase 2; in phase 1 use rebuild(stock_rest)")
        if self._stepped is None:
            from sim.knorri.compiled import SteppedRows  # here: a tracker that only reads the log needs no numba

            self._stepped, self._stepped_at = SteppedRows(self.rebuild()), len(self.decisions)
        for action in self.decisions[self._stepped_at:]:
            self._stepped.take(action)
        self._stepped_at = len(self.decisions)
        return self._stepped.rows()
