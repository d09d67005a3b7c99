"""Compiled whole-hand playouts: hands from seeds to the end without returning to Python (private).

The hands are split into chunks and the chunks spread over cores with ``prange``.
Each chunk owns its scratch rows and writes only its own hands' slots of the
output arrays, so nothing is shared between threads.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

from sim import config
from sim.fast_bits import U64, agent_seed
from sim.knorri.encoding import NUM_ACTIONS
from sim.knorri.fast import apply_action, copy_position, init_hand
from sim.knorri.fast_history import FREE_SLOT, HISTORY_CAPACITY, SLOT_TABLE_SIZE
from sim.knorri.fast_policies import PROTOCOL, RANDOM, decide
from sim.knorri.fast_state import (
    C_HAND,
    I_CRC,
    I_CYCLE,
    I_DECISIONS,
    I_END_REASON,
    I_LOSER,
    I_OPENING,
    I_PHASE,
    I_PHASE2_ACTIONS,
    I_PILE,
    I_REDEALS,
    I_SCORE,
    I_TO_MOVE,
    I_TRICKS_COMPLETED,
    NUM_CARD_FIELDS,
    NUM_RNG,
    RECORD_SIZE,
    RNG_DEAL,
    RNG_SEAT,
)
from sim.knorri.fast_uniform import play_one, play_two

_TWO_LANES = os.environ.get("KNORRI_LANES", "2") == "2"
LOG_FIELDS = 5  # hand index, step, seat, phase, action


@njit(**config.STEP_KERNEL)
def _play_on(cards, ints, deck, rng, keys, records, slots, legal, policies, log, log_row, hand_index, uniform):
    """Play one hand on, each decision from the seat's policy, logging it if ``log`` has room; to its end, or with
    ``uniform`` only up to the first ordinary phase-2 action (after the opening), where ``fast_uniform`` goes on."""
    step = 0
    logging = log.shape[0] > 0
    while ints[I_END_REASON] < 0 and not (uniform and ints[I_PHASE] == 2 and ints[I_OPENING] == 0):
        seat = ints[I_TO_MOVE]
        action = decide(policies[seat], seat, cards, ints, rng, legal)
        if logging:
            row = log[log_row + step]
            row[0] = hand_index
            row[1] = step
            row[2] = seat
            row[3] = ints[I_PHASE]
            row[4] = action
        apply_action(cards, ints, deck, rng, keys, records, slots, action)
        step += 1


@njit(**config.STEP_KERNEL)
def _uniform_streams(policies, n_seats, streams):
    """Whether every seat plays RANDOM, or every seat PROTOCOL; if so seat s draws from ``rng[streams[0] + s *
    streams[1]]`` (its own stream, or the hand's)."""
    for s in range(n_seats):
        if policies[s] != policies[0]:
            return False
    streams[0], streams[1] = (RNG_SEAT, 1) if policies[0] == RANDOM else (RNG_DEAL, 0)
    return policies[0] == RANDOM or policies[0] == PROTOCOL


@njit(**config.STEP_KERNEL)
def _next_hand(first, stop, n_seats, seeds, first_seats, policies, ints_out, held_out, log, log_offsets,
               cards0, ints0, deck0, keys0, records0, cards, deck, rng, keys, records, slots, legal, streams):
    """Start hands ``first``, ``first + 1`` ... in one lane's rows; return the first that ``fast_uniform`` can play
    on (-1 if none is left before ``stop``). Hands it cannot (another policy, a logged run) are played to the end
    here, and so are those that end before their first ordinary phase-2 action."""
    logging = log.shape[0] > 0
    for h in range(first, stop):
        seed = U64(seeds[h])
        rng[RNG_DEAL] = seed
        for s in range(n_seats):
            rng[RNG_SEAT + s] = agent_seed(seed, s)
        ints = ints_out[h]
        if cards0.shape[0] > 0:
            copy_position(cards0, ints0, deck0, keys0, records0, cards, ints, deck, keys, records, slots)
        else:
            slots[:] = FREE_SLOT
            init_hand(cards, ints, deck, rng, keys, records, slots, n_seats, first_seats[h])
        uniform = _uniform_streams(policies[h], n_seats, streams) and not logging
        _play_on(cards, ints, deck, rng, keys, records, slots, legal, policies[h], log,
                 log_offsets[h] if logging else np.int64(0), np.int64(h), uniform)
        if ints[I_END_REASON] < 0:
            return h
        _keep_hands(cards, held_out, h, n_seats)
    return -1


@njit(**config.STEP_KERNEL)
def _keep_hands(cards, held_out, h, n_seats):
    for s in range(n_seats):
        held_out[h, s] = cards[C_HAND + s]


@njit(**config.KERNEL)
def _play_chunk(n_seats, seeds, first_seats, policies, start, stop, ints_out, held_out, log, log_offsets,
                cards0, ints0, deck0, keys0, records0):
    """Play hands ``start`` to ``stop - 1`` of ``play_hands`` in two lanes of scratch rows.

    Each lane holds one hand; ``fast_uniform.play_two`` plays the two lanes' hands together until
    one ends, and that lane takes the next hand. The last hand finishes alone.
    """
    cards = np.zeros((2, NUM_CARD_FIELDS), dtype=np.uint64)
    deck = np.zeros((2, 52), dtype=np.int64)
    rng = np.zeros((2, NUM_RNG), dtype=np.uint64)
    keys = np.zeros((2, HISTORY_CAPACITY), dtype=np.uint64)
    records = np.zeros((2, HISTORY_CAPACITY, RECORD_SIZE), dtype=np.uint64)
    slots = np.empty((2, SLOT_TABLE_SIZE), dtype=np.int16)
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    streams = np.zeros((2, 2), dtype=np.int64)
    hands = np.full(2, -1, dtype=np.int64)
    following = start
    for lane in range(2):
        hands[lane] = _next_hand(following, stop, n_seats, seeds, first_seats, policies, ints_out, held_out, log,
                                 log_offsets, cards0, ints0, deck0, keys0, records0, cards[lane], deck[lane],
                                 rng[lane], keys[lane], records[lane], slots[lane], legal, streams[lane])
        following = max(following, hands[lane] + 1) if hands[lane] >= 0 else stop
    while True:
        if _TWO_LANES and hands[0] >= 0 and hands[1] >= 0:
            ended = play_two(cards[0], ints_out[hands[0]], deck[0], rng[0], keys[0], records[0], slots[0],
                             streams[0], cards[1], ints_out[hands[1]], deck[1], rng[1], keys[1], records[1],
                             slots[1], streams[1])
        elif hands[0] >= 0 or hands[1] >= 0:
            ended = 0 if hands[0] >= 0 else 1
            play_one(cards[ended], ints_out[hands[ended]], deck[ended], rng[ended], keys[ended], records[ended],
                     slots[ended], streams[ended])
        else:
            return
        _keep_hands(cards[ended], held_out, hands[ended], n_seats)
        hands[ended] = _next_hand(following, stop, n_seats, seeds, first_seats, policies, ints_out, held_out, log,
                                  log_offsets, cards0, ints0, deck0, keys0, records0, cards[ended], deck[ended],
                                  rng[ended], keys[ended], records[ended], slots[ended], legal, streams[ended])
        following = hands[ended] + 1 if hands[ended] >= 0 else stop


@njit(**config.PARALLEL_KERNEL)
def play_hands(n_seats, seeds, first_seats, policies, n_chunks, ints_out, held_out, log, log_offsets,
               cards0, ints0, deck0, keys0, records0):
    """Play ``len(seeds)`` hands to the end; ``ints_out[h]`` gets hand h's final ints row, ``held_out[h]`` its hands.

    Hand h's own stream starts at ``seeds[h]`` and seat s's at ``agent_seed(seeds[h], s)``;
    ``policies[h, s]`` is seat s's policy. With an empty ``cards0`` each hand is dealt
    from its seed (first seat ``first_seats[h]``); otherwise every hand starts from the
    one position ``cards0, ints0, deck0`` with the history ``keys0, records0`` (rollouts).
    ``log`` has one row per decision (``log_offsets[h]`` is hand h's first) or no rows.

    The parallel kernel only splits the work: numba's prange pass is slow to compile
    over anything more, and every compiled entry point re-optimises the whole engine
    it links, so playouts and rollouts share this one.
    """
    total = seeds.shape[0]
    for chunk in prange(n_chunks):
        _play_chunk(n_seats, seeds, first_seats, policies, chunk * total // n_chunks,
                    (chunk + 1) * total // n_chunks, ints_out, held_out, log, log_offsets,
                    cards0, ints0, deck0, keys0, records0)


RESULT_COLUMNS = {
    "redeals": I_REDEALS,
    "reason": I_END_REASON,
    "phase2_actions": I_PHASE2_ACTIONS,
    "decisions": I_DECISIONS,
    "crc_register": I_CRC,
    "loser": I_LOSER,
    "tricks_completed": I_TRICKS_COMPLETED,
    "cycle_length": I_CYCLE,
    "score": I_SCORE,
    "pile": I_PILE,
}
"""Where each per-hand result sits in a final ints row (``score`` and ``pile`` start a per-seat block)."""
