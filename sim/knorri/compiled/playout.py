"""Compiled whole-hand playouts: hands from seeds to the end without returning to Python (private).

The hands are split into chunks and the chunks spread over cores with ``prange``.
Each chunk owns its scratch rows and writes only its own hands' slots of the
output arrays, so nothing is shared between threads.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from sim import config
from sim.compiled_bits import CRC_XOR_OUT, U64, agent_seed
from sim.knorri.compiled import state
from sim.knorri.compiled.history import FREE_SLOT, history_capacity, slot_table_size
from sim.knorri.compiled.kernels import (
    apply_action,
    continue_past_cutoff,
    copy_position,
    init_hand,
    init_hand_uniform,
)
from sim.knorri.compiled.policies import PROTOCOL, RANDOM, decide
from sim.knorri.compiled.state import Position, PositionRows
from sim.knorri.compiled.uniform import TRICK_SCRATCH, Lane, play_one, play_pair, plays_the_rules, ready
from sim.knorri.encoding import NUM_ACTIONS

RESULT_FIELDS = (
    ("redeals", np.int64, False),
    ("reason", np.int8, False),
    ("phase2_actions", np.int64, False),
    ("decisions", np.int64, False),
    ("crc32", np.uint32, False),
    ("scores", np.int64, True),
    ("loser", np.int64, False),
    ("tricks_completed", np.int64, False),
    ("piles_after_phase1", np.int64, True),
    ("held_at_end", np.uint64, True),
    ("cycle_length", np.int64, False),
    ("cycle_start", np.int64, False),
    ("cycle_choices", np.int64, False),
    ("cycle_log2_paths", np.float64, False),
    ("cycle_seats", np.int64, False),
)
"""The per-hand results a playout writes, in the order of ``store_result``'s arrays: (name, dtype, one column per
seat); the names are ``batch.BatchResults``' fields."""


class Deals(NamedTuple):
    """The hands a playout plays: hand h is dealt from ``seeds[h]`` with first seat ``first_seats[h]``, and seat s
    plays ``policies[h, s]``."""

    n_seats: np.int64
    seeds: np.ndarray
    first_seats: np.ndarray
    policies: np.ndarray


class Outputs(NamedTuple):
    """Where a playout writes: each hand's results as the rules ended it (``RESULT_FIELDS``' arrays), the decision
    log (hand h's first row at ``log_offsets[h]``; no rows: no log), and every hand's results at its final end
    (``continued``, when hands cut off play on)."""

    results: tuple
    log: np.ndarray
    log_offsets: np.ndarray
    continued: tuple


class CutOffRules(NamedTuple):
    """The table's cut-off rules for hands dealt from seeds, and the cap of hands that play on past a cut
    (-1: none do)."""

    cap: np.int64
    repeat: np.int64
    continued_cap: np.int64


@njit(**config.INLINED_KERNEL)
def store_result(results, h, ints, hands, hands_start, n_seats):
    """Write entry ``h`` of every array of ``results`` (``RESULT_FIELDS``) from a hand's ints row and the cards each
    seat holds (``hands[hands_start + s]``): one pass over a hand's fields while they are in cache, instead of one
    pass over every hand per field afterwards."""
    (redeals, reason, phase2_actions, decisions, crc32, scores, loser, tricks, piles, held, cycle, cycle_start,
     cycle_choices, cycle_log2, cycle_seats) = results
    redeals[h] = ints[state.I_REDEALS]
    reason[h] = ints[state.I_END_REASON]
    phase2_actions[h] = ints[state.I_PHASE2_ACTIONS]
    decisions[h] = ints[state.I_DECISIONS]
    crc32[h] = ints[state.I_CRC] ^ CRC_XOR_OUT
    loser[h] = ints[state.I_LOSER]
    tricks[h] = ints[state.I_TRICKS_COMPLETED]
    cycle[h] = ints[state.I_CYCLE]
    cycle_start[h] = ints[state.I_CYCLE_START]
    cycle_choices[h] = ints[state.I_CYCLE_CHOICES]
    cycle_log2[h] = np.int64(ints[state.I_CYCLE_LOG2]).view(np.float64) if ints[state.I_CYCLE] >= 0 else -1.0
    cycle_seats[h] = ints[state.I_CYCLE_SEATS]
    for s in range(n_seats):
        scores[h, s] = ints[state.I_SCORE + s]
        piles[h, s] = ints[state.I_PILE + s]
        held[h, s] = hands[hands_start + s]


@njit(**config.KERNEL)
def gather_results(ints, hands, hands_start, n_seats, results):
    """``store_result`` for every row of ``ints`` (final or current ints rows), ``hands[h, hands_start + s]`` the
    cards seat s of hand h holds."""
    for h in range(ints.shape[0]):
        store_result(results, h, ints[h], hands[h], hands_start, n_seats)


@njit(**config.STEP_KERNEL)
def _play_on(position, legal, policies, log, log_row, hand_index, uniform):
    """Play one hand on, each decision from the seat's policy, logging it if ``log`` has room (its decision ``d``
    in row ``log_row + d``); to its end, or with ``uniform`` only until ``uniform`` can take it on
    (``uniform.ready``)."""
    cards, ints, rng = position.cards, position.ints, position.rng
    step = ints[state.I_DECISIONS]
    logging = log.shape[0] > 0
    while ints[state.I_END_REASON] < 0 and not (uniform and ready(ints)):
        seat = ints[state.I_TO_MOVE]
        action = decide(policies[seat], seat, cards, ints, rng, legal)
        if logging:
            state.log_decision(log[log_row + step], hand_index, step, seat, ints[state.I_PHASE], action)
        apply_action(position, action)
        step += 1


@njit(**config.STEP_KERNEL)
def _uniform_streams(policies, n_seats):
    """(streams mask, whether ``uniform`` can play the hand): it can if every seat plays RANDOM (mask all ones,
    -1 as int64: each seat its own stream) or every seat PROTOCOL (mask zero: the hand's stream)."""
    for s in range(n_seats):
        if policies[s] != policies[0]:
            return np.int64(-1), False
    return np.int64(-1 if policies[0] == RANDOM else 0), policies[0] == RANDOM or policies[0] == PROTOCOL


@njit(**config.STEP_KERNEL)
def _begin(deals, h, out, rules, root, position, legal):
    """Deal hand ``h`` (or copy the ``root``) into ``position`` and play it on until the uniform loop can take it:
    (its streams mask, whether it waits for that loop). A hand that does not wait is over."""
    n_seats, seeds, policies = deals.n_seats, deals.seeds, deals.policies
    ints, rng = position.ints, position.rng
    seed = U64(seeds[h])
    rng[state.RNG_DEAL] = seed
    for s in range(n_seats):
        rng[state.RNG_SEAT + s] = agent_seed(seed, s)
    streams, uniform = _uniform_streams(policies[h], n_seats)
    logging = out.log.shape[0] > 0
    uniform = uniform and not logging and plays_the_rules(rules.cap, rules.repeat)
    if root.cards.shape[0] > 0:
        copy_position(root, position)
    else:
        position.slots[:] = FREE_SLOT
        if uniform:
            init_hand_uniform(position.cards, ints, position.deck, rng, position.keys, position.records,
                              position.slots, n_seats, deals.first_seats[h], rules.cap, rules.repeat, U64(streams))
        else:
            init_hand(position.cards, ints, position.deck, rng, position.keys, position.records, position.slots,
                      n_seats, deals.first_seats[h], rules.cap, rules.repeat)
    _play_on(position, legal, policies[h], out.log, out.log_offsets[h] if logging else np.int64(0), np.int64(h),
             uniform)
    return U64(streams), ints[state.I_END_REASON] < 0


@njit(**config.STEP_KERNEL)
def _finish(deals, h, out, rules, position, legal):
    """Write hand ``h``'s results, and with ``rules.continued_cap`` of 0 or more play a cut-off hand on and write
    its results at its final end too."""
    n_seats, cards, ints = deals.n_seats, position.cards, position.ints
    store_result(out.results, h, ints, cards, state.C_HAND, n_seats)
    if rules.continued_cap >= 0:
        if ints[state.I_END_REASON] != state.END_OUT:
            continue_past_cutoff(cards, ints, rules.continued_cap)
            logging = out.log.shape[0] > 0
            _play_on(position, legal, deals.policies[h], out.log, out.log_offsets[h] if logging else np.int64(0),
                     np.int64(h), False)
        store_result(out.continued, h, ints, cards, state.C_HAND, n_seats)


@njit(**config.KERNEL)
def _new_position(cap, repeat):
    """A position's arrays for hands under these cut-off rules."""
    return Position(np.zeros(state.NUM_CARD_FIELDS, dtype=np.uint64), np.zeros(state.NUM_INT_FIELDS, dtype=np.int64),
                    np.zeros(52, dtype=np.int64), np.zeros(state.NUM_RNG, dtype=np.uint64),
                    np.zeros(history_capacity(cap, repeat), dtype=np.uint64),
                    np.zeros((history_capacity(cap, repeat), state.RECORD_SIZE), dtype=np.uint64),
                    np.empty(slot_table_size(cap, repeat), dtype=np.int16))


@njit(**config.KERNEL)
def play_chunk(deals, start, stop, out, rules, root):
    """Play hands ``start`` to ``stop - 1`` of ``play_hands``: on one core, called alone, as its parallel wrapper is
    slow to compile and gains nothing there."""
    if root.cards.shape[0] > 0:  # the position's own rules
        rules = CutOffRules(root.ints[state.I_CAP], root.ints[state.I_REPEAT], rules.continued_cap)
    lanes = (Lane(_new_position(rules.cap, rules.repeat), np.zeros(TRICK_SCRATCH, dtype=np.uint8), U64(0)),
             Lane(_new_position(rules.cap, rules.repeat), np.zeros(TRICK_SCRATCH, dtype=np.uint8), U64(0)))
    _play_in_pairs(deals, start, stop, out, rules, root, lanes, np.zeros(NUM_ACTIONS, dtype=np.int64))


@njit(**config.STEP_KERNEL)
def _play_in_pairs(deals, start, stop, out, rules, root, lanes, legal):
    """``play_chunk``'s hands, two in play at a time, each in its own lane: whenever both wait for the uniform
    loop, ``play_pair`` plays them side by side; the last one plays alone. Every hand's results are those it
    has when played alone."""
    first, second = lanes[0].position, lanes[1].position
    first_hand, second_hand = -1, -1  # the hand waiting in each lane (-1: none)
    first_streams, second_streams = U64(0), U64(0)
    h = start
    while True:
        while first_hand < 0 and h < stop:
            first_streams, waits = _begin(deals, h, out, rules, root, first, legal)
            if waits:
                first_hand = h
            else:
                _finish(deals, h, out, rules, first, legal)
            h += 1
        while second_hand < 0 and h < stop:
            second_streams, waits = _begin(deals, h, out, rules, root, second, legal)
            if waits:
                second_hand = h
            else:
                _finish(deals, h, out, rules, second, legal)
            h += 1
        if first_hand < 0 or second_hand < 0:
            break
        ended = play_pair(Lane(first, lanes[0].trick, first_streams), Lane(second, lanes[1].trick, second_streams))
        if ended & 1:
            _finish(deals, first_hand, out, rules, first, legal)
            first_hand = -1
        if ended & 2:
            _finish(deals, second_hand, out, rules, second, legal)
            second_hand = -1
    if first_hand >= 0:  # the hands have run out: the one left plays alone
        _play_alone(Lane(first, lanes[0].trick, first_streams))
        _finish(deals, first_hand, out, rules, first, legal)
    if second_hand >= 0:
        _play_alone(Lane(second, lanes[1].trick, second_streams))
        _finish(deals, second_hand, out, rules, second, legal)


@njit(**config.STEP_KERNEL)
def _play_alone(lane):
    """``play_one`` for a lane's hand."""
    p = lane.position
    play_one(p.cards, p.ints, p.deck, p.rng, p.keys, p.records, p.slots, lane.streams, lane.trick)


@njit(**config.PARALLEL_KERNEL)
def play_hands(deals, n_chunks, out, rules, root):
    """Play the ``Deals`` to the end; entry h of each of ``out.results``' arrays (``RESULT_FIELDS``) gets hand
    h's result.

    Hand h's own stream starts at ``seeds[h]`` and seat s's at ``agent_seed(seeds[h], s)``.
    With an empty ``root`` (``PositionRows``) each hand is dealt from its seed; otherwise every
    hand starts from that one position with the positions it remembers (rollouts).
    ``out.log`` has one row per decision or no rows. Hands dealt from seeds play under
    ``rules``; from a position, under the position's own. With a ``rules.continued_cap`` of 0
    or more, a hand cut off plays on (``continue_past_cutoff``) and ``out.continued`` gets every
    hand's result at its final end (``log_offsets`` then leave room for the continued decisions).

    The parallel kernel only splits the work: numba's prange pass is slow to compile
    over anything more, and every compiled entry point re-optimises the whole engine
    it links, so playouts and rollouts share this one.
    """
    # numba's prange passes only flat arguments to its threads: the records are taken apart here and made again
    # in each chunk.
    n_seats, seeds, first_seats, policies = deals.n_seats, deals.seeds, deals.first_seats, deals.policies
    results, log, log_offsets, continued = out.results, out.log, out.log_offsets, out.continued
    cap, repeat, continued_cap = rules.cap, rules.repeat, rules.continued_cap
    cards0, ints0, deck0, keys0, records0 = root.cards, root.ints, root.deck, root.keys, root.records
    total = seeds.shape[0]
    for chunk in prange(n_chunks):
        play_chunk(Deals(n_seats, seeds, first_seats, policies), chunk * total // n_chunks,
                   (chunk + 1) * total // n_chunks, Outputs(results, log, log_offsets, continued),
                   CutOffRules(cap, repeat, continued_cap), PositionRows(cards0, ints0, deck0, keys0, records0))
