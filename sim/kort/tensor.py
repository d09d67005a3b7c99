"""The observation tensor of Kort: its layout, and the same tensor from a reference observation.

The compiled batch writes this tensor for each match's acting seat
(``KortBatch.observation_tensor``); ``encode_observation`` builds it from a
``KortObservation`` of the reference engine, so an agent trained on batches can
play through the reference engine, and the tests can check that the compiled
tensor holds nothing the seat's observation does not: never another seat's hand
(the partner's included), the deck, or the partner's pending Bavan vote.

Seats are counted from the acting seat: "seat k" is the k-th seat after it in turn
order (k = 0 is the acting seat, k = 2 its partner); "team k" is its own team for
k = 0 and the other for k = 1. A finished match's tensor is all zeros.
"""

from __future__ import annotations

import numpy as np

from sim.cards import suit_of
from sim.kort.encoding import BAVAN_YES, NUM_SEATS, NUM_TEAMS, LeadKind, LeadState
from sim.kort.observation import KortObservation
from sim.tensor_layout import field_starts, layout

NUM_KINDS = len(LeadKind)
NUM_PHASES = 5  # trump, lead, declare, follow, vote (a finished match has no acting seat)

OBSERVATION_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("own_hand", 52, "the acting seat's cards, one flag per card id"),
    ("played", 52, "every card played in this deal, the current trick's included"),
    ("trick", NUM_SEATS * 52, "seat k's card in the current trick, 52 flags a seat"),
    ("trick_leader", NUM_SEATS, "the seat that leads (or led) the current trick, one-hot"),
    ("led_suit", 4, "the suit of the trick's first card, one-hot C D H S"),
    ("trump", 4, "trumps, one-hot C D H S (zero before the holder's choice)"),
    ("trump_13", 1, "1 if the holder chose \"13\""),
    ("thirteenth", 52, "the holder's 13th card after \"13\" (public), one-hot"),
    ("holder", NUM_SEATS, "the round's trump holder, one-hot"),
    ("phase", NUM_PHASES, "what the acting seat decides, one-hot: trump, lead, declare, follow, vote"),
    ("card_counts", NUM_SEATS, "cards held"),
    ("tricks", NUM_TEAMS, "tricks taken this round by team k"),
    ("lead_kind", NUM_TEAMS * NUM_KINDS, "team k's lead state, one-hot free, sar, sar_next, trop, trop_done"),
    ("trop_made", NUM_TEAMS, "team k's trump leads made in its Trop (0 outside one)"),
    ("trop_of", NUM_TEAMS, "the trump leads team k's Trop commits to: 3, 7 to the end (0 outside one)"),
    ("bavan", NUM_TEAMS, "1 for the team playing Bavan"),
    ("own_vote", 2, "the acting seat's own Bavan vote this round, one-hot yes, no"),
    ("wins", NUM_TEAMS, "team k's match wins"),
    ("target_wins", 1, "the match's target in wins"),
    ("round_no", 1, "the round being played, from 0"),
    ("deal_no", 1, "this round's deal: 0, then 1.. after redeals"),
    ("trick_no", 1, "tricks completed in this round"),
)
"""The observation tensor's layout: (name, width, meaning), in order."""

OBSERVATION_SLICES, OBSERVATION_SIZE, OBSERVATION_MEANINGS = layout(OBSERVATION_FIELDS)
"""The tensor's named slices (``tensor[..., OBSERVATION_SLICES["own_hand"]]``), its size and what each slice holds."""

O_OWN, O_PLAYED, O_TRICK, O_TRICK_LEADER, O_LED, O_TRUMP, O_TRUMP_13, O_THIRTEENTH, O_HOLDER, O_PHASE, O_COUNTS, \
    O_TRICKS, O_LEAD_KIND, O_TROP_MADE, O_TROP_OF, O_BAVAN, O_OWN_VOTE, O_WINS, O_TARGET, O_ROUND_NO, O_DEAL_NO, \
    O_TRICK_NO = field_starts(OBSERVATION_FIELDS)


def encode_observation(observation: KortObservation) -> np.ndarray:
    """The ``float32[OBSERVATION_SIZE]`` tensor of a reference observation (the batch writes the same numbers).

    It reads only the observation, so it can hold nothing the seat may not know.
    """
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs = observation
    if obs.done:
        return out

    def seat_k(seat: int) -> int:
        return (seat - obs.seat) % NUM_SEATS

    def team_k(team: int) -> int:
        return (team - obs.team) % NUM_TEAMS

    out[[O_OWN + card for card in obs.hand]] = 1
    this_deal = obs.log[max(i for i, event in enumerate(obs.log) if event["kind"] == "deal"):]
    out[[O_PLAYED + event["card"] for event in this_deal if event["kind"] == "play"]] = 1
    for seat, card in obs.trick:
        out[O_TRICK + seat_k(seat) * 52 + card] = 1
    out[O_TRICK_LEADER + seat_k(obs.leader)] = 1
    if obs.trick:
        out[O_LED + suit_of(obs.trick[0][1])] = 1
    if obs.trump is not None:
        out[O_TRUMP + obs.trump] = 1
    out[O_TRUMP_13] = obs.trump_13
    if obs.thirteenth is not None:
        out[O_THIRTEENTH + obs.thirteenth] = 1
    out[O_HOLDER + seat_k(obs.holder)] = 1
    out[O_PHASE + obs.phase] = 1
    for seat in range(NUM_SEATS):
        out[O_COUNTS + seat_k(seat)] = obs.card_counts[seat]
    for team in range(NUM_TEAMS):
        k = team_k(team)
        state = LeadState.from_text(obs.lead_states[team])
        out[O_TRICKS + k] = obs.tricks[team]
        out[O_LEAD_KIND + k * NUM_KINDS + state.kind] = 1
        out[O_TROP_MADE + k] = state.made
        out[O_TROP_OF + k] = state.of
        out[O_WINS + k] = obs.wins[team]
    if obs.bavan_team is not None:
        out[O_BAVAN + team_k(obs.bavan_team)] = 1
    if obs.own_vote is not None:
        out[O_OWN_VOTE + obs.own_vote - BAVAN_YES] = 1
    out[O_TARGET] = obs.options["target_wins"]
    out[O_ROUND_NO] = obs.round_no
    out[O_DEAL_NO] = obs.deal_no
    out[O_TRICK_NO] = obs.trick_no
    return out
