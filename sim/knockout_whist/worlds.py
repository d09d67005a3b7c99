"""A Knockout Whist game a seat cannot tell from the real one, its unseen cards drawn afresh (``resample``).

The other seats' hands, their thrown-away cards and the stock left are one pool of
unseen cards; a seat that did not follow the suit led this hand (dogs excepted: a dog
need not follow) holds none of that suit, and in the rainbow hand no seat in the game
was dealt a rainbow. An exchange in progress keeps its number of cards picked (drawn
from the mover's new hand). The draw is uniform over the deals that fit, as
``sim.worlds.place_cards`` places them.
"""

from __future__ import annotations

import random

from sim.cards import FULL_DECK, bit, card_list, to_set
from sim.knockout_whist import rules as whist_rules
from sim.knockout_whist.encoding import KNOCK, RAINBOW_HAND, Phase, Status
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.worlds import ALL_SUITS, events_since, fresh_stream, place_cards, suit_voids


def resample(game: KnockoutWhistGame, seat: int, rng: random.Random) -> KnockoutWhistGame:
    """A copy of ``game`` that ``seat`` cannot tell from it, the cards it has not seen drawn from ``rng`` (see the
    module's docstring for what is hidden) and every later deal from a fresh stream."""
    twin = game.clone()
    twin._draw = fresh_stream(rng)
    events = events_since(game.log, lambda event: event["kind"] == "hand" and event["hand"] == game.hand_no)
    tricks = [[tuple(play) for play in event["plays"]] for event in events if event["kind"] == "trick"]
    tricks.append(list(game.trick))
    played: dict[int, int] = {}
    for plays in tricks:
        for player, action in plays:
            if action != KNOCK:
                played[player] = played.get(player, 0) | bit(action)
    public = sum(played.values()) | (bit(game.turned) if game.turned is not None else 0)
    unseen = FULL_DECK & ~public & ~game.hands[seat] & ~game.thrown[seat]
    voids = suit_voids(tricks, exempt=lambda s: game.status[s] == Status.DOG, skip=KNOCK)
    others = [s for s in game.in_hand if s != seat]
    capacities = ([game.hands[s].bit_count() for s in others] + [game.thrown[s].bit_count() for s in others]
                  + [game.stock_left])
    allowed = ([ALL_SUITS & ~voids.get(s, 0) for s in others] + [ALL_SUITS] * (len(others) + 1))
    order = [s for s in getattr(game, "_exchange_order", []) if game.exchanged[s] is not None]

    def rebuild(sets: list[int]) -> None:
        """The drawn hands into the copy, with the stock and deals they imply."""
        k = len(others)
        stock_rest = card_list(sets[2 * k])
        rng.shuffle(stock_rest)
        drawn_cards: list[int] = []
        position = 0
        for s in order:  # the stock's drawn head, in exchange order: each seat's draw from its cards now or played
            count = game.exchanged[s]
            if s == seat:
                drawn = game.stock[position:position + count]
            else:
                index = others.index(s)
                drawn = rng.sample(card_list(sets[index] | played.get(s, 0)), count)
            drawn_cards += drawn
            position += count
            if s != seat:
                index = others.index(s)
                twin.dealt[s] = (sets[index] | played.get(s, 0) | sets[k + index]) & ~to_set(drawn)
        for index, s in enumerate(others):
            twin.hands[s], twin.thrown[s] = sets[index], sets[k + index]
            if game.exchanged[s] is None:
                twin.dealt[s] = sets[index] | played.get(s, 0)
        twin.stock = drawn_cards + stock_rest
        twin._stock_drawn = len(drawn_cards)
        if game.phase == Phase.EXCHANGE and game.to_move != seat and game._picked:
            twin._picked = to_set(rng.sample(card_list(twin.hands[game.to_move]), game._picked.bit_count()))

    accepted: list[list[int]] = []

    def no_rainbow(sets: list[int]) -> bool:
        """Whether no seat in the game was dealt a rainbow (the copy is rebuilt to see its deals)."""
        rebuild(sets)
        fits = not any(game.status[s] == Status.IN and whist_rules.is_rainbow(twin.dealt[s]) for s in others)
        if fits:
            accepted.append(sets)
        return fits

    rainbow_hand = game.options.rainbow and game.hand_no == RAINBOW_HAND
    sets = place_cards(card_list(unseen), capacities, allowed, rng, no_rainbow if rainbow_hand else None)
    if not (accepted and accepted[-1] is sets):
        rebuild(sets)
    return twin
