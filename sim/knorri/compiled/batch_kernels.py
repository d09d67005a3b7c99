"""Compiled kernels behind ``KnorriBatch``: legal masks, checking and stepping a batch, observations (private).

The observation layout is defined here once, as ``OBSERVATION_FIELDS``; the
kernel writes by the offsets of ``OBSERVATION_SLICES``, the same slices readers use.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sim import config
from sim.compiled_bits import U64, agent_seed, mark_cards, popcount
from sim.knorri.compiled import state
from sim.knorri.compiled.kernels import continue_past_cutoff, init_hand, is_legal, legal_actions, step
from sim.knorri.compiled.policies import decide
from sim.knorri.encoding import MAX_SEATS, NUM_ACTIONS, STOCK_SIZE
from sim.tensor_layout import layout

MAX_TRICK_CARDS = 18  # a 13-card opening run and five single plays

OBSERVATION_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("own_hand", 52, "the acting seat's cards (its pile in phase 1), one flag per card id"),
    ("other_hands", (MAX_SEATS - 1) * 52,
     "the other seats' piles or hands, 52 flags each, the next seat first (public: every card was seen going in); "
     "rows past the table's seats are zero"),
    ("table", 52, "the face-up table cards (phase 1)"),
    ("turned", 52, "the turned card the acting seat is choosing a capture for (phase 1), one-hot"),
    ("trick_cards", 52, "the cards in the trick"),
    ("top_card", 52, "the trick's top card, one-hot (all zero for an empty trick)"),
    ("bottom_card", 52, "the trick's bottom card (what a pick-up takes), one-hot"),
    ("trick_order", MAX_TRICK_CARDS, "the trick from the bottom up, card id + 1 (0 for no card)"),
    ("card_counts", MAX_SEATS, "cards held by each seat, the acting seat first"),
    ("out", MAX_SEATS, "1 for a seat that is out of the hand, the acting seat first"),
    ("present", MAX_SEATS, "1 for a seat at the table, the acting seat first"),
    ("scores", MAX_SEATS, "points so far, the acting seat first"),
    ("phase", 2, "one-hot: turning the stock, playing out"),
    ("opening", 1, "1 while the 2C opening play is still to be made"),
    ("plays_in_trick", 1, "plays still in the trick"),
    ("plays_needed", 1, "plays the trick needs (for an empty trick, what the next lead will need)"),
    ("run_cards_in_trick", 1, "cards of the opening run still at the bottom of the trick, when two or more"),
    ("stock_left", 1, "stock cards not yet turned"),
    ("phase2_actions", 1, "plays and pick-ups so far (the hand is cut off at the table's cap, 1,500 by default)"),
)
"""The observation tensor's layout: (name, width, meaning), in order."""


OBSERVATION_SLICES, OBSERVATION_SIZE, OBSERVATION_MEANINGS = layout(OBSERVATION_FIELDS)
"""The observation tensor's named slices (``tensor[:, OBSERVATION_SLICES["own_hand"]]``), its size and what each
slice holds."""
_AT = {name: part.start for name, part in OBSERVATION_SLICES.items()}
O_OWN, O_OTHERS, O_TABLE, O_TURNED = _AT["own_hand"], _AT["other_hands"], _AT["table"], _AT["turned"]
O_TRICK, O_TOP, O_BOTTOM, O_ORDER = _AT["trick_cards"], _AT["top_card"], _AT["bottom_card"], _AT["trick_order"]
O_COUNTS, O_OUT, O_PRESENT, O_SCORES = _AT["card_counts"], _AT["out"], _AT["present"], _AT["scores"]
O_PHASE, O_OPENING, O_PLAYS, O_NEEDED = _AT["phase"], _AT["opening"], _AT["plays_in_trick"], _AT["plays_needed"]
O_RUN, O_STOCK, O_ACTIONS = _AT["run_cards_in_trick"], _AT["stock_left"], _AT["phase2_actions"]


@njit(**config.INLINED_KERNEL)
def _mask_row(cards_row, ints_row, mask_row, legal):
    """``mask_row[a]`` = whether action a is legal in the hand (all False once it is done)."""
    for a in range(mask_row.shape[0]):
        mask_row[a] = False
    count = legal_actions(cards_row, ints_row, legal)
    for i in range(count):
        mask_row[legal[i]] = True


@njit(**config.STEP_KERNEL)
def batch_legal_mask(cards, ints, mask, legal):
    """``mask[b, a]`` = whether action a is legal in hand b (all False once a hand is done); ``legal``: int64[65]."""
    for b in range(ints.shape[0]):
        _mask_row(cards[b], ints[b], mask[b], legal)


@njit(**config.STEP_KERNEL)
def batch_first_illegal(cards, ints, actions, scratch):
    """The first hand (not done) whose action is not legal, or -1 when every action is; ``scratch``: int64[65]."""
    for b in range(ints.shape[0]):
        if ints[b, state.I_END_REASON] >= 0:
            continue
        if not is_legal(cards[b], ints[b], actions[b], scratch):
            return b
    return -1


class BatchRows(NamedTuple):
    """A batch's hands as the kernels take them: row b of each array is hand b's (``state`` documents the
    columns), and a hand that outgrew its own history rows keeps them in row ``spill[b]`` of the spill pool
    (-1: its own rows)."""

    cards: np.ndarray
    ints: np.ndarray
    decks: np.ndarray
    rngs: np.ndarray
    keys: np.ndarray
    records: np.ndarray
    spill: np.ndarray
    spill_keys: np.ndarray
    spill_records: np.ndarray
    slots: np.ndarray


@njit(**config.INLINED_KERNEL)
def _history(batch, b):
    """Hand b's remembered positions: its own rows of ``keys``/``records``, or, once it outgrew them, its row
    ``spill[b]`` of the spill pool (room for every position a hand can remember; -1: none)."""
    row = batch.spill[b]
    if row >= 0:
        return batch.spill_keys[row], batch.spill_records[row]
    return batch.keys[b], batch.records[b]


@njit(**config.INLINED_KERNEL)
def _step_hand(batch, b, action):
    """Apply ``action`` in hand b."""
    hand_keys, hand_records = _history(batch, b)
    step(batch.cards[b], batch.ints[b], batch.decks[b], batch.rngs[b], hand_keys, hand_records, batch.slots[b],
         action)


@njit(**config.STEP_KERNEL)
def batch_step(batch, actions):
    """Apply ``actions[b]`` to every hand b not yet done (the caller has checked them all)."""
    ints = batch.ints
    for b in range(ints.shape[0]):
        if ints[b, state.I_END_REASON] < 0:
            _step_hand(batch, b, actions[b])


@njit(**config.KERNEL)
def batch_decide(cards, ints, rngs, policies, out):
    """``out[b]``: the action compiled policy ``policies[b, seat]`` takes in hand b for its seat to move, drawing
    from that seat's stream; -1 where the hand is over or that seat's entry is -1 (no policy: an agent plays it)."""
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for b in range(ints.shape[0]):
        out[b] = -1
        seat = ints[b, state.I_TO_MOVE]
        if ints[b, state.I_END_REASON] < 0 and seat >= 0 and policies[b, seat] >= 0:
            out[b] = decide(policies[b, seat], seat, cards[b], ints[b], rngs[b], legal)


@njit(**config.STEP_KERNEL)
def batch_play_others(batch, policies, seat, legal):
    """In every hand, let each seat but ``seat`` take compiled policy ``policies[s]``'s choices until ``seat`` is to
    move or the hand is over. A hand whose remembered positions would overflow its rows stops early (the caller
    moves it to the spill pool and calls again); ``legal``: int64[65] scratch."""
    for b in range(batch.ints.shape[0]):
        _play_others_in(batch, policies, seat, legal, b)


@njit(**config.INLINED_KERNEL)
def _play_others_in(batch, policies, seat, legal, b):
    """``batch_play_others`` in hand b alone; whether the hand is left short of room for one more position."""
    cards, ints, rngs = batch.cards, batch.ints, batch.rngs
    hand_keys, hand_records = _history(batch, b)
    capacity = hand_keys.shape[0]
    while (ints[b, state.I_END_REASON] < 0 and ints[b, state.I_TO_MOVE] != seat
           and ints[b, state.I_HIST_LEN] + 1 < capacity):
        mover = ints[b, state.I_TO_MOVE]
        action = decide(policies[mover], mover, cards[b], ints[b], rngs[b], legal)
        step(cards[b], ints[b], batch.decks[b], rngs[b], hand_keys, hand_records, batch.slots[b], action)
    return ints[b, state.I_END_REASON] < 0 and ints[b, state.I_HIST_LEN] + 1 >= capacity


@njit(**config.STEP_KERNEL)
def batch_advance_learner(batch, rows, actions, policies, seat, observations, masks, done, short, legal):
    """The vector env's step in one pass over the hands ``rows``, each hand's state still in cache from one stage
    to the next: apply ``actions[b]`` (checked legal by the caller; none when ``actions`` is empty), let the other
    seats play ``policies`` to ``seat``'s next turn (as ``batch_play_others``), and write ``observations[b]``,
    ``masks[b]`` and ``done[b]``. Every caller leaves each hand room for one more position, so the learner's
    action always fits. Returns how many hands are left short of room (stopped before ``seat``'s turn, or at it
    with a full history), listed first in ``short``: the caller moves them to the spill pool and calls again for
    them alone, without actions."""
    cards, ints = batch.cards, batch.ints
    count = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        if actions.shape[0] > 0 and ints[b, state.I_END_REASON] < 0:
            _step_hand(batch, b, actions[b])
        if _play_others_in(batch, policies, seat, legal, b):
            short[count] = b
            count += 1
        done[b] = ints[b, state.I_END_REASON] >= 0
        _observe_row(cards[b], ints[b], observations[b])
        _mask_row(cards[b], ints[b], masks[b], legal)
    return count


@njit(**config.STEP_KERNEL)
def batch_deal(batch, rows, seeds, first_seats, n_seats, cap, repeat):
    """Deal hand ``rows[i]`` afresh from ``seeds[i]`` with first seat ``first_seats[i]``, as ``KnorriHand.from_seed``
    deals it under the cut-off rules ``cap`` and ``repeat``, into its own history rows (the caller has taken it out
    of the spill pool): its streams reseeded (seat s's is ``agent_seed(seed, s)``, as ``RandomAgent``'s), phase 1
    played up to the first choice. Remembered positions past the history's new length are left as they were: they
    are never read."""
    cards, ints, decks, rngs = batch.cards, batch.ints, batch.decks, batch.rngs
    for i in range(rows.shape[0]):
        b = rows[i]
        for k in range(rngs.shape[1]):
            rngs[b, k] = U64(0)
        rngs[b, state.RNG_DEAL] = seeds[i]
        for s in range(n_seats):
            rngs[b, state.RNG_SEAT + s] = agent_seed(seeds[i], s)
        for k in range(decks.shape[1]):
            decks[b, k] = 0
        init_hand(cards[b], ints[b], decks[b], rngs[b], batch.keys[b], batch.records[b], batch.slots[b], n_seats,
                  first_seats[i], cap, repeat)


@njit(**config.STEP_KERNEL)
def batch_observe(cards, ints, out):
    """Write each hand's observation from its acting seat's point of view (zeros once done)."""
    for b in range(ints.shape[0]):
        _observe_row(cards[b], ints[b], out[b])


@njit(**config.INLINED_KERNEL)
def _observe_row(row_c, row_i, o):
    """Write one hand's observation into ``o`` (every entry: zeros once done), seats counted from the acting one."""
    for i in range(o.shape[0]):
        o[i] = 0.0
    seat = row_i[state.I_TO_MOVE]
    if row_i[state.I_END_REASON] < 0 and seat >= 0:
        _observe_playing(row_c, row_i, o, seat)


@njit(**config.INLINED_KERNEL)
def _observe_playing(row_c, row_i, o, seat):
    """The non-zero entries of a hand's observation while it is playing (``o`` is zero)."""
    n = row_i[state.I_N_SEATS]
    phase = row_i[state.I_PHASE]
    for k in range(n):
        other = (seat + k) % n
        hand = row_c[state.C_HAND + other]
        if k == 0:
            mark_cards(o, O_OWN, hand)
        else:
            mark_cards(o, O_OTHERS + (k - 1) * 52, hand)
        o[O_COUNTS + k] = popcount(hand)
        o[O_OUT + k] = 1.0 if phase == 2 and hand == 0 else 0.0
        o[O_PRESENT + k] = 1.0
        o[O_SCORES + k] = row_i[state.I_SCORE + other]
    o[O_PHASE + phase - 1] = 1.0
    if phase == 1:
        mark_cards(o, O_TABLE, row_c[state.C_TABLE])
        if row_c[state.C_CANDIDATES] != U64(0):
            o[O_TURNED + row_i[state.I_TURNED]] = 1.0
        o[O_STOCK] = STOCK_SIZE - row_i[state.I_TURN]
        o[O_NEEDED] = n
        return
    length = row_i[state.I_TRICK_LEN]
    for i in range(length):
        card = state.trick_card(row_c, i)
        o[O_TRICK + card] = 1.0
        o[O_ORDER + i] = card + 1
    if length > 0:
        o[O_TOP + state.trick_card(row_c, length - 1)] = 1.0
        o[O_BOTTOM + state.trick_card(row_c, 0)] = 1.0
        o[O_NEEDED] = row_i[state.I_NEEDED]
    else:
        o[O_NEEDED] = row_i[state.I_HOLDING]
    o[O_OPENING] = row_i[state.I_OPENING]
    o[O_PLAYS] = state.plays_in_trick(row_i)
    o[O_RUN] = row_i[state.I_RUN_LEFT]
    o[O_ACTIONS] = row_i[state.I_PHASE2_ACTIONS]


@njit(**config.KERNEL)
def batch_continue_cut(cards, ints, cut_ints, cut_held, continued, cap):
    """Every hand the table's rules have just cut off (not yet ``continued``): keep its ints row and cards held in
    ``cut_ints``, ``cut_held``, mark it, and play it on past the cut (``continue_past_cutoff``, up to ``cap``)."""
    for b in range(ints.shape[0]):
        if continued[b] or ints[b, state.I_END_REASON] <= state.END_OUT:
            continue
        for i in range(ints.shape[1]):
            cut_ints[b, i] = ints[b, i]
        for s in range(cut_held.shape[1]):
            cut_held[b, s] = cards[b, state.C_HAND + s]
        continued[b] = True
        continue_past_cutoff(cards[b], ints[b], cap)
