"""Knockout Whist's rules as pure functions over seats, card ids and card sets.

Nothing here holds state, draws a random number or prints: the engines call
these to decide who deals and leads, what may be played, who wins a trick,
who chooses trumps and who goes out. Seats are ``0 .. n-1``; the seat to a
seat's left is the next one up, wrapping round.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sim.cards import SUIT_MASK, CardSet, card_list, rank_of, suit_of
from sim.knockout_whist.encoding import (
    KNOCK,
    LAST_HAND,
    MAX_EXCHANGE,
    NO_TRUMPS,
    NO_TRUMPS_ACTION,
    TRUMPS_BASE,
    Options,
    Status,
)

# The cut for trumps breaks equal ranks by suit: spades, then diamonds, hearts, clubs (the rulings' order).
CUT_SUIT_STRENGTH = (0, 2, 1, 3)  # indexed by suit C D H S


# ----- seats round the table -------------------------------------------------------------


def clockwise_from(start: int, n_seats: int, seats: Collection[int]) -> list[int]:
    """The seats of ``seats`` in clockwise order, beginning at ``start`` (included if it is one of them)."""
    return [(start + step) % n_seats for step in range(n_seats) if (start + step) % n_seats in seats]


def seat_after(seat: int, n_seats: int, seats: Collection[int]) -> int:
    """The first seat of ``seats`` clockwise after ``seat`` (``seat`` itself only if it is the only one)."""
    for step in range(1, n_seats + 1):
        candidate = (seat + step) % n_seats
        if candidate in seats:
            return candidate
    raise ValueError("no seat to pass to: the set of seats is empty")


def deal_order(dealer: int, n_seats: int, in_hand: Collection[int]) -> list[int]:
    """The seats in the hand in the order they receive cards: clockwise from the dealer's left, dealer last."""
    return clockwise_from(dealer + 1, n_seats, in_hand)


def first_leader(dealer: int, n_seats: int, in_hand: Collection[int], hand_no: int, options: Options) -> int:
    """Who leads the first trick: the dealer's left-hand seat in the hand, or the dealer with ``winner_deals``."""
    if options.winner_deals and hand_no >= 2:
        return dealer
    return seat_after(dealer, n_seats, in_hand)


def next_dealer(dealer: int, n_seats: int, in_last_hand: Collection[int], chooser: int, options: Options) -> int:
    """The next hand's dealer (fair leads): the first seat after the dealer that played the last hand.

    That seat deals even when it has just been knocked out (then it deals and leaves).
    With ``winner_deals`` the trump chooser deals instead.
    """
    if options.winner_deals:
        return chooser
    return seat_after(dealer, n_seats, in_last_hand)


# ----- the deal ----------------------------------------------------------------------------


def deal(deck: Sequence[int], order: Sequence[int], cards_each: int, dogs: Collection[int]) -> tuple[dict[int, CardSet],
                                                                                                     int]:
    """Deal ``deck`` one card at a time in rounds to the seats of ``order``; a dog takes a card in round 0 only.

    Returns each seat's cards and how many cards of the deck were dealt.
    """
    hands = {seat: 0 for seat in order}
    position = 0
    for round_no in range(cards_each):
        for seat in order:
            if seat in dogs and round_no > 0:
                continue
            hands[seat] |= 1 << deck[position]
            position += 1
    return hands, position


def is_rainbow(hand: CardSet) -> bool:
    """Whether a hand is exactly four cards, one of each suit (option rainbow)."""
    return hand.bit_count() == 4 and all(hand & mask for mask in SUIT_MASK)


# ----- trumps --------------------------------------------------------------------------------


def trump_choices(options: Options) -> list[int]:
    """The chooser's action ids: the four suits, and no trumps with ``no_trumps_choice``."""
    return list(range(TRUMPS_BASE, TRUMPS_BASE + 4)) + ([NO_TRUMPS_ACTION] if options.no_trumps_choice else [])


def most_tricks(tricks: Sequence[int], seats: Collection[int]) -> list[int]:
    """The seats of ``seats`` that took the most tricks, ascending (several when tied)."""
    best = max(tricks[seat] for seat in seats)
    return sorted(seat for seat in seats if tricks[seat] == best)


def cut_strength(card: int) -> tuple[int, int]:
    """How high a card cuts: by rank, equal ranks by suit spades > diamonds > hearts > clubs."""
    return rank_of(card), CUT_SUIT_STRENGTH[suit_of(card)]


def cut_winner(tied: Sequence[int], cut: Sequence[int]) -> tuple[int, list[int]]:
    """The tied seats, in increasing seat number, take ``cut[0]``, ``cut[1]``, …: the highest card chooses.

    Returns the chooser and the cards cut, one per tied seat.
    """
    seats = sorted(tied)
    cards = list(cut[:len(seats)])
    best = max(range(len(seats)), key=lambda i: cut_strength(cards[i]))
    return seats[best], cards


# ----- tricks ------------------------------------------------------------------------------


def playable_cards(hand: CardSet, led_suit: int | None) -> CardSet:
    """The cards a seat may play: any card when leading or void in the suit led, else a card of that suit."""
    if led_suit is None:
        return hand
    same_suit = hand & SUIT_MASK[led_suit]
    return same_suit or hand


def play_actions(hand: CardSet, led_suit: int | None, is_dog: bool, last_trick: bool) -> list[int]:
    """The legal ids, ascending, of a seat's turn in a trick.

    A dog holds one card: it plays it or knocks (52), except on the hand's last
    trick, where the card must go. An ordinary seat follows suit if it can.
    """
    if is_dog:
        return card_list(hand) + ([] if last_trick else [KNOCK])
    return card_list(playable_cards(hand, led_suit))


def led_suit_of(plays: Sequence[tuple[int, int]]) -> int | None:
    """The suit led: that of the first card actually played in the trick (knocks set no suit)."""
    for _, action in plays:
        if action != KNOCK:
            return suit_of(action)
    return None


def card_beats(card: int, best: int, trumps: int) -> bool:
    """Whether ``card`` beats ``best``, the trick's winning card so far (which set or followed the suit led)."""
    if suit_of(card) == suit_of(best):
        return card > best
    return trumps != NO_TRUMPS and suit_of(card) == trumps


def trick_winner(plays: Sequence[tuple[int, int]], trumps: int) -> int:
    """The seat that wins a trick of ``(seat, card or KNOCK)`` plays: the highest trump, else the highest
    card of the suit led."""
    winner, best = -1, -1
    for seat, action in plays:
        if action == KNOCK:
            continue
        if best < 0 or card_beats(action, best, trumps):
            winner, best = seat, action
    if winner < 0:
        raise ValueError("a trick needs at least one card played")
    return winner


def leader_after_trick(winner: int, winner_is_dog: bool, n_seats: int, holding: Collection[int]) -> int:
    """Who leads the next trick: the winner, or, when a dog's card won, the first seat after it still holding cards."""
    if winner_is_dog:
        return seat_after(winner, n_seats, holding)
    return winner


def is_last_trick(hands: Sequence[CardSet], statuses: Sequence[Status]) -> bool:
    """Whether the trick about to begin is the hand's last: every ordinary seat holds exactly one card."""
    return all(hands[seat].bit_count() == 1 for seat, status in enumerate(statuses) if status == Status.IN)


# ----- the card exchange --------------------------------------------------------------------


def exchange_limit(cards_held: int, stock_left: int) -> int:
    """How many cards a seat may throw away: at most three, its cards held, and the cards left in the stock."""
    return min(MAX_EXCHANGE, cards_held, stock_left)


# ----- the end of a hand and of the game ------------------------------------------------------


def gets_dogs_life(hand_no: int, options: Options, dogs_life_awarded_before: bool) -> bool:
    """Whether an ordinary seat that took no trick in hand ``hand_no`` becomes a dog instead of going out.

    Only with ``dogs_life``, only after hands 1 to 6, only if nobody was awarded one in an
    earlier hand (several seats of the same hand all get one), and never after a safe first hand.
    """
    if not options.dogs_life or dogs_life_awarded_before or hand_no >= LAST_HAND:
        return False
    return not (options.safe_first_hand and hand_no == 1)


def after_hand(
    statuses: Sequence[Status],
    tricks: Sequence[int],
    hand_no: int,
    options: Options,
    dogs_life_awarded_before: bool,
) -> tuple[list[Status], list[int], list[int]]:
    """Knockouts and dog's lives after hand ``hand_no``: the new statuses, the seats out now, the new dogs.

    A seat with a trick stays in (a dog that took one is ordinary again). A seat without
    one goes out, unless it is an ordinary seat given the dog's life; with
    ``safe_first_hand`` nobody goes out after hand 1.
    """
    new = list(statuses)
    out: list[int] = []
    dogs: list[int] = []
    if options.safe_first_hand and hand_no == 1:
        return new, out, dogs
    award = gets_dogs_life(hand_no, options, dogs_life_awarded_before)
    for seat, status in enumerate(statuses):
        if status == Status.OUT:
            continue
        if tricks[seat] > 0:
            new[seat] = Status.IN
        elif status == Status.IN and award:
            new[seat] = Status.DOG
            dogs.append(seat)
        else:
            new[seat] = Status.OUT
            out.append(seat)
    return new, out, dogs


def game_scores(n_seats: int, winner: int) -> list[int]:
    """The winner scores ``n - 1`` and every other seat ``-1``, so a game sums to zero."""
    return [n_seats - 1 if seat == winner else -1 for seat in range(n_seats)]
