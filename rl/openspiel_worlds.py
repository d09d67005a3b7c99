"""Redrawn hidden cards of the reference games, for OpenSpiel's search (``rl.openspiel_game``).

``resample_game`` returns a game one seat cannot tell from the given one: the seat's own cards, every
public card and event, and the engine's public counters stay; the cards the seat has
not seen are dealt afresh, and every later deck comes from a fresh stream. The draw is
uniform over the deals that fit what the seat has seen, under these constraints:

- Knorri: phase 1 hides only the order of the stock left (and later redeals);
  phase 2 hides nothing (every pile is built from public captures), so the game is
  copied as it is.
- Knockout Whist: the other seats' hands, their thrown-away cards and the stock left
  are one pool of unseen cards; a seat that did not follow the suit led this hand
  (dogs excepted: a dog need not follow) holds none of that suit, and in the
  rainbow hand no seat in the game was dealt a rainbow. An exchange in progress keeps
  its number of cards picked (drawn from the mover's new hand).
- Kort: the other seats' hands (and, before the deal is complete, the deck) are
  drawn from the unseen cards; a seat that did not follow the suit led this deal
  holds none of that suit, and the holder's 13th card stays in its hand once shown.
  What leads and declarations revealed of a hand (a Trop's trump lead, an automatic
  Sar, a choice offered) is kept too: a draw stands only if the deal, dealt again
  from it, replays the deal's decisions to the same public log. After
  ``KORT_REPLAY_TRIES`` draws that do not, a placement fitting the voids alone stands.
  A Bavan vote already cast but not yet shown stays as it was.

The draw is by rejection (uniform shuffles until one fits). If none fits within
``REJECTION_TRIES`` shuffles (hands late in a deal with several voids), the cards are
placed by a matching that always fits, consistent but not exactly uniform.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sim.cards import FULL_DECK, bit, card_list, suit_of, to_set
from sim.knockout_whist import rules as whist_rules
from sim.knockout_whist.encoding import KNOCK, RAINBOW_HAND, Phase, Status
from sim.knockout_whist.reference import KnockoutWhistGame
from sim.knorri.encoding import TABLE_SIZE
from sim.knorri.reference import KnorriHand
from sim.kort import rules as kort_rules
from sim.kort.encoding import FIRST_PACKET, THIRTEENTH_POSITION, TRUMP_13
from sim.kort.encoding import Phase as KortPhase
from sim.kort.reference import KortMatch
from sim.reference_base import ReferenceGame
from sim.rng import SplitMix64

REJECTION_TRIES = 2000
"""Uniform shuffles tried before the unseen cards are placed by matching instead."""
KORT_REPLAY_TRIES = 200
"""Kort's draws replayed against the deal's public log before settling for one that only fits the voids."""

ALL_SUITS = 0b1111


def resample_game(game: ReferenceGame, seat: int, rng: random.Random) -> ReferenceGame:
    """A copy of ``game`` that ``seat`` cannot tell from it, with the cards ``seat`` has not seen drawn from
    ``rng`` (see the module's docstring for what each game hides)."""
    if isinstance(game, KnorriHand):
        return _resample_knorri(game, rng)
    if isinstance(game, KnockoutWhistGame):
        return _resample_whist(game, seat, rng)
    if isinstance(game, KortMatch):
        return _resample_kort(game, seat, rng)
    raise TypeError(f"no resampling for {type(game).__name__}")


def fresh_stream(rng: random.Random) -> Callable[[], list[int]]:
    """A deck source for every later deal, seeded from ``rng``."""
    return SplitMix64(rng.getrandbits(64)).shuffled_deck


# ----- placing unseen cards ------------------------------------------------------------------


def place_cards(cards: Sequence[int], capacities: Sequence[int], allowed: Sequence[int], rng: random.Random,
                accept: Callable[[list[int]], bool] | None = None, tries: int = REJECTION_TRIES) -> list[int]:
    """Deal ``cards`` into places of the given sizes (which add up to their number), a place taking only cards of
    the suits in its ``allowed`` mask (bit s: suit s); returns each place's card set. Uniform over the fits (and
    over those ``accept`` takes) by rejection over ``tries`` shuffles, then by matching (fitting the suits, not
    uniform, and not asked of ``accept``) if rejection runs out."""
    pool = list(cards)
    assert sum(capacities) == len(pool)
    for _ in range(tries):
        rng.shuffle(pool)
        sets, start = [], 0
        for size, suits in zip(capacities, allowed, strict=True):
            chunk = pool[start:start + size]
            start += size
            if suits != ALL_SUITS and any(not suits >> suit_of(card) & 1 for card in chunk):
                break
            sets.append(to_set(chunk))
        else:
            if accept is None or accept(sets):
                return sets
    return _place_by_matching(pool, capacities, allowed, rng)


def _place_by_matching(cards: list[int], capacities: Sequence[int], allowed: Sequence[int],
                       rng: random.Random) -> list[int]:
    """Cards into places by augmenting paths over the places' free slots (a fit exists: the true deal is one)."""
    slots = [place for place, size in enumerate(capacities) for _ in range(size)]
    holder: list[int | None] = [None] * len(slots)  # slot -> index into cards
    order = list(range(len(cards)))
    rng.shuffle(order)

    def fits(card_index: int, slot: int) -> bool:
        return bool(allowed[slots[slot]] >> suit_of(cards[card_index]) & 1)

    def augment(card_index: int, seen: set[int]) -> bool:
        candidates = [slot for slot in range(len(slots)) if slot not in seen and fits(card_index, slot)]
        rng.shuffle(candidates)
        for slot in candidates:
            seen.add(slot)
            if holder[slot] is None or augment(holder[slot], seen):
                holder[slot] = card_index
                return True
        return False

    for card_index in order:
        if not augment(card_index, set()):
            raise ValueError("the unseen cards fit no deal consistent with the observation")
    sets = [0] * len(capacities)
    for slot, card_index in enumerate(holder):
        sets[slots[slot]] |= bit(cards[card_index])
    return sets


def _voids(tricks: Sequence[Sequence[tuple[int, int]]], exempt: Callable[[int], bool] = lambda seat: False,
           skip: int | None = None) -> dict[int, int]:
    """For each seat, the mask of suits it has shown it lacks: a led suit it did not follow (``skip``: an action
    that is no card and leads nothing, a dog's knock)."""
    voids: dict[int, int] = {}
    for plays in tricks:
        cards = [(seat, action) for seat, action in plays if action != skip]
        if not cards:
            continue
        led = suit_of(cards[0][1])
        for seat, card in cards[1:]:
            if suit_of(card) != led and not exempt(seat):
                voids[seat] = voids.get(seat, 0) | 1 << led
    return voids


def _events_since(log: Sequence[dict], start: Callable[[dict], bool]) -> list[dict]:
    """The log's events from the last one ``start`` takes on."""
    for index in range(len(log) - 1, -1, -1):
        if start(log[index]):
            return list(log[index:])
    return list(log)


# ----- Knorri ----------------------------------------------------------------------------------


def _resample_knorri(hand: KnorriHand, rng: random.Random) -> KnorriHand:
    twin = hand.clone()
    if hand.phase != 1:
        return twin  # phase 2 hides nothing, and deals nothing more
    rest = list(hand._stock[hand._turn:])
    rng.shuffle(rest)
    twin._stock = list(hand._stock[:hand._turn]) + rest
    twin.deck = list(hand.deck[:TABLE_SIZE]) + twin._stock
    twin._redeal_source = fresh_stream(rng)
    return twin


# ----- Knockout Whist ------------------------------------------------------------------------------


def _resample_whist(game: KnockoutWhistGame, seat: int, rng: random.Random) -> KnockoutWhistGame:
    twin = game.clone()
    twin._draw = fresh_stream(rng)
    events = _events_since(game.log, lambda event: event["kind"] == "hand" and event["hand"] == game.hand_no)
    tricks = [[tuple(play) for play in event["plays"]] for event in events if event["kind"] == "trick"]
    tricks.append(list(game.trick))
    played: dict[int, int] = {}
    for plays in tricks:
        for player, action in plays:
            if action != KNOCK:
                played[player] = played.get(player, 0) | bit(action)
    public = sum(played.values()) | (bit(game.turned) if game.turned is not None else 0)
    unseen = FULL_DECK & ~public & ~game.hands[seat] & ~game.thrown[seat]
    voids = _voids(tricks, exempt=lambda s: game.status[s] == Status.DOG, skip=KNOCK)
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


# ----- Kort ----------------------------------------------------------------------------------------


def _resample_kort(match: KortMatch, seat: int, rng: random.Random) -> KortMatch:
    if match.phase == KortPhase.TRUMP:  # only the holder's five cards are dealt: the rest of the deck is unseen
        twin = match.clone()
        twin._draw = fresh_stream(rng)
        known = set(range(FIRST_PACKET)) if seat == match.holder else set()
        hidden = [p for p in range(52) if p not in known]
        cards = [match.deck[p] for p in hidden]
        rng.shuffle(cards)
        for p, card in zip(hidden, cards, strict=True):
            twin.deck[p] = card
        twin.hands = [0] * 4
        twin.hands[match.holder] = kort_rules.holders_first_cards(twin.deck)
        return twin
    holder = match.holder
    deal_at = max(i for i, event in enumerate(match.log) if event["kind"] == "deal")
    events = match.log[deal_at:]
    tricks = [[tuple(play) for play in event["plays"]] for event in events if event["kind"] == "trick"]
    tricks.append(list(match.trick))
    played: dict[int, int] = {}
    for plays in tricks:
        for player, card in plays:
            played[player] = played.get(player, 0) | bit(card)
    shown = match.thirteenth if match.trump_choice == TRUMP_13 else None
    pinned = bit(shown) if shown is not None and seat != holder and match.hands[holder] & bit(shown) else 0
    voids = _voids(tricks)
    others = [s for s in range(4) if s != seat]
    unseen = FULL_DECK & ~sum(played.values()) & ~match.hands[seat] & ~pinned
    capacities = [match.hands[s].bit_count() - (1 if s == holder and pinned else 0) for s in others]
    allowed = [ALL_SUITS & ~voids.get(s, 0) for s in others]
    decisions = _kort_deal_decisions(match, events)
    replayed: list[KortMatch] = []

    def replays(sets: list[int]) -> bool:
        """Whether the deal dealt from these hands replays to the same public log (what leads and declarations
        revealed of the hands included); the replayed match is kept."""
        hands = list(match.hands)
        for index, s in enumerate(others):
            hands[s] = sets[index] | (pinned if s == holder else 0)
        twin = _replay_kort_deal(match, deal_at, decisions, _kort_deck(match, hands, played, seat, rng),
                                 fresh_stream(rng))
        if twin is None:
            return False
        replayed.append(twin)
        return True

    sets = place_cards(card_list(unseen), capacities, allowed, rng, replays, tries=KORT_REPLAY_TRIES)
    if replayed:  # the draw accepted, replayed
        return replayed[-1]
    twin = match.clone()  # no draw replayed within the tries: the matching's fit of the voids alone
    twin._draw = fresh_stream(rng)
    for index, s in enumerate(others):
        twin.hands[s] = sets[index] | (pinned if s == holder else 0)
    twin.deck = _kort_deck(match, twin.hands, played, seat, rng)
    return twin


def _kort_deal_decisions(match: KortMatch, events: Sequence[dict]) -> list[int]:
    """The decisions taken since the current deal began, read back from the log: the trump choice, every lead and
    follow, every declaration asked for, and the Bavan votes cast (a pending one too)."""
    count = sum(1 for event in events if event["kind"] in ("trump", "play")
                or (event["kind"] == "declare" and not event["automatic"]))
    count += sum(len(event["votes"]) for event in events if event["kind"] == "bavan_vote")
    count += len(match._votes) if match.phase == KortPhase.VOTE else 0
    return list(match.decisions[len(match.decisions) - count:])


def _replay_kort_deal(match: KortMatch, deal_at: int, decisions: Sequence[int], deck: list[int],
                      later: Callable[[], list[int]]) -> KortMatch | None:
    """The match with its current deal dealt again from ``deck`` and its decisions replayed (later decks from
    ``later``); None if a decision is illegal there or the public log comes out different."""
    twin = match.clone()
    twin.log = twin.log[:deal_at]
    twin.decisions = twin.decisions[:len(twin.decisions) - len(decisions)]
    decks = iter([deck])
    twin._draw = lambda: next(decks, None) or later()
    twin._start_round(match.holder, match.deal_no)
    twin._draw = later
    for action in decisions:
        if action not in twin.legal_actions():
            return None
        twin.apply(action)
    return twin if twin.log == match.log and twin.to_move == match.to_move else None


def _kort_deck(match: KortMatch, hands: list[int], played: dict[int, int], seat: int, rng: random.Random) -> list[int]:
    """A deck that deals the drawn hands (each seat's cards now and played): the seat's own positions and the
    holder's shown 13th card as they were, every other seat's cards in a random order over its positions."""
    deck = list(match.deck)
    positions = kort_rules.deal_positions(match.holder)
    for s in range(4):
        if s == seat:
            continue
        fixed = {THIRTEENTH_POSITION} if s == match.holder and match.trump_choice == TRUMP_13 else set()
        free = [p for p in positions[s] if p not in fixed]
        cards = card_list((hands[s] | played.get(s, 0)) & ~to_set(deck[p] for p in fixed))
        rng.shuffle(cards)
        for p, card in zip(free, cards, strict=True):
            deck[p] = card
    return deck

