"""A Kort match a seat cannot tell from the real one, its unseen cards drawn afresh (``LearningFacts.resample``).

The other seats' hands (and, before the deal is complete, the deck) are drawn from the
unseen cards; a seat that did not follow the suit led this deal holds none of that
suit, and the holder's 13th card stays in its hand once shown. What leads and
declarations revealed of a hand (a Trop's trump lead, an automatic Sar, a choice
offered) is kept too: a draw stands only if the deal, dealt again from it, replays the
deal's decisions to the same public log. After ``KORT_REPLAY_TRIES`` draws that do not,
a placement fitting the voids alone stands (``sim.worlds.place_cards``). A Bavan vote
already cast but not yet shown stays as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sim.cards import FULL_DECK, bit, card_list, to_set
from sim.kort import rules as kort_rules
from sim.kort.encoding import FIRST_PACKET, THIRTEENTH_POSITION, TRUMP_13
from sim.kort.encoding import Phase as KortPhase
from sim.kort.reference import KortMatch
from sim.worlds import ALL_SUITS, fresh_stream, place_cards, suit_voids

KORT_REPLAY_TRIES = 200
"""Kort's draws replayed against the deal's public log before settling for one that only fits the voids."""


def resample(match: KortMatch, seat: int, rng: random.Random) -> KortMatch:
    """A copy of ``match`` that ``seat`` cannot tell from it, the cards it has not seen drawn from ``rng`` (see the
    module's docstring for what is hidden and kept) and every later deck from a fresh stream."""
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
    voids = suit_voids(tricks)
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
