"""``KortTracker`` and ``tracker``'s choice compiled, for seats that play whole matches inside numba.

The compiled lineups (``agents.kort.lineup``) keep one tracker per seat as two small rows
(``new_trackers``: card sets in a uint64 row, counts in an int64 row) and step every seat's
after each action with ``observe``, from the public state of the live match alone (the
engine's compiled accessors): who played what, the trump choice and the 13th card shown,
declarations, the lead states, redeals and new rounds. A seat's own cards are read when it
decides (``own_hand``), as the Python tracker reads its observation's hand; another seat's
hand, the deck and a partner's unseen Bavan vote are never read.

Each function is the twin of the same-named one of ``agents.kort.tracker`` (a test compares
the deductions at every decision of whole matches, and the runner's rows compare whole
matches): ``cannot_hold``, ``may_hold_trump``, ``may_top`` and ``tracker_choice``;
``hidden_hands`` lays out the cards the seat cannot see for ``sampler.draw_hands``, and ``rows_of``
reads a Python tracker into these rows, so that a Python agent's search starts from the same code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.kort import sampler
from agents.kort.tracker import ALL_TRUMPS, FEWER_THAN_3, TRUMPS_AT_LEAST, KortTracker
from sim import config
from sim.cards import FULL_DECK
from sim.kort.compiled import (
    SUITS,
    T_CARD,
    T_LEN,
    T_SEAT,
    beats,
    card_count,
    cheapest,
    declared,
    greedy_choice,
    holder,
    lead_kind,
    lowest_card,
    own_hand,
    phase,
    popcount,
    side_lead,
    thirteenth,
    trump,
)
from sim.kort.encoding import (
    CARDS_EACH,
    DECLARATION_KINDS,
    FIRST_PACKET,
    NUM_SEATS,
    REDEAL,
    SAR_BELOW_TRUMPS,
    TRUMP_13,
    TRUMP_BASE,
    LeadKind,
    Phase,
)

# card-set row (uint64): the cards played this deal, per seat the cards of suits it showed it lacks, per seat
# the cards everyone knows it holds (the 13th card)
C_PLAYED, C_VOIDS, C_KNOWN = 0, 1, 1 + NUM_SEATS
CARD_FIELDS = 1 + 2 * NUM_SEATS
# count row (int64): the tracking seat, the holder, trumps (-1 unknown), the current trick's suit led (-1 before
# its lead), per seat the fewest and most trumps it may hold
I_SEAT, I_HOLDER, I_TRUMP, I_LED, I_LOW, I_HIGH = 0, 1, 2, 3, 4, 4 + NUM_SEATS
COUNT_FIELDS = 4 + 2 * NUM_SEATS

P_TRUMP, P_LEAD, P_DECLARE, P_FOLLOW, P_VOTE = (int(p) for p in (
    Phase.TRUMP, Phase.LEAD, Phase.DECLARE, Phase.FOLLOW, Phase.VOTE))
K_FREE, K_TROP = int(LeadKind.FREE), int(LeadKind.TROP)
FULL = np.uint64(FULL_DECK)
ONE = np.uint64(1)
NONE = np.uint64(0)
NO_BOUND = 99
DECLARED_LOW = np.array([TRUMPS_AT_LEAST[word] - 1 if word in TRUMPS_AT_LEAST else -1
                         for word in DECLARATION_KINDS], dtype=np.int64)
"""By declaration kind: the fewest trumps it shows the leader still holds (-1: none)."""
DECLARED_HIGH = np.array([SAR_BELOW_TRUMPS - 2 if word == FEWER_THAN_3 else NO_BOUND for word in DECLARATION_KINDS],
                         dtype=np.int64)
"""By declaration kind: the most trumps it shows the leader still holds (``NO_BOUND``: none)."""
ALL_TRUMPS_KIND = DECLARATION_KINDS.index(ALL_TRUMPS)


def rows_of(tracker: KortTracker) -> tuple[np.ndarray, np.ndarray]:
    """The rows the compiled tracker would hold for ``tracker``'s seat (``new_trackers``' one seat), read from the
    Python tracker: how a Python agent hands what its seat has deduced to a compiled search."""
    known = np.zeros(CARD_FIELDS, dtype=np.uint64)
    counts = np.zeros(COUNT_FIELDS, dtype=np.int64)
    known[C_PLAYED] = tracker.played
    known[C_VOIDS:C_VOIDS + NUM_SEATS] = tracker.voids
    known[C_KNOWN:C_KNOWN + NUM_SEATS] = tracker.known
    counts[I_SEAT], counts[I_HOLDER] = tracker.seat, tracker.holder
    counts[I_TRUMP] = -1 if tracker.trump is None else tracker.trump
    counts[I_LED] = tracker.led_suit()
    counts[I_LOW:I_LOW + NUM_SEATS] = tracker.trump_low
    counts[I_HIGH:I_HIGH + NUM_SEATS] = tracker.trump_high
    return known, counts


def new_trackers() -> tuple[np.ndarray, np.ndarray]:
    """Rows for the four seats' trackers: card sets ``uint64[4, CARD_FIELDS]``, counts ``int64[4, COUNT_FIELDS]``."""
    return (np.zeros((NUM_SEATS, CARD_FIELDS), dtype=np.uint64),
            np.zeros((NUM_SEATS, COUNT_FIELDS), dtype=np.int64))


# ----- following the match ----------------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def start_deal(known, counts, deal_holder):
    """A new deal (a round's or a redeal's): everything known starts again."""
    counts[I_HOLDER] = deal_holder
    counts[I_TRUMP] = -1
    counts[I_LED] = -1
    known[C_PLAYED] = NONE
    for s in range(NUM_SEATS):
        known[C_VOIDS + s] = NONE
        known[C_KNOWN + s] = NONE
        counts[I_LOW + s] = 0
        counts[I_HIGH + s] = CARDS_EACH


@njit(**config.INLINED_KERNEL)
def start_match(known, counts, seat, ints):
    """A new match at ``seat`` (``ints`` the match's row, dealt): the tracker of ``KortTracker(seat)``."""
    counts[I_SEAT] = seat
    start_deal(known, counts, holder(ints))


@njit(**config.INLINED_KERNEL)
def _void(known, counts, seat, lacks):
    known[C_VOIDS + seat] |= lacks
    if counts[I_TRUMP] >= 0 and lacks & SUITS[counts[I_TRUMP]] != NONE:
        counts[I_HIGH + seat] = 0


@njit(**config.INLINED_KERNEL)
def _play(known, counts, seat, card, kind):
    """``seat`` played ``card``; ``kind`` is its team's lead kind before the card (read at a lead only)."""
    suit = card // 13
    if counts[I_LED] >= 0:
        if suit != counts[I_LED]:
            _void(known, counts, seat, SUITS[counts[I_LED]])
    else:
        if kind == K_TROP and suit != counts[I_TRUMP]:
            _void(known, counts, seat, SUITS[counts[I_TRUMP]])
        counts[I_LED] = suit
    if suit == counts[I_TRUMP]:
        counts[I_LOW + seat] = max(0, counts[I_LOW + seat] - 1)
        counts[I_HIGH + seat] = max(0, counts[I_HIGH + seat] - 1)
    known[C_PLAYED] |= ONE << np.uint64(card)
    known[C_KNOWN + seat] &= ~(ONE << np.uint64(card))


@njit(**config.INLINED_KERNEL)
def _declared(known, counts, code):
    """A fresh trump lead's declaration (``kind * 4 + seat``; the led card already played) bounds its trumps."""
    kind, seat = code // NUM_SEATS, code % NUM_SEATS
    if kind == ALL_TRUMPS_KIND:
        _void(known, counts, seat, FULL & ~SUITS[counts[I_TRUMP]])
    elif DECLARED_HIGH[kind] < NO_BOUND:
        counts[I_HIGH + seat] = min(counts[I_HIGH + seat], DECLARED_HIGH[kind])
    else:
        counts[I_LOW + seat] = max(counts[I_LOW + seat], DECLARED_LOW[kind])


@njit(**config.INLINED_KERNEL)
def observe(known, counts, ints, mover, stage, action, kind, trick, plays):
    """Step a tracker past ``action``, just applied to the match ``ints``: ``mover`` took it in phase ``stage``;
    ``kind`` is the mover's team lead kind, ``trick`` the tricks completed and ``plays`` the cards on the table,
    all read before the action. Reads only what every seat sees."""
    if stage == P_TRUMP:
        counts[I_TRUMP] = trump(ints)
        if action == TRUMP_13:
            known[C_KNOWN + counts[I_HOLDER]] |= ONE << np.uint64(thirteenth(ints))
        return
    if stage == P_LEAD and action == REDEAL:
        start_deal(known, counts, holder(ints))
        return
    if stage == P_LEAD or stage == P_FOLLOW:
        _play(known, counts, mover, action, kind)
        if stage == P_LEAD and phase(ints) != P_DECLARE and declared(ints, trick) >= 0:
            _declared(known, counts, declared(ints, trick))
        if stage == P_FOLLOW and plays == NUM_SEATS - 1:
            counts[I_LED] = -1
    elif stage == P_DECLARE:
        _declared(known, counts, declared(ints, trick))
    if (stage == P_FOLLOW or stage == P_VOTE) and phase(ints) == P_TRUMP:
        start_deal(known, counts, holder(ints))


# ----- the deductions ---------------------------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def cannot_hold(known, counts, own, seat):
    """The cards ``seat`` surely does not hold now; ``own`` is the tracking seat's hand."""
    if seat == counts[I_SEAT]:
        return FULL & ~own
    elsewhere = NONE
    for other in range(NUM_SEATS):
        if other != seat:
            elsewhere |= known[C_KNOWN + other]
    return known[C_PLAYED] | own | known[C_VOIDS + seat] | elsewhere


@njit(**config.INLINED_KERNEL)
def may_hold_trump(known, counts, own, seat):
    """Whether ``seat`` may hold a trump now."""
    trump_suit = counts[I_TRUMP]
    return (trump_suit >= 0 and counts[I_HIGH + seat] > 0
            and FULL & ~cannot_hold(known, counts, own, seat) & SUITS[trump_suit] != NONE)


@njit(**config.INLINED_KERNEL)
def may_top(known, counts, own, seat, card, led):
    """Whether ``seat``, still to play to a trick whose suit led is ``led``, may top ``card`` as far as it showed."""
    suit = card // 13
    higher = FULL & ~cannot_hold(known, counts, own, seat) & SUITS[suit] & ~((ONE << np.uint64(card + 1)) - ONE)
    if suit == led and higher != NONE:
        return True
    if known[C_VOIDS + seat] & SUITS[led] == NONE:
        return False
    if suit == counts[I_TRUMP]:
        return higher != NONE and counts[I_HIGH + seat] > 0
    return may_hold_trump(known, counts, own, seat)


@njit(**config.INLINED_KERNEL)
def _master(known, counts, own, seat, plays, card, led):
    """Whether no opponent still to play after ``seat`` (``plays`` cards on the table) may top ``card``."""
    for step in range(1, NUM_SEATS - plays):
        other = (seat + step) % NUM_SEATS
        if other % 2 != seat % 2 and may_top(known, counts, own, other, card, led):
            return False
    return True


@njit(**config.INLINED_KERNEL)
def tracker_choice(known, counts, cards, ints, view, legal, n_legal):
    """``tracker``'s choice among ``legal[:n_legal]`` for the seat to move (the tracker's), ``view`` its
    ``playout.table_view``: greedy's, except that it takes tricks with its cheapest masters."""
    seat = counts[I_SEAT]
    own = own_hand(cards, seat)
    table = view.trick
    choice = greedy_choice(ints, own, table, legal, n_legal, True)
    stage = phase(ints)
    if (stage != P_LEAD and stage != P_FOLLOW) or n_legal == 1 or choice >= TRUMP_BASE:
        return choice
    trump_suit = trump(ints)
    playable = NONE
    for k in range(n_legal):
        if legal[k] < TRUMP_BASE:
            playable |= ONE << np.uint64(legal[k])
    plays = table[T_LEN]
    if stage == P_LEAD:
        side = playable & ~SUITS[trump_suit]
        drawn = not (may_hold_trump(known, counts, own, (seat + 1) % NUM_SEATS)
                     or may_hold_trump(known, counts, own, (seat + 3) % NUM_SEATS))
        choice_trump = choice // 13 == trump_suit
        if choice_trump and not (drawn and side != NONE and lead_kind(ints, seat % 2) == K_FREE):
            return choice
        masters = NONE
        rest = side
        while rest != NONE:
            card = lowest_card(rest)
            rest &= rest - ONE
            if _master(known, counts, own, seat, plays, card, card // 13):
                masters |= ONE << np.uint64(card)
        if masters != NONE:
            return cheapest(masters, trump_suit)
        if choice_trump:
            return side_lead(own, side, popcount(own & SUITS[trump_suit]))
        return choice
    best_seat, best = table[T_SEAT], table[T_CARD]
    for k in range(1, plays):
        if beats(table[T_CARD + k], best, trump_suit):
            best_seat, best = table[T_SEAT + k], table[T_CARD + k]
    if best_seat == (seat + 2) % NUM_SEATS:
        return choice
    led = table[T_CARD] // 13
    masters = NONE
    rest = playable
    while rest != NONE:
        card = lowest_card(rest)
        rest &= rest - ONE
        if beats(card, best, trump_suit) and _master(known, counts, own, seat, plays, card, led):
            masters |= ONE << np.uint64(card)
    return cheapest(masters, trump_suit) if masters != NONE else choice


# ----- the hidden hands a search samples ----------------------------------------------------------------
@njit(**config.KERNEL)
def hidden_hands(known, counts, cards, ints, binomial):
    """What the tracking seat knows of the cards it cannot see, as the ``sampler.DealTables`` a deal is drawn from
    (``binomial`` is ``agents.deal_sampling.BINOMIAL``).

    While the holder chooses trumps the pool is every card but the seat's own, the holder's five among them when
    it is another seat. Later it is the cards in the other seats' hands that no one has shown: each holds its
    card count less the cards everyone knows it holds, of the suits it may hold, and between the tracker's trump
    bounds (less its known trumps) of trumps.
    """
    seat = counts[I_SEAT]
    own = own_hand(cards, seat)
    seat_known = np.zeros(NUM_SEATS, dtype=np.uint64)
    seat_count = np.zeros(NUM_SEATS, dtype=np.int64)
    low = np.zeros((NUM_SEATS, 4), dtype=np.int64)
    high = np.full((NUM_SEATS, 4), CARDS_EACH, dtype=np.int64)
    undealt = phase(ints) == P_TRUMP
    if undealt:
        pool = FULL & ~own
        deal_holder = holder(ints)
        if deal_holder != seat:
            seat_count[deal_holder] = FIRST_PACKET
    else:
        taken = own | known[C_PLAYED]
        for s in range(NUM_SEATS):
            if s != seat:
                seat_known[s] = known[C_KNOWN + s]
                taken |= seat_known[s]
        pool = FULL & ~taken
        trump_suit = counts[I_TRUMP]
        for s in range(NUM_SEATS):
            if s == seat:
                for suit in range(4):
                    high[s, suit] = 0
                continue
            seat_count[s] = card_count(cards, s) - popcount(seat_known[s])
            possible = FULL & ~cannot_hold(known, counts, own, s)
            for suit in range(4):
                room = popcount(possible & SUITS[suit] & pool)
                high[s, suit] = room
                if suit == trump_suit:
                    in_known = popcount(seat_known[s] & SUITS[suit])
                    low[s, suit] = max(0, counts[I_LOW + s] - in_known)
                    high[s, suit] = min(room, counts[I_HIGH + s] - in_known)
    return sampler.deal_tables(pool, seat_count, seat_known, low, high, np.int64(undealt), binomial)
