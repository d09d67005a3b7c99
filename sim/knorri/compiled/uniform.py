"""Uniform random phase-2 play with the hand's changing state in registers (private; ``playout`` calls it).

Most of a random hand is ordinary phase-2 actions, so ``_step`` makes one with the fields that change held as
local values rather than ``ints``/``cards`` columns, so that they can stay in registers, and chooses between a play
and a pick-up without a branch. Anything rarer leaves the loop as an event (``EV_*``) made by the general path.
``play_pair`` steps two hands in turn, so that the CPU works on one while the other waits. The draws, the actions
and every result are those of ``policies.decide`` with the PROTOCOL or RANDOM policy followed by ``kernels.step``.
Which fields, and which events, are in docs/internals.md, ``sim.knorri.compiled.uniform``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sim import config
from sim.cards import NUM_CARDS
from sim.compiled_bits import ONE, U64, below, crc_byte, nth_card, popcount
from sim.knorri.compiled.history import SLOT_TABLE_SIZE, home_slot, is_remembered, meta_word, record_cycle, write_row
from sim.knorri.compiled.kernels import take_action
from sim.knorri.compiled.moves import cut_off, next_holding
from sim.knorri.compiled.state import (
    BEATERS,
    C_HAND,
    C_HANDS_HASH,
    C_TRICK_HI,
    C_TRICK_LO,
    END_CAP,
    END_REPEAT,
    I_CRC,
    I_DECISIONS,
    I_END_REASON,
    I_HIST_BASE,
    I_HIST_LEN,
    I_HOLDING,
    I_N_SEATS,
    I_NEEDED,
    I_OPENING,
    I_PHASE,
    I_PHASE2_ACTIONS,
    I_RUN_LEFT,
    I_SCORE,
    I_TO_MOVE,
    I_TRICK_LEN,
    I_TRICKS_COMPLETED,
    MOVER_KEY,
    R_META,
    RNG_DEAL,
    RNG_SEAT,
    STEP_ROW,
    ZOBRIST,
    Position,
    top_card,
    trick_card,
)
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS, PICK_UP

EV_NONE, EV_IRREVERSIBLE, EV_PROBE, EV_CAP = 0, 1, 2, 3
TRICK_SCRATCH = 2048  # the trick's cards from its bottom: pick-ups move the bottom up, at most once an action
SLOT_SHIFT = U64(64 - (SLOT_TABLE_SIZE.bit_length() - 1))  # a key's home slot (``home_slot``) as a constant shift
SLOT_MASK = U64(SLOT_TABLE_SIZE - 1)
LEAD = U64(NUM_CARDS)  # the top card of an empty trick: any card may be played on it, and nothing picked up
PLAYABLE_ON = np.append(BEATERS, ~U64(0))  # the cards that may be played on a top card (or on LEAD)
PICK_UPS_ON = np.array([1] * NUM_CARDS + [0], dtype=np.int64)  # whether a seat may pick up under a top card
assert RNG_DEAL == 0  # a seat's stream is (RNG_SEAT + seat) & streams: its own (all ones) or the hand's (zero)


@njit(**config.INLINED_KERNEL)
def _mask(flag):
    """All ones if ``flag``, else zero: a select without a branch."""
    return U64(0) - U64(flag)


@njit(**config.INLINED_KERNEL)
def ready(ints):
    """Whether ``play_pair`` can take the hand on: phase 2, the opening made, no opening run left in the trick."""
    return ints[I_END_REASON] < 0 and ints[I_PHASE] == 2 and ints[I_OPENING] == 0 and ints[I_RUN_LEFT] == 0


@njit(**config.INLINED_KERNEL)
def plays_the_rules(cap, repeat):
    """Whether ``play_pair`` plays a table with these cut-off rules: the rules as written (cap 1,500, the first
    return a repeat), which its loop holds as constants; any other table plays through ``kernels.step``."""
    return cap == MAX_PHASE2_ACTIONS and repeat == DEFAULT_REPEAT


@njit(**config.INLINED_KERNEL)
def load(cards, ints, streams, trick):
    """The loop's fields from the hand's rows, and what stays fixed until the next event.

    Fixed: the seat order (4 bits a seat: the next seat holding cards after it), seats holding
    cards, the streams mask (seat s draws from ``rng[(RNG_SEAT + s) & streams]``).
    """
    order = U64(0)
    for s in range(ints[I_N_SEATS]):
        order |= U64(next_holding(cards, ints, s)) << U64(4 * s)
    fixed = (order, ints[I_HOLDING], streams)
    length = ints[I_TRICK_LEN]
    for i in range(length):  # the trick as one card a byte, bottom first, from trick[0]
        trick[i] = trick_card(cards, i)
    top = U64(top_card(cards, ints)) if length > 0 else LEAD
    needed = ints[I_NEEDED] if length > 0 else ints[I_HOLDING]  # a lead needs a play per seat holding
    return fixed, (ints[I_TO_MOVE], length, needed, ints[I_PHASE2_ACTIONS], ints[I_CRC], np.int64(0),
                   cards[C_HANDS_HASH], top, ints[I_HIST_BASE])


@njit(**config.INLINED_KERNEL)
def _trick_words(trick, bottom, length):
    """The trick's two words (``C_TRICK_LO``, ``C_TRICK_HI``, as ``moves.append_to_trick`` packs them) from its
    cards in ``trick[bottom:bottom + length]``."""
    lo, hi = U64(0), U64(0)
    for i in range(length):
        value = U64(trick[U64(bottom + i)]) + ONE
        if i < 10:
            lo |= value << U64(6 * i)
        else:
            hi |= value << U64(6 * (i - 10))
    return lo, hi


@njit(**config.INLINED_KERNEL)
def store(cards, ints, state, trick):
    """Write the loop's fields back into the hand's rows, every position up to the last action remembered."""
    mover, length, needed, actions, crc, bottom, hashed, _, base = state
    cards[C_TRICK_LO], cards[C_TRICK_HI] = _trick_words(trick, bottom, length)
    ints[I_TRICK_LEN] = length
    ints[I_DECISIONS] += actions - ints[I_PHASE2_ACTIONS]  # every action of the loop is a decision
    ints[I_TO_MOVE] = mover
    ints[I_NEEDED] = needed
    ints[I_PHASE2_ACTIONS] = actions
    ints[I_CRC] = crc
    ints[I_HIST_BASE] = base
    ints[I_HIST_LEN] = actions - base + 1
    cards[C_HANDS_HASH] = hashed


@njit(**config.INLINED_KERNEL)
def _step(cards, ints, rng, keys, records, slots, trick, fixed, state):
    """One ordinary action of the seat to move: (event, action, the fields after it).

    ``EV_IRREVERSIBLE``: the chosen play empties the seat's hand; it is not made (the fields
    are as they were). ``EV_PROBE`` and ``EV_CAP``: the action is made, its position is not
    yet remembered (a position of the stretch has its key; or the hand reached the cap). A
    home slot taken by another key is probed on here, without leaving the loop.
    """
    order, holding, streams = fixed
    mover, length, needed, actions, crc, bottom, hashed, top, base = state
    # Every index below is unsigned: numba adds a wrap-around fix for a negative signed index, at every access.
    seat = U64(mover)
    hand = cards[U64(C_HAND) + seat]
    playable = hand & PLAYABLE_ON[top]
    n_cards = popcount(playable)
    k = below(rng, (U64(RNG_SEAT) + seat) & streams, n_cards + PICK_UPS_ON[top])
    pick = k == n_cards  # the legal ids are the playable cards ascending, then the pick-up
    pick_mask = _mask(pick)
    played = nth_card(playable, k)  # 64 on a pick-up: no card
    taken = np.int64(trick[U64(bottom)])  # the trick's bottom card
    card = U64(played ^ ((played ^ taken) & np.int64(pick_mask)))
    rest = hand ^ (ONE << card)  # never empty after a pick-up
    after = length + 1 - 2 * np.int64(pick)
    # ``needed`` is the seats holding whenever the trick is empty (``load``), as a lead needs a play from each.
    # One rare branch (none on the coin toss): the trick had fewer cards than it needs, so only a play
    # can make it complete; a lead never does (two or more seats hold cards).
    if (rest == 0) | (after == needed):
        if rest == 0:
            return EV_IRREVERSIBLE, played, state
        # The trick is complete: set aside, and the seat leads. Cards left play: a new stretch of history.
        cards[U64(C_HAND) + seat] = rest
        hashed ^= ZOBRIST[seat, card]
        actions += 1
        crc = crc_byte(crc, played)
        ints[I_TRICKS_COMPLETED] += 1
        state = (mover, np.int64(0), holding, actions, crc, np.int64(0), hashed, LEAD, actions)
        if actions >= MAX_PHASE2_ACTIONS:
            return EV_CAP, played, state
        write_row(cards, ints[I_N_SEATS], records, 0, U64(0), U64(0), meta_word(mover, 0, holding, 0, 0))
        key = hashed ^ MOVER_KEY[seat]
        keys[0] = key
        slots[U64(key >> SLOT_SHIFT)] = actions
        return EV_NONE, played, state
    cards[U64(C_HAND) + seat] = rest
    hashed ^= ZOBRIST[seat, card]
    action = np.int64(card) ^ ((np.int64(card) ^ PICK_UP) & np.int64(pick_mask))
    actions += 1
    crc = crc_byte(crc, action)
    trick[U64(bottom + length)] = card  # a play goes on top (a pick-up's card lands above the top: no harm)
    bottom += np.int64(pick)  # a pick-up takes the bottom card
    top = card ^ ((card ^ top) & pick_mask)  # a pick-up takes the bottom card: the top stays
    emptied = after == 0  # a pick-up of the trick's one card: the next seat leads
    top = LEAD if emptied else top
    needed = holding if emptied else needed
    mover = np.int64((order >> (U64(4) * seat)) & U64(15))
    state = (mover, after, needed, actions, crc, bottom, hashed, top, base)
    key = hashed ^ MOVER_KEY[U64(mover)]
    slot = U64(key >> SLOT_SHIFT)
    index = U64(actions - base)
    while U64(slots[slot] - base) < index:  # taken by a position of this stretch: probe on, as find_position
        if keys[U64(slots[slot] - base)] == key:  # the same key: ``_event`` compares the positions
            return EV_PROBE, action, state
        slot = (slot + ONE) & SLOT_MASK
    if actions >= MAX_PHASE2_ACTIONS:
        return EV_CAP, action, state
    keys[index] = key
    slots[slot] = actions
    records[index, R_META] = STEP_ROW | U64(action)
    return EV_NONE, action, state


@njit(**config.STEP_KERNEL)
def _seat_out(cards, ints, keys, records, slots, trick, fixed, state, card):
    """The seat to move plays its last ``card`` and goes out, three or more seats holding cards before it:
    (``EV_NONE`` or ``EV_CAP``, the fixed values and the fields after it), as ``kernels.step`` would play it.

    The seat scores the seats still holding; the trick is complete if the play was the last it
    needed; the next seat holding cards moves. A new stretch of history begins (a seat out never
    comes back), with the position as its full row, unless the hand reached the cap.
    """
    order, holding, streams = fixed
    mover, length, needed, actions, crc, bottom, hashed, top, base = state
    seat = U64(mover)
    cards[U64(C_HAND) + seat] = U64(0)
    hashed ^= ZOBRIST[seat, U64(card)]
    actions += 1
    crc = crc_byte(crc, card)
    if length == 0:
        needed = holding  # a lead: a play per seat holding, this one included
    holding -= 1
    ints[I_HOLDING] = holding
    ints[I_SCORE + mover] = holding
    after = (order >> (U64(4) * seat)) & U64(15)
    for s in range(ints[I_N_SEATS]):  # the seat before it now passes the turn to the one after it
        shift = U64(4 * s)
        if (order >> shift) & U64(15) == seat:
            order = (order & ~(U64(15) << shift)) | (after << shift)
    if length + 1 >= needed:  # the trick is complete: set aside, and the next lead needs a play per seat holding
        ints[I_TRICKS_COMPLETED] += 1
        length, bottom, needed, top = np.int64(0), np.int64(0), holding, LEAD
    else:
        trick[U64(bottom + length)] = card
        length += 1
        top = U64(card)
    mover = np.int64(after)
    state = (mover, length, needed, actions, crc, bottom, hashed, top, actions)
    fixed = (order, holding, streams)
    if actions >= MAX_PHASE2_ACTIONS:
        return EV_CAP, fixed, state
    lo, hi = _trick_words(trick, bottom, length)
    write_row(cards, ints[I_N_SEATS], records, 0, lo, hi, meta_word(mover, 0, needed if length > 0 else holding, 0,
                                                                      length))
    key = hashed ^ MOVER_KEY[after]
    keys[0] = key
    slots[U64(key >> SLOT_SHIFT)] = actions
    return EV_NONE, fixed, state


@njit(**config.INLINED_KERNEL)
def _event(event, action, cards, ints, deck, rng, keys, records, slots, trick, state):
    """Handle a step's event in the hand's rows; return True if the hand is over (else the caller reloads)."""
    store(cards, ints, state, trick)
    if event == EV_IRREVERSIBLE:
        take_action(Position(cards, ints, deck, rng, keys, records, slots), action)
        return ints[I_END_REASON] >= 0
    mover, actions, hashed, base = state[0], state[3], state[6], state[8]
    ints[I_HIST_LEN] -= 1  # the new position is not remembered yet
    key = hashed ^ MOVER_KEY[mover]
    slot = home_slot(slots, key)
    mask = slots.shape[0] - 1
    while U64(slots[slot] - base) < U64(actions - base):  # the probe of history.find_position
        seen = np.int64(slots[slot])
        if keys[seen - base] == key and is_remembered(cards, ints, records, seen - base):
            record_cycle(cards, ints, records, seen)
            cut_off(cards, ints, END_REPEAT)
            return True
        slot = (slot + 1) & mask
    if actions >= MAX_PHASE2_ACTIONS:
        cut_off(cards, ints, END_CAP)
        return True
    index = actions - base
    keys[index] = key
    slots[slot] = actions
    records[index, R_META] = STEP_ROW | U64(action)
    ints[I_HIST_LEN] = index + 1
    return False


class Lane(NamedTuple):
    """One hand's place in ``play_pair``: its position's arrays, its trick scratch (``TRICK_SCRATCH`` bytes), a
    legal-action buffer for the moves made before the loop, and ``waiting``: int64[2], the hand it holds (-1:
    none) and that hand's streams mask: all ones for every seat drawing from its own stream, zero for the hand's."""

    position: Position
    trick: np.ndarray
    legal: np.ndarray
    waiting: np.ndarray


@njit(**config.PASTED_KERNEL)
def _step_lane(lane, fixed, state):
    """``_step`` for a lane's hand."""
    p = lane.position
    return _step(p.cards, p.ints, p.rng, p.keys, p.records, p.slots, lane.trick, fixed, state)


@njit(**config.PASTED_KERNEL)
def _load_lane(lane):
    """``load`` for a lane's hand."""
    return load(lane.position.cards, lane.position.ints, U64(lane.waiting[1]), lane.trick)


@njit(**config.PASTED_KERNEL)
def _settle(lane, fixed, state, event, action):
    """Handle a lane's event after a step: (whether its hand ended, the fixed values and fields to go on with). A
    seat going out with the hand going on stays in the loop; any other event is the general path's (``_event``),
    after which the loop reloads the hand's fields."""
    p = lane.position
    if event == EV_IRREVERSIBLE and fixed[1] > 2:
        event, fixed, state = _seat_out(p.cards, p.ints, p.keys, p.records, p.slots, lane.trick, fixed, state, action)
    if event == EV_NONE:
        return False, fixed, state
    if _event(event, action, p.cards, p.ints, p.deck, p.rng, p.keys, p.records, p.slots, lane.trick, state):
        return True, fixed, state
    fixed, state = _load_lane(lane)
    return False, fixed, state


@njit(**config.HOT_KERNEL)
def play_pair(first, second):
    """Play two lanes' hands side by side until one of them ends: 1 if the first ended, 2 if the second, 3 if
    both. A hand still playing is left in its rows for another ``play_pair`` to take on. Each lane is
    ``ready``, its position's ``slots`` a slot table of ``SLOT_TABLE_SIZE`` entries.

    The hands are independent, so the CPU overlaps one hand's chain of dependent work (count the
    playable cards, draw, pick, next top card) with the other's; each hand plays as it would alone.
    """
    fixed_first, state_first = _load_lane(first)
    fixed_second, state_second = _load_lane(second)
    while True:
        event_first, action_first, state_first = _step_lane(first, fixed_first, state_first)
        event_second, action_second, state_second = _step_lane(second, fixed_second, state_second)
        if event_first == EV_NONE and event_second == EV_NONE:
            continue
        first_ended, second_ended = False, False
        if event_first != EV_NONE:
            first_ended, fixed_first, state_first = _settle(first, fixed_first, state_first, event_first, action_first)
        if event_second != EV_NONE:
            second_ended, fixed_second, state_second = _settle(second, fixed_second, state_second, event_second,
                                                               action_second)
        if first_ended or second_ended:
            if not first_ended:
                store(first.position.cards, first.position.ints, state_first, first.trick)
            if not second_ended:
                store(second.position.cards, second.position.ints, state_second, second.trick)
            return np.int64(first_ended) + 2 * np.int64(second_ended)

