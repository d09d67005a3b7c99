"""Compiled whole-hand playouts: hands from seeds to the end without returning to Python (private).

The hands are split into chunks, which threads may play at once (``sim.batch_base.play_spread``).
Each thread plays in scratch rows (lanes) of its own, and each chunk writes only its
own hands' slots of the output arrays, so nothing is shared between threads.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import CRC_XOR_OUT, U64, agent_seed, below
from sim.knorri.compiled import state
from sim.knorri.compiled.history import FREE_SLOT, history_capacity, slot_table_size
from sim.knorri.compiled.kernels import (
    apply_action,
    continue_past_cutoff,
    copy_position,
    init_hand,
    init_hand_uniform,
    legal_actions,
)
from sim.knorri.compiled.policies import PROTOCOL, RANDOM, decide
from sim.knorri.compiled.state import Position, PositionRows
from sim.knorri.compiled.uniform import TRICK_SCRATCH, Lane, play_pair, plays_the_rules, ready
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


@njit(**config.PASTED_KERNEL)
def _seed_streams(deals, h, rng):
    """Hand ``h``'s own stream and each seat's, from its seed."""
    seed = U64(deals.seeds[h])
    rng[state.RNG_DEAL] = seed
    for s in range(deals.n_seats):
        rng[state.RNG_SEAT + s] = agent_seed(seed, s)


@njit(**config.PASTED_KERNEL)
def _begin(deals, h, out, rules, root, lane):
    """Deal hand ``h`` (or copy the ``root``) into the lane and play it on until the uniform loop can take it;
    return whether it waits for that loop (a hand that does not is over)."""
    n_seats, policies, position = deals.n_seats, deals.policies, lane.position
    ints, rng = position.ints, position.rng
    _seed_streams(deals, h, rng)
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
    _play_on(position, lane.legal, policies[h], out.log, out.log_offsets[h] if logging else np.int64(0),
             np.int64(h), uniform)
    lane.waiting[0], lane.waiting[1] = h, streams
    return ints[state.I_END_REASON] < 0


@njit(**config.PASTED_KERNEL)
def _finish(deals, out, rules, lane):
    """Write the results of the lane's hand, and with ``rules.continued_cap`` of 0 or more play a cut-off hand on
    and write its results at its final end too; the lane is then free."""
    h, n_seats, position = lane.waiting[0], deals.n_seats, lane.position
    cards, ints = position.cards, position.ints
    store_result(out.results, h, ints, cards, state.C_HAND, n_seats)
    if rules.continued_cap >= 0:
        if ints[state.I_END_REASON] != state.END_OUT:
            continue_past_cutoff(cards, ints, rules.continued_cap)
            logging = out.log.shape[0] > 0
            # not uniform; said as a value (False here), not the literal, which numba would compile _play_on for again
            _play_on(position, lane.legal, deals.policies[h], out.log,
                     out.log_offsets[h] if logging else np.int64(0), h, rules.continued_cap < 0)
        store_result(out.continued, h, ints, cards, state.C_HAND, n_seats)
    lane.waiting[0] = -1


@njit(**config.PASTED_KERNEL)
def _play_opening(position, legal, streams):
    """Play a uniform hand on until ``play_pair`` can take it (``ready``), drawing as ``policies.decide`` does: seat
    s from ``rng[(RNG_SEAT + s) & streams]``."""
    cards, ints, rng = position.cards, position.ints, position.rng
    while ints[state.I_END_REASON] < 0 and not ready(ints):
        n_legal = legal_actions(cards, ints, legal)
        apply_action(position, legal[below(rng, (state.RNG_SEAT + ints[state.I_TO_MOVE]) & streams, n_legal)])


@njit(**config.PASTED_KERNEL)
def _begin_uniform(deals, h, out, rules, root, lane):
    """``_begin`` for ``play_uniform_chunk``: deal hand ``h`` and play phase 1 and the opening with the uniform draws
    its policies would make, without the policies' dispatcher, the log or a root; return whether it waits."""
    position = lane.position
    cards, ints, rng = position.cards, position.ints, position.rng
    _seed_streams(deals, h, rng)
    streams, _ = _uniform_streams(deals.policies[h], deals.n_seats)
    position.slots[:] = FREE_SLOT
    init_hand_uniform(cards, ints, position.deck, rng, position.keys, position.records, position.slots,
                      deals.n_seats, deals.first_seats[h], rules.cap, rules.repeat, U64(streams))
    _play_opening(position, lane.legal, streams)
    lane.waiting[0], lane.waiting[1] = h, streams
    return ints[state.I_END_REASON] < 0


@njit(**config.PASTED_KERNEL)
def _finish_uniform(deals, out, rules, lane):
    """``_finish`` for ``play_uniform_chunk``: no hand plays on past a cut."""
    store_result(out.results, lane.waiting[0], lane.position.ints, lane.position.cards, state.C_HAND, deals.n_seats)
    lane.waiting[0] = -1


class Lanes(NamedTuple):
    """The working arrays of a number of lanes, stacked: lane i's are entry i of each (``lane``). ``waiting[i]``
    holds lane i's hand (-1: none) and its streams mask."""

    cards: np.ndarray
    ints: np.ndarray
    deck: np.ndarray
    rng: np.ndarray
    keys: np.ndarray
    records: np.ndarray
    slots: np.ndarray
    trick: np.ndarray
    legal: np.ndarray
    waiting: np.ndarray


LANES_PER_CHUNK = 2  # ``play_pair`` plays two hands side by side


def new_lanes(cap: int, repeat: int) -> Lanes:
    """Working arrays for the lanes a chunk kernel plays in (``play_chunk``, ``play_uniform_chunk``), for hands
    under these cut-off rules: made here, in Python, so that no kernel is compiled only to allocate them."""
    count, rows = LANES_PER_CHUNK, history_capacity.py_func(cap, repeat)
    return Lanes(np.zeros((count, state.NUM_CARD_FIELDS), dtype=np.uint64),
                 np.zeros((count, state.NUM_INT_FIELDS), dtype=np.int64), np.zeros((count, 52), dtype=np.int64),
                 np.zeros((count, state.NUM_RNG), dtype=np.uint64), np.zeros((count, rows), dtype=np.uint64),
                 np.zeros((count, rows, state.RECORD_SIZE), dtype=np.uint64),
                 np.empty((count, slot_table_size.py_func(cap, repeat)), dtype=np.int16),
                 np.zeros((count, TRICK_SCRATCH), dtype=np.uint8), np.zeros((count, NUM_ACTIONS), dtype=np.int64),
                 np.full((count, 2), -1, dtype=np.int64))


@njit(**config.PASTED_KERNEL)
def lane(lanes, i):
    """Lane ``i`` of ``Lanes``, as ``play_pair`` takes it."""
    position = Position(lanes.cards[i], lanes.ints[i], lanes.deck[i], lanes.rng[i], lanes.keys[i], lanes.records[i],
                        lanes.slots[i])
    return Lane(position, lanes.trick[i], lanes.legal[i], lanes.waiting[i])


@njit(**config.PASTED_KERNEL)
def _play_alone(lone, twin):
    """Play the ``lone`` lane's hand to its end, the free ``twin`` lane playing a copy of it alongside: one loop,
    ``play_pair``, then serves every hand, and no second loop is compiled for one hand a chunk."""
    copy_position(lone.position, twin.position)
    for i in range(lone.position.rng.shape[0]):
        twin.position.rng[i] = lone.position.rng[i]
    twin.waiting[1] = lone.waiting[1]
    play_pair(lone, twin)


@njit(**config.PASTED_KERNEL)
def _serve_lanes(deals, start, stop, out, rules, root, lanes, begin, finish):
    """Play hands ``start`` to ``stop - 1`` in the first two of ``lanes``, each started by ``begin`` and written by
    ``finish`` (``_begin`` and ``_finish``, or their uniform forms).

    Each lane holds one hand at a time. Whenever both hands wait for the uniform loop,
    ``play_pair`` plays them side by side; once the hands run out, the last plays alone. A hand
    that does not wait (not uniform random, logged, or over before phase 2) is played by
    ``begin`` alone. Every hand's results are those it has when played alone.
    """
    lanes = (lane(lanes, 0), lane(lanes, 1))
    h = start
    while True:
        ended = 0  # a bit per lane whose hand is over
        for i in range(2):
            if lanes[i].waiting[0] < 0 and h < stop:
                if not begin(deals, h, out, rules, root, lanes[i]):
                    ended |= 1 << i
                h += 1
        if ended == 0:
            first, second = lanes[0].waiting[0] >= 0, lanes[1].waiting[0] >= 0
            if first and second:
                ended = play_pair(lanes[0], lanes[1])
            elif first:
                _play_alone(lanes[0], lanes[1])
                ended = 1
            elif second:
                _play_alone(lanes[1], lanes[0])
                ended = 2
            else:
                return
        for i in range(2):
            if ended & (1 << i):
                finish(deals, out, rules, lanes[i])


@njit(**config.STEP_KERNEL)
def play_chunk(deals, start, stop, out, rules, root, lanes):
    """Play hands ``start`` to ``stop - 1`` of the ``Deals`` to the end in ``lanes`` (``new_lanes``);
    entry h of each of ``out.results``' arrays (``RESULT_FIELDS``) gets hand h's result. Several threads may play
    disjoint chunks at once, each in lanes of its own (``sim.batch_base.play_spread``).

    Hand h's own stream starts at ``seeds[h]`` and seat s's at ``agent_seed(seeds[h], s)``. With an empty ``root``
    (``PositionRows``) each hand is dealt from its seed; otherwise every hand starts from that one position with the
    positions it remembers (rollouts). ``out.log`` has one row per decision or no rows. Hands dealt from seeds play
    under ``rules``; from a position, under the position's own. With a ``rules.continued_cap`` of 0 or more, a hand
    cut off plays on (``continue_past_cutoff``) and ``out.continued`` gets every hand's result at its final end
    (``log_offsets`` then leave room for the continued decisions).
    """
    if root.cards.shape[0] > 0:  # the position's own rules
        rules = CutOffRules(root.ints[state.I_CAP], root.ints[state.I_REPEAT], rules.continued_cap)
    _serve_lanes(deals, start, stop, out, rules, root, lanes, _begin, _finish)


@njit(**config.STEP_KERNEL)
def play_uniform_chunk(deals, start, stop, out, rules, root, lanes):
    """``play_chunk`` for hands that ``plays_uniformly``: it compiles in about half the time, as it leaves out
    the policies, the log and the hands that play on past a cut."""
    _serve_lanes(deals, start, stop, out, rules, root, lanes, _begin_uniform, _finish_uniform)


def plays_uniformly(policies: np.ndarray, logged: bool, rules: CutOffRules, root: PositionRows) -> bool:
    """Whether ``play_uniform_chunk`` can play these hands: each hand's seats all ``RANDOM`` or all ``PROTOCOL``
    (``policies``: int8[H, seats]), unlogged, dealt from seeds under the rules as written, none playing on."""
    uniform_rows = (policies == policies[:, :1]).all() and np.isin(policies[:, 0], (RANDOM, PROTOCOL)).all()
    return bool(uniform_rows and not logged and rules.continued_cap < 0 and root.cards.shape[0] == 0
                and plays_the_rules.py_func(rules.cap, rules.repeat))
