"""Compiled whole-hand playouts: hands from seeds to the end without returning to Python (private).

The hands are split into chunks and the chunks spread over cores with ``prange``.
Each chunk owns its scratch rows and writes only its own hands' slots of the
output arrays, so nothing is shared between threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from sim import config
from sim.knorri.encoding import MAX_PHASE2_ACTIONS, NUM_ACTIONS
from sim.knorri.fast import apply_action, init_hand, legal_actions, reset_slots
from sim.knorri.fast_policies import choose
from sim.knorri.fast_state import (
    C_HAND,
    I_CRC,
    I_CYCLE,
    I_DECISIONS,
    I_END_REASON,
    I_LOSER,
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
    U64,
    agent_seed,
    derive_seed1,
)

HISTORY_CAPACITY = MAX_PHASE2_ACTIONS + 1  # positions a hand can remember: the start and one per action
SLOT_TABLE_SIZE = 4096  # a power of two, over twice HISTORY_CAPACITY: every probe chain stays short
FREE_SLOT = np.int16(HISTORY_CAPACITY)
LOG_FIELDS = 5  # hand index, step, seat, phase, action


@njit(**config.KERNEL)
def _play_to_end(cards, ints, deck, rng, keys, records, slots, legal, policies, log, log_row, hand_index):
    """Play one hand on to its end, each decision from the seat's policy; log it if ``log`` has room."""
    step = 0
    logging = log.shape[0] > 0
    while ints[I_END_REASON] < 0:
        n_legal = legal_actions(cards, ints, legal)
        seat = ints[I_TO_MOVE]
        action = choose(policies[seat], seat, legal, n_legal, cards, ints, rng)
        if logging:
            row = log[log_row + step]
            row[0] = hand_index
            row[1] = step
            row[2] = seat
            row[3] = ints[I_PHASE]
            row[4] = action
        apply_action(cards, ints, deck, rng, keys, records, slots, action)
        step += 1
    return step


@njit(**config.PARALLEL_KERNEL)
def play_hands(n_seats, seeds, first_seats, policies, n_chunks, ints_out, held_out, log, log_offsets):
    """Play ``len(seeds)`` hands; ``ints_out[h]`` gets hand h's final ints row, ``held_out[h]`` its hands.

    ``policies[h, s]`` is seat s's policy in hand h. ``log`` has one row per decision
    (``log_offsets[h]`` is hand h's first row) or no rows for no log.
    """
    total = seeds.shape[0]
    for chunk in prange(n_chunks):
        start = chunk * total // n_chunks
        stop = (chunk + 1) * total // n_chunks
        cards = np.zeros(NUM_CARD_FIELDS, dtype=np.uint64)
        deck = np.zeros(52, dtype=np.int64)
        rng = np.zeros(NUM_RNG, dtype=np.uint64)
        keys = np.zeros(HISTORY_CAPACITY, dtype=np.uint64)
        records = np.zeros((HISTORY_CAPACITY, RECORD_SIZE), dtype=np.uint64)
        slots = np.empty(SLOT_TABLE_SIZE, dtype=np.int16)
        legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
        for h in range(start, stop):
            slots[:] = FREE_SLOT
            seed = U64(seeds[h])
            rng[RNG_DEAL] = seed
            for s in range(n_seats):
                rng[RNG_SEAT + s] = agent_seed(seed, s)
            ints = ints_out[h]
            init_hand(cards, ints, deck, rng, keys, records, slots, n_seats, first_seats[h])
            row = log_offsets[h] if log.shape[0] > 0 else 0
            _play_to_end(cards, ints, deck, rng, keys, records, slots, legal, policies[h], log, row, h)
            for s in range(n_seats):
                held_out[h, s] = cards[C_HAND + s]


@njit(**config.PARALLEL_KERNEL)
def rollouts(cards0, ints0, deck0, keys0, records0, policies, seed, n_rollouts, n_chunks, scores_out):
    """Play ``n_rollouts`` copies of one hand to the end; rollout r draws from ``derive_seed(seed, r)``.

    Rollout r's hand stream is ``derive_seed(seed, r)`` and seat s's stream is
    ``agent_seed(derive_seed(seed, r), s)``, so a rollout depends on ``(seed, r)`` alone.
    """
    n_seats = scores_out.shape[1]
    for chunk in prange(n_chunks):
        start = chunk * n_rollouts // n_chunks
        stop = (chunk + 1) * n_rollouts // n_chunks
        cards = np.empty_like(cards0)
        ints = np.empty_like(ints0)
        deck = deck0.copy()
        rng = np.zeros(NUM_RNG, dtype=np.uint64)
        keys = np.zeros(HISTORY_CAPACITY, dtype=np.uint64)
        records = np.zeros((HISTORY_CAPACITY, RECORD_SIZE), dtype=np.uint64)
        legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
        slots = np.empty(SLOT_TABLE_SIZE, dtype=np.int16)
        no_log = np.zeros((0, LOG_FIELDS), dtype=np.int64)
        for r in range(start, stop):
            cards[:] = cards0
            ints[:] = ints0
            deck[:] = deck0
            remembered = keys0.shape[0]
            keys[:remembered] = keys0
            records[:remembered] = records0
            reset_slots(ints, keys, slots, FREE_SLOT)
            stream = derive_seed1(U64(seed), r)
            rng[RNG_DEAL] = stream
            for s in range(n_seats):
                rng[RNG_SEAT + s] = agent_seed(stream, s)
            _play_to_end(cards, ints, deck, rng, keys, records, slots, legal, policies, no_log, 0, r)
            for s in range(n_seats):
                scores_out[r, s] = ints[I_SCORE + s]


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
