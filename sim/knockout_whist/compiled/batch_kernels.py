"""Compiled kernels behind ``KnockoutWhistBatch``: legal masks, checking and stepping a batch, observations (private).

The observation layout is ``tensor.OBSERVATION_FIELDS``; the kernel here writes by
the offsets derived from it, the same numbers ``tensor.encode_observation`` writes
from a reference observation.
"""

from __future__ import annotations

import sys

from numba import njit

from sim import config
from sim.choice_kernels import batch_kernels
from sim.compiled_bits import mark_cards, popcount
from sim.knockout_whist.compiled import kernels, state
from sim.knockout_whist.compiled.kernels import apply_action
from sim.knockout_whist.compiled.policies import policy_choice
from sim.knockout_whist.encoding import FLAG_OPTIONS
from sim.knockout_whist.tensor import (
    O_CHOOSER,
    O_COUNTS,
    O_CUT,
    O_DEALER,
    O_DOG,
    O_DOGS_LIFE_USED,
    O_EXCHANGED,
    O_FIRST_LEADER,
    O_HAND_NO,
    O_HAS_EXCHANGED,
    O_IN,
    O_LAST_TRICK,
    O_LED,
    O_OPTIONS,
    O_OUT,
    O_OUT_HAND,
    O_OWN,
    O_PHASE,
    O_PICKED,
    O_PLAYED,
    O_PRESENT,
    O_STOCK_LEFT,
    O_THROWN,
    O_TRICK,
    O_TRICK_LEADER,
    O_TRICKS,
    O_TRUMPS,
    O_TURNED,
)

NUM_FLAGS = len(FLAG_OPTIONS)


@njit(**config.STEP_KERNEL)
def batch_step(cards, ints, decks, rngs, actions):
    """Apply ``actions[g]`` to every game g not yet over (the caller has checked them all)."""
    for g in range(ints.shape[0]):
        if ints[g, state.I_END_REASON] < 0:
            apply_action(cards[g], ints[g], decks[g], rngs[g], actions[g])


@njit(**config.STEP_KERNEL)
def batch_decide(cards, ints, rngs, policies, out):
    """``out[g]``: the action compiled policy ``policies[g, seat]`` (``policies.RANDOM`` or ``GREEDY``) takes in
    game g for its seat to move; -1 where the game is over or that seat's entry is -1 (no policy: an agent plays it)."""
    for g in range(ints.shape[0]):
        out[g] = -1
        seat = ints[g, state.I_TO_MOVE]
        if ints[g, state.I_END_REASON] < 0 and seat >= 0 and policies[g, seat] >= 0:
            out[g] = policy_choice(policies[g, seat], cards[g], ints[g], rngs[g])


@njit(**config.STEP_KERNEL)
def batch_play_others(cards, ints, decks, rngs, policies, seat):
    """In every game, let each seat but ``seat`` take compiled policy ``policies[s]``'s choices until ``seat`` is to
    move or the game is over (a ``seat`` knocked out never moves again: its game is played to the end)."""
    for g in range(ints.shape[0]):
        while ints[g, state.I_END_REASON] < 0 and ints[g, state.I_TO_MOVE] != seat:
            action = policy_choice(policies[ints[g, state.I_TO_MOVE]], cards[g], ints[g], rngs[g])
            apply_action(cards[g], ints[g], decks[g], rngs[g], action)


@njit(**config.INLINED_KERNEL)
def observe_seat(row_c, row_i, seat, o):
    """Write a live game's observation from ``seat``'s point of view into ``o`` (zeroed): the row
    ``batch_observe`` writes for each game."""
    n = row_i[state.I_N_SEATS]
    mark_cards(o, O_OWN, row_c[state.C_HAND + seat])
    mark_cards(o, O_PICKED, row_c[state.C_PICKED])
    mark_cards(o, O_THROWN, row_c[state.C_THROWN + seat])
    mark_cards(o, O_PLAYED, row_c[state.C_PLAYED])
    if row_i[state.I_TURNED] >= 0:
        o[O_TURNED + row_i[state.I_TURNED]] = 1.0
    if row_i[state.I_TRICK_LEADER] >= 0:
        o[O_TRICK_LEADER + (row_i[state.I_TRICK_LEADER] - seat) % n] = 1.0
    if row_i[state.I_LED_SUIT] >= 0:
        o[O_LED + row_i[state.I_LED_SUIT]] = 1.0
    if row_i[state.I_TRUMPS] >= 0:
        o[O_TRUMPS + row_i[state.I_TRUMPS]] = 1.0
    hand_no = row_i[state.I_HAND_NO]
    o[O_HAND_NO + hand_no - 1] = 1.0
    o[O_PHASE + row_i[state.I_PHASE]] = 1.0
    o[O_DEALER + (row_i[state.I_DEALER] - seat) % n] = 1.0
    o[O_FIRST_LEADER + (row_i[state.I_LEADER] - seat) % n] = 1.0
    if row_i[state.I_CHOOSER] >= 0:
        o[O_CHOOSER + (row_i[state.I_CHOOSER] - seat) % n] = 1.0
    for other in range(n):
        k = (other - seat) % n
        action = row_i[state.I_TRICK_ACTION + other]
        if action >= 0:
            o[O_TRICK + k * 53 + action] = 1.0
        status = row_i[state.I_STATUS + other]
        o[O_PRESENT + k] = 1.0
        o[(O_IN if status == state.S_IN else O_DOG if status == state.S_DOG else O_OUT) + k] = 1.0
        o[O_OUT_HAND + k] = row_i[state.I_OUT_HAND + other]
        o[O_TRICKS + k] = row_i[state.I_TRICKS + other]
        o[O_COUNTS + k] = popcount(row_c[state.C_HAND + other])
        if row_i[state.I_EXCHANGED + other] >= 0:
            o[O_EXCHANGED + k] = row_i[state.I_EXCHANGED + other]
            o[O_HAS_EXCHANGED + k] = 1.0
        o[O_CUT + k] = row_i[state.I_CUT + other] + 1
    o[O_DOGS_LIFE_USED] = row_i[state.I_DOGS_LIFE_USED]
    o[O_LAST_TRICK] = row_i[state.I_LAST_TRICK]
    o[O_STOCK_LEFT] = 52 - row_i[state.I_STOCK_POS]
    flags = row_i[state.I_FLAGS]
    for i in range(NUM_FLAGS):
        o[O_OPTIONS + i] = (flags >> i) & 1


# The legal masks, the first illegal action and the loop over the games to observe, as every engine of
# ``choices`` has them (``sim.choice_kernels``); ``batch_legal_mask``'s scratch ``legal`` is an int64[59].
batch_legal_mask, batch_first_illegal, batch_observe = batch_kernels(
    kernels, sys.modules[__name__], state.I_TO_MOVE, state.I_END_REASON, "knockout_whist")
