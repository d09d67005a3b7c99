"""The observation tensor of Knockout Whist: its layout, and the same tensor from a reference observation.

The compiled batch writes this tensor for each game's acting seat
(``KnockoutWhistBatch.observation_tensor``); ``encode_observation`` builds it
from a ``KnockoutWhistObservation`` of the reference engine, so an agent trained
on batches can play through the reference engine, and the tests can check that
the compiled tensor holds nothing the seat's observation does not.

Seats are counted from the acting seat: "seat k" below is the k-th seat clockwise
from it (k = 0 is the acting seat itself); rows past the table's seats are zero.
A finished game's tensor is all zeros.
"""

from __future__ import annotations

import numpy as np

from sim.cards import suit_of
from sim.knockout_whist.encoding import FLAG_OPTIONS, KNOCK, MAX_SEATS, Phase, Status, cards_in_hand
from sim.knockout_whist.observation import KnockoutWhistObservation
from sim.tensor_layout import field_starts, layout

OBSERVATION_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("own_hand", 52, "the acting seat's cards, one flag per card id"),
    ("picked", 52, "the cards it has picked so far in its exchange turn (card_exchange)"),
    ("thrown", 52, "the cards it threw away in this hand's exchange"),
    ("played", 52, "every card played to a trick in this hand"),
    ("turned", 52, "hand 1's turned card, one-hot"),
    ("trick", MAX_SEATS * 53, "seat k's card (ids 0..51) or knock (52) in the current trick, 53 flags a seat"),
    ("trick_leader", MAX_SEATS, "the seat that began the current trick, one-hot"),
    ("led_suit", 4, "the suit of the trick's first card played, one-hot C D H S"),
    ("trumps", 5, "trumps, one-hot C D H S or no trumps (zero before the chooser has chosen)"),
    ("hand_no", 7, "the hand being played, one-hot 1..7"),
    ("phase", 3, "one-hot: choose trumps, exchange, play"),
    ("dealer", MAX_SEATS, "this hand's dealer, one-hot"),
    ("first_leader", MAX_SEATS, "who led this hand's first trick, one-hot"),
    ("chooser", MAX_SEATS, "this hand's trump chooser, one-hot (zero in hand 1)"),
    ("present", MAX_SEATS, "1 for a seat at the table"),
    ("is_in", MAX_SEATS, "1 for an ordinary seat still in the game"),
    ("is_dog", MAX_SEATS, "1 for a seat on its dog's life"),
    ("is_out", MAX_SEATS, "1 for a seat knocked out"),
    ("out_hand", MAX_SEATS, "the hand at whose end a seat went out (0 while in)"),
    ("tricks", MAX_SEATS, "tricks taken in this hand"),
    ("card_counts", MAX_SEATS, "cards held"),
    ("exchanged", MAX_SEATS, "cards exchanged in this hand (0 before the seat's exchange ends)"),
    ("has_exchanged", MAX_SEATS, "1 once the seat's exchange in this hand has ended"),
    ("cut", MAX_SEATS, "the card the seat cut for this hand's trump choice, id + 1 (0 if it did not cut)"),
    ("dogs_life_used", 1, "1 once a dog's life has been awarded"),
    ("last_trick", 1, "1 during the hand's last trick (a dog may not knock)"),
    ("stock_left", 1, "cards left in the stock"),
    ("options", len(FLAG_OPTIONS), "the boolean options, in encoding.FLAG_OPTIONS order"),
)
"""The observation tensor's layout: (name, width, meaning), in order."""

OBSERVATION_SLICES, OBSERVATION_SIZE, OBSERVATION_MEANINGS = layout(OBSERVATION_FIELDS)
"""The tensor's named slices (``tensor[..., OBSERVATION_SLICES["own_hand"]]``), its size and what each slice holds."""

O_OWN, O_PICKED, O_THROWN, O_PLAYED, O_TURNED, O_TRICK, O_TRICK_LEADER, O_LED, O_TRUMPS, O_HAND_NO, O_PHASE, \
    O_DEALER, O_FIRST_LEADER, O_CHOOSER, O_PRESENT, O_IN, O_DOG, O_OUT, O_OUT_HAND, O_TRICKS, O_COUNTS, \
    O_EXCHANGED, O_HAS_EXCHANGED, O_CUT, O_DOGS_LIFE_USED, O_LAST_TRICK, O_STOCK_LEFT, O_OPTIONS = field_starts(
        OBSERVATION_FIELDS)


def encode_observation(observation: KnockoutWhistObservation) -> np.ndarray:
    """The ``float32[OBSERVATION_SIZE]`` tensor of a reference observation (the batch writes the same numbers).

    It reads only the observation, so it can hold nothing the seat may not know.
    """
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs = observation
    if obs.done:
        return out
    n, hand_no = obs.n_seats, obs.hand_no

    def rel(seat: int) -> int:
        return (seat - obs.seat) % n

    out[[O_OWN + c for c in obs.hand]] = 1
    out[[O_PICKED + c for c in obs.picked]] = 1
    out[[O_THROWN + c for c in obs.thrown]] = 1
    this_hand = [event for event in obs.log if event.get("hand") == hand_no]
    out[[O_PLAYED + e["card"] for e in this_hand if e["kind"] == "play"]] = 1
    if obs.turned is not None:
        out[O_TURNED + obs.turned] = 1
    for seat, action in obs.trick:
        out[O_TRICK + rel(seat) * 53 + action] = 1
    if obs.trick_seats:
        out[O_TRICK_LEADER + rel(obs.trick_seats[0])] = 1
    played = [action for _, action in obs.trick if action != KNOCK]
    if played:
        out[O_LED + suit_of(played[0])] = 1
    if obs.trumps is not None:
        out[O_TRUMPS + obs.trumps] = 1
    out[O_HAND_NO + hand_no - 1] = 1
    out[O_PHASE + obs.phase] = 1
    out[O_DEALER + rel(obs.dealer)] = 1
    out[O_FIRST_LEADER + rel(obs.leader)] = 1
    deal = next(e for e in this_hand if e["kind"] == "hand")
    if deal["chooser"] is not None:
        out[O_CHOOSER + rel(deal["chooser"])] = 1
    for seat in range(n):
        k = rel(seat)
        out[O_PRESENT + k] = 1
        status = obs.status[seat]
        out[(O_IN if status == Status.IN else O_DOG if status == Status.DOG else O_OUT) + k] = 1
        out[O_OUT_HAND + k] = obs.out_hand[seat] or 0
        out[O_TRICKS + k] = obs.tricks[seat]
        out[O_COUNTS + k] = obs.card_counts[seat]
        if obs.exchanged[seat] is not None:
            out[O_EXCHANGED + k] = obs.exchanged[seat]
            out[O_HAS_EXCHANGED + k] = 1
    for cut in (e for e in this_hand if e["kind"] == "cut"):
        for seat, card in zip(cut["seats"], cut["cards"], strict=True):
            out[O_CUT + rel(seat)] = card + 1
    out[O_DOGS_LIFE_USED] = obs.dogs_life_used
    k = cards_in_hand(hand_no)
    out[O_LAST_TRICK] = obs.phase == Phase.PLAY and sum(obs.tricks) == k - 1
    dealt = k * (len(deal["seats"]) - len(deal["dogs"])) + len(deal["dogs"])
    out[O_STOCK_LEFT] = 52 - dealt - (hand_no == 1) - sum(e or 0 for e in obs.exchanged)
    for i, name in enumerate(FLAG_OPTIONS):
        out[O_OPTIONS + i] = obs.options[name]
    return out
