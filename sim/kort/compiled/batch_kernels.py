"""Compiled kernels behind ``KortBatch`` (private): legal masks, checking and stepping a batch, and observations
written at the offsets of ``tensor.OBSERVATION_FIELDS``, the numbers ``tensor.encode_observation`` gives."""

from __future__ import annotations

import sys

from numba import njit

from sim import config
from sim.choice_kernels import batch_kernels
from sim.compiled_bits import mark_cards, popcount
from sim.kort.compiled import kernels
from sim.kort.compiled.kernels import apply_action, uniform_action
from sim.kort.compiled.playout import RANDOM, copy_round_record
from sim.kort.compiled.state import (
    C_HAND,
    C_PLAYED,
    I_BAVAN_TEAM,
    I_DEAL_NO,
    I_END_REASON,
    I_HOLDER,
    I_LEAD_STATE,
    I_LEADER,
    I_LED_SUIT,
    I_PHASE,
    I_ROUND_NO,
    I_ROUNDS_PLAYED,
    I_TARGET,
    I_THIRTEENTH,
    I_TO_MOVE,
    I_TRICK_CARD,
    I_TRICK_NO,
    I_TRICKS,
    I_TRUMP,
    I_TRUMP_CHOICE,
    I_VOTE,
    I_WINS,
    RNG_DEAL,
    RNG_SEAT,
)
from sim.kort.encoding import BAVAN_YES, NUM_SEATS, TRUMP_13
from sim.kort.tensor import (
    NUM_KINDS,
    O_BAVAN,
    O_COUNTS,
    O_DEAL_NO,
    O_HOLDER,
    O_LEAD_KIND,
    O_LED,
    O_OWN,
    O_OWN_VOTE,
    O_PHASE,
    O_PLAYED,
    O_ROUND_NO,
    O_TARGET,
    O_THIRTEENTH,
    O_TRICK,
    O_TRICK_LEADER,
    O_TRICK_NO,
    O_TRICKS,
    O_TROP_MADE,
    O_TROP_OF,
    O_TRUMP,
    O_TRUMP_13,
    O_WINS,
)


@njit(**config.STEP_KERNEL)
def batch_step(cards, ints, decks, rngs, rounds, actions):
    """Apply ``actions[g]`` to every match g not yet over (the caller has checked them all); a round that
    ends is copied into ``rounds[g]`` (``int16[B, R, ROUND_FIELDS]``)."""
    for g in range(ints.shape[0]):
        if ints[g, I_END_REASON] < 0:
            recorded = ints[g, I_ROUNDS_PLAYED]
            apply_action(cards[g], ints[g], decks[g], rngs[g], actions[g])
            copy_round_record(ints[g], rounds[g], recorded)


@njit(**config.STEP_KERNEL)
def batch_decide(cards, ints, rngs, policies, out):
    """``out[g]``: the action compiled policy ``policies[g, seat]`` (``playout.RANDOM``: uniform from the seat's
    own stream) takes in match g for its seat to move; -1 where the match is over or that seat's entry is -1 (no
    policy: an agent plays it)."""
    for g in range(ints.shape[0]):
        out[g] = -1
        seat = ints[g, I_TO_MOVE]
        if ints[g, I_END_REASON] < 0 and seat >= 0 and policies[g, seat] >= 0:
            out[g] = uniform_action(cards[g], ints[g], rngs[g], RNG_SEAT + seat)


@njit(**config.STEP_KERNEL)
def batch_play_others(cards, ints, decks, rngs, rounds, policies, seat):
    """In every match, let each seat but ``seat`` take its compiled policy's choices until ``seat`` is to move or the
    match is over: ``policies[s]`` is ``RANDOM`` (the seat's own stream) or ``PROTOCOL`` (the match's)."""
    for g in range(ints.shape[0]):
        while ints[g, I_END_REASON] < 0 and ints[g, I_TO_MOVE] != seat:
            mover = ints[g, I_TO_MOVE]
            stream = RNG_SEAT + mover if policies[mover] == RANDOM else RNG_DEAL
            recorded = ints[g, I_ROUNDS_PLAYED]
            apply_action(cards[g], ints[g], decks[g], rngs[g], uniform_action(cards[g], ints[g], rngs[g], stream))
            copy_round_record(ints[g], rounds[g], recorded)


@njit(**config.INLINED_KERNEL)
def observe_seat(row_c, row_i, seat, o):
    """Write a live match's observation from ``seat``'s point of view into ``o`` (zeroed): the row
    ``batch_observe`` writes for each match."""
    team = seat % 2
    mark_cards(o, O_OWN, row_c[C_HAND + seat])
    mark_cards(o, O_PLAYED, row_c[C_PLAYED])
    for other in range(NUM_SEATS):
        k = (other - seat) % NUM_SEATS
        card = row_i[I_TRICK_CARD + other]
        if card >= 0:
            o[O_TRICK + k * 52 + card] = 1.0
        o[O_COUNTS + k] = popcount(row_c[C_HAND + other])
    o[O_TRICK_LEADER + (row_i[I_LEADER] - seat) % NUM_SEATS] = 1.0
    if row_i[I_LED_SUIT] >= 0:
        o[O_LED + row_i[I_LED_SUIT]] = 1.0
    if row_i[I_TRUMP] >= 0:
        o[O_TRUMP + row_i[I_TRUMP]] = 1.0
    if row_i[I_TRUMP_CHOICE] == TRUMP_13:
        o[O_TRUMP_13] = 1.0
    if row_i[I_THIRTEENTH] >= 0:
        o[O_THIRTEENTH + row_i[I_THIRTEENTH]] = 1.0
    o[O_HOLDER + (row_i[I_HOLDER] - seat) % NUM_SEATS] = 1.0
    o[O_PHASE + row_i[I_PHASE]] = 1.0
    for t in range(2):
        k = (t - team) % 2
        state = row_i[I_LEAD_STATE + t]
        o[O_TRICKS + k] = row_i[I_TRICKS + t]
        o[O_LEAD_KIND + k * NUM_KINDS + (state & 7)] = 1.0
        o[O_TROP_MADE + k] = (state >> 3) & 7
        o[O_TROP_OF + k] = state >> 6
        o[O_WINS + k] = row_i[I_WINS + t]
    if row_i[I_BAVAN_TEAM] >= 0:
        o[O_BAVAN + (row_i[I_BAVAN_TEAM] - team) % 2] = 1.0
    vote = row_i[I_VOTE + seat]  # the seat's own vote only: a partner's stays hidden
    if vote >= 0:
        o[O_OWN_VOTE + vote - BAVAN_YES] = 1.0
    o[O_TARGET] = row_i[I_TARGET]
    o[O_ROUND_NO] = row_i[I_ROUND_NO]
    o[O_DEAL_NO] = row_i[I_DEAL_NO]
    o[O_TRICK_NO] = row_i[I_TRICK_NO]


# The legal masks, the first illegal action and the loop over the matches to observe, as every engine of
# ``choices`` has them (``sim.choice_kernels``); ``batch_legal_mask``'s scratch ``legal`` is an int64[63].
batch_legal_mask, batch_first_illegal, batch_observe = batch_kernels(
    kernels, sys.modules[__name__], I_TO_MOVE, I_END_REASON, "kort")
