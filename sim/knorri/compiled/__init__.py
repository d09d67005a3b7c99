"""Compiled steps for search agents: one Knorri position as a record of arrays, and the numba functions that step it.

An agent that searches inside compiled code works through this module alone; how the engine lays out a position
stays private to ``sim.knorri``. A position is one record, ``Position``, of seven arrays by name (``cards, ints,
deck, rng, keys, records, slots``). ``new_position`` makes working arrays, ``position_rows`` reads a reference
``KnorriHand`` with the positions it remembers as ``PositionRows`` (so lines end on a repeat as the reference
engine's would), ``copy_position`` restarts a search. Agents read ``deck`` (the deal; the cards from
``TABLE_SIZE + stock_turned(ints)`` on are still face down) and ``rng`` (the random streams) directly, everything
else through the functions here; a driver that plays whole hands deals with ``deal_hand``. Every function here is
compiled and callable from an agent's own compiled code. More in docs/internals.md, ``sim.knorri.compiled``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core.types import literal

from sim import config
from sim.compile_cache import compile_ahead
from sim.compiled_bits import ONE, U64, agent_seed, below, next_u64, row_field, row_field_at, row_flag
from sim.knorri.compiled.encode import encode_hand
from sim.knorri.compiled.history import (
    FREE_SLOT,
    equals_position_row,
    history_capacity,
    slot_table_size,
    write_position_row,
)
from sim.knorri.compiled.kernels import (
    _phase2_action,
    _run_phase1,
    apply_action,
    continue_past_cutoff,
    copy_position,
    init_hand,
    legal_actions,
    take_action,
)
from sim.knorri.compiled.moves import cut_off
from sim.knorri.compiled.policies import GREEDY, RANDOM, decide
from sim.knorri.compiled.policies import choose as policy_action
from sim.knorri.compiled.state import (
    C_HAND,
    C_TABLE,
    END_CAP,
    END_OUT,
    I_CAP,
    I_END_REASON,
    I_HIST_LEN,
    I_N_SEATS,
    I_PHASE,
    I_PHASE2_ACTIONS,
    I_REPEAT,
    I_SCORE,
    I_TO_MOVE,
    I_TURN,
    I_TURNED,
    LOG_FIELDS,
    NUM_CARD_FIELDS,
    NUM_INT_FIELDS,
    NUM_RNG,
    RECORD_SIZE,
    RNG_DEAL,
    RNG_SEAT,
    Position,
    PositionRows,
    log_decision,
)
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS, NUM_ACTIONS
from sim.knorri.reference import KnorriHand

DEAL_STREAM = RNG_DEAL
"""``rng[DEAL_STREAM]``: the hand's own splitmix64 stream (redeals, the conformance protocol's choices)."""
SEAT_STREAMS = RNG_SEAT
"""``rng[SEAT_STREAMS + s]``: seat s's own stream (what a ``RANDOM`` playout draws for seat s)."""

__all__ = [
    "DEAL_STREAM",
    "ENGINE_PARTS",
    "GREEDY",
    "LOG_FIELDS",
    "NUM_ACTIONS",
    "Position",
    "PositionRows",
    "RANDOM",
    "SEAT_STREAMS",
    "SteppedRows",
    "apply_action",
    "below",
    "continue_past_cutoff",
    "cap_after",
    "copy_position",
    "cut_off_rules",
    "deal_hand",
    "fit_position",
    "fits_position",
    "held",
    "is_cut_off",
    "is_over",
    "legal_actions",
    "log_decision",
    "new_position",
    "next_u64",
    "phase_of",
    "play_out_result_seats",
    "play_to_end",
    "play_to_end_seats",
    "policy_action",
    "position_rows",
    "score",
    "scores",
    "seat_count",
    "stock_turned",
    "to_move",
    "unseen_cards",
]


# ----- Python side -----------------------------------------------------------------------------------
def new_position(cap: int = MAX_PHASE2_ACTIONS, repeat: int = DEFAULT_REPEAT) -> Position:
    """Empty working arrays for one position and its history,
    sized for a table with the cut-off rules ``cap`` and ``repeat`` (the history holds up to ``cap + 1``
    positions, none with the repeat check off; the slot table exists only under the default repeat rule and a
    cap of at most 1,500)."""
    rows = history_capacity(cap, repeat)
    return Position(np.zeros(NUM_CARD_FIELDS, dtype=np.uint64), np.zeros(NUM_INT_FIELDS, dtype=np.int64),
                    np.zeros(52, dtype=np.int64), np.zeros(NUM_RNG, dtype=np.uint64),
                    np.zeros(rows, dtype=np.uint64), np.zeros((rows, RECORD_SIZE), dtype=np.uint64),
                    np.empty(slot_table_size(cap, repeat), dtype=np.int16))


def compile_phase1_step() -> None:
    """Compile the phase-1 half of the engine's step (the turns, the captures, the deal into phase 2) for a
    ``new_position``'s arrays, as ``apply_action`` calls it: a part (``sim.compile_cache.compile_ahead``).

    The step's two halves call nothing of each other, so two processes can compile them at once; every kernel
    that plays a position calls the step, and compiles it before anything else it needs."""
    compile_ahead(_run_phase1, (*new_position(), literal(False), U64(0)))  # the step passes the constant False


def compile_phase2_step() -> None:
    """Compile the phase-2 half of the engine's step (a play or a pick-up, then the table's cut-offs) for a
    ``new_position``'s arrays, as ``apply_action`` calls it: a part, as ``compile_phase1_step``."""
    p = new_position()
    compile_ahead(_phase2_action, (p.cards, p.ints, p.keys, p.records, p.slots, np.int64(0)))


def compile_greedy_playout() -> None:
    """Compile the greedy playout that jumps loops (``play_out_result_seats`` under ``repeat=0``) for a
    ``new_position``'s arrays, as the searches' playouts call it: a part. It calls the step."""
    compile_ahead(_play_greedy_jumping_loops, (new_position(), np.zeros(NUM_ACTIONS, dtype=np.int64)))


ENGINE_PARTS = (compile_phase1_step, compile_phase2_step, compile_greedy_playout)
"""The engine's kernels a search calls, as parts a first run's idle workers compile (``compile_parts``), in the
order they are taken: the step's two halves at once, then the greedy playout, which calls the step."""


def cut_off_rules(ints: np.ndarray) -> tuple[int, int]:
    """The cut-off rules ``(cap, repeat)`` a position's ``ints`` row plays under (set when it was dealt or read)."""
    return int(ints[I_CAP]), int(ints[I_REPEAT])


@njit(**config.PASTED_KERNEL)
def cap_after(ints: np.ndarray, actions: int) -> None:
    """Bring a position's cap forward to ``actions`` phase-2 actions from now (never later than its own): a search
    that reads how a short playout would end gets the rules' cut-off ranking there."""
    if ints[I_PHASE2_ACTIONS] + actions < ints[I_CAP]:
        ints[I_CAP] = ints[I_PHASE2_ACTIONS] + actions


def fits_position(position: Position, ints: np.ndarray) -> bool:
    """Whether working arrays (``new_position``'s) are the size a position with this ``ints`` row needs."""
    cap, repeat = cut_off_rules(ints)
    return (position.keys.shape[0] == history_capacity(cap, repeat)
            and position.slots.shape[0] == slot_table_size(cap, repeat))


def fit_position(position: Position | None, ints: np.ndarray) -> Position:
    """``position`` if its arrays fit the rules in ``ints`` (``cut_off_rules``), else new ones that do: a
    search's scratch follows the table it is asked about."""
    if position is not None and fits_position(position, ints):
        return position
    return new_position(*cut_off_rules(ints))


def position_rows(hand: KnorriHand) -> PositionRows:
    """A reference hand's position as ``PositionRows``, its remembered positions included.

    Read once per decision, stepped many times: a compiled search copies these rows into
    working arrays (``copy_position``) at every restart and pays the reading only once.
    """
    cards, ints, deck, _, keys, records = encode_hand(hand, 0)
    remembered = int(ints[I_HIST_LEN])
    return PositionRows(cards, ints, deck, keys[:remembered].copy(), records[:remembered].copy())


class SteppedRows:
    """A position read once from a reference hand (``position_rows``) and then kept in step by the compiled
    engine's own step, for a searcher that asks for the position at every decision: each ask then costs the
    actions taken since the last one, not a new reading of the whole hand and its history."""

    def __init__(self, hand: KnorriHand) -> None:
        rows = position_rows(hand)
        self.position = new_position(*cut_off_rules(rows.ints))
        copy_position(rows, self.position)

    def take(self, action: int) -> None:
        """Take a legal ``action`` for the seat to move (the caller has checked it: the log showed it taken)."""
        take_action(self.position, np.int64(action))

    def rows(self) -> PositionRows:
        """The current position and the positions it remembers, as ``position_rows`` would read them, except that
        after the first of a stretch the engine remembers a position as the action that reached it: views of the
        working arrays, to be read, and changed only through ``take``."""
        position = self.position
        remembered = int(position.ints[I_HIST_LEN])
        return PositionRows(position.cards, position.ints, position.deck, position.keys[:remembered],
                            position.records[:remembered])


def scores(ints: np.ndarray) -> list[int]:
    """Every seat's points in a position's ``ints`` (final once the hand is over), from Python."""
    return ints[I_SCORE:I_SCORE + int(ints[I_N_SEATS])].tolist()


# ----- compiled ------------------------------------------------------------------------------------
to_move = row_field(I_TO_MOVE, "The seat whose decision it is (-1 once the hand is over).")
is_over = row_flag(
    I_END_REASON, "Whether the hand has ended (a seat left alone holding cards, a repeated position, or the cap).")
seat_count = row_field(I_N_SEATS, "Seats at the table.")


@njit(**config.INLINED_KERNEL)
def is_cut_off(ints: np.ndarray) -> bool:
    """Whether the table's cut-off rules ended the hand (a repeated position or the cap), rather than its play."""
    return ints[I_END_REASON] > END_OUT
score = row_field_at(
    I_SCORE, "Seat ``seat``'s points so far: its final score once the hand is over (the scores sum to zero).")
stock_turned = row_field(
    I_TURN, "Stock cards turned so far: ``deck[TABLE_SIZE + stock_turned(ints):]`` are still face down.")


@njit(**config.PASTED_KERNEL)
def play_to_end(position: Position, legal: np.ndarray, policy: int) -> None:
    """Play the position on to the end with ``policy`` (``GREEDY``, ``RANDOM``) at every seat.

    ``legal`` is an int64[NUM_ACTIONS] scratch buffer. Random choices draw from the seats' own
    streams in ``rng``, exactly as ``policy_action`` would at each decision.
    """
    cards, ints, rng = position.cards, position.ints, position.rng
    while ints[I_END_REASON] < 0:
        seat = ints[I_TO_MOVE]
        apply_action(position, decide(policy, seat, cards, ints, rng, legal))


@njit(**config.PASTED_KERNEL)
def play_out_result_seats(position: Position, legal: np.ndarray, policies: np.ndarray) -> None:
    """``play_to_end_seats`` (seat s playing ``policies[s]``) for a search that reads only how the hand ends: the
    same end reason, final position and scores, without playing out a greedy loop to a far cap.

    With ``GREEDY`` at every seat and the repeat check off (``repeat=0``), every choice is a
    function of the position, so a hand that comes back to a position goes round that loop until
    the cap (at ``cap=20000``, thousands of laps a playout). Brent's cycle search (one saved
    position, compared field by field at every step, saved again after 1, 2, 4, ... steps) finds
    a loop within about two laps of entering it; the hand then plays only the steps that the cap
    leaves after whole laps, and ends by the cap there. The laps skipped are missing from the
    counters of decisions and the crc, which no search reads. Any other policies or rules play as
    ``play_to_end_seats`` does.
    """
    ints = position.ints
    every_seat_greedy = True
    for seat in range(ints[I_N_SEATS]):
        every_seat_greedy = every_seat_greedy and policies[seat] == GREEDY
    if not every_seat_greedy or ints[I_REPEAT] != 0 or position.records.shape[0] == 0:
        play_to_end_seats(position, legal, policies)
    else:
        _play_greedy_jumping_loops(position, legal)


@njit(**config.INLINED_KERNEL)
def _play_greedy_jumping_loops(position, legal):
    """Play on with ``GREEDY`` at every seat under ``repeat=0``, jumping the first loop found (Brent's search) to
    the position the cap ends it in."""
    cards, ints, rng, records = position.cards, position.ints, position.rng, position.records
    saved_row = records.shape[0] - 1  # with the repeat check off no history row is ever read
    saved, lap, power = False, 0, 1
    while ints[I_END_REASON] < 0:
        seat = ints[I_TO_MOVE]
        apply_action(position, decide(GREEDY, seat, cards, ints, rng, legal))
        if ints[I_END_REASON] >= 0 or ints[I_PHASE] != 2:
            continue
        if saved:
            lap += 1
            if equals_position_row(cards, ints, records, saved_row):
                _finish_on_loop(position, legal, lap)
                return
        if not saved or lap == power:
            write_position_row(cards, ints, records, saved_row)
            power, lap = (power * 2 if saved else 1), 0
            saved = True


@njit(**config.INLINED_KERNEL)
def _finish_on_loop(position, legal, lap):
    """End a greedy hand that is back at the position it held ``lap`` actions ago: it holds at the cap the position
    it holds after the cap's remainder of whole laps."""
    cards, ints, rng = position.cards, position.ints, position.rng
    cap = ints[I_CAP]
    for _ in range((cap - ints[I_PHASE2_ACTIONS]) % lap):
        seat = ints[I_TO_MOVE]
        apply_action(position, decide(GREEDY, seat, cards, ints, rng, legal))
    if ints[I_END_REASON] < 0:
        ints[I_PHASE2_ACTIONS] = cap
        cut_off(cards, ints, END_CAP)


phase_of = row_field(I_PHASE, "1 while the stock is being turned, 2 while the cards are played out.")
held = row_field_at(
    C_HAND, "Seat ``seat``'s cards as a set: its pile in phase 1, its hand in phase 2 (public either way).")


@njit(**config.INLINED_KERNEL)
def unseen_cards(cards: np.ndarray, ints: np.ndarray) -> np.uint64:
    """In phase 1, the cards nobody has seen (the face-down stock, as a set), from the public rows alone.

    Every other card is in a seat's pile, on the table, or the turned card a seat is choosing for.
    """
    seen = cards[C_TABLE]
    for s in range(ints[I_N_SEATS]):
        seen |= cards[C_HAND + s]
    if ints[I_TURNED] >= 0:
        seen |= ONE << U64(ints[I_TURNED])
    return ~seen & ((ONE << U64(52)) - ONE)


@njit(**config.STEP_KERNEL)
def deal_hand(position: Position, n_seats: int, first_seat: int, seed: np.uint64, cap: int, repeat: int) -> None:
    """Deal the hand of ``seed`` as the batch engine does, under the cut-off rules ``cap`` and ``repeat``, and play
    phase 1 up to the first choice.

    The hand's own stream starts at ``seed`` and seat s's at ``agent_seed(seed, s)`` (what a
    ``RANDOM`` seat draws from); ``slots`` is emptied for a new history. The arrays are
    ``new_position(cap, repeat)``'s; the rules stay in ``ints``, where every step reads them.
    """
    rng, slots = position.rng, position.slots
    rng[DEAL_STREAM] = seed
    for s in range(n_seats):
        rng[SEAT_STREAMS + s] = agent_seed(seed, s)
    for i in range(slots.shape[0]):
        slots[i] = FREE_SLOT
    init_hand(position.cards, position.ints, position.deck, rng, position.keys, position.records, slots, n_seats,
              first_seat, cap, repeat)


@njit(**config.PASTED_KERNEL)
def play_to_end_seats(position: Position, legal: np.ndarray, policies: np.ndarray) -> None:
    """``play_to_end`` with a policy per seat: seat s plays ``policies[s]`` (``GREEDY``, ``RANDOM``).

    With every entry equal it makes exactly ``play_to_end``'s choices.
    """
    cards, ints, rng = position.cards, position.ints, position.rng
    while ints[I_END_REASON] < 0:
        seat = ints[I_TO_MOVE]
        apply_action(position, decide(policies[seat], seat, cards, ints, rng, legal))
