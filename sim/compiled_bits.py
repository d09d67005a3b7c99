"""Compiled helpers every game's compiled engine shares: card-set bits, splitmix64 streams and CRC-32.

A card set is a uint64 with bit c set for card c (``sim.cards``); a random stream is one uint64
of splitmix64 state held in an array slot, so a kernel draws from it exactly as ``sim.rng``
does in Python. The per-step helpers are inlined into their callers (an edit here still
recompiles them: the compiled-code cache is keyed by every source file, ``sim.compile_cache``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from sim import config
from sim.rng import AGENT_STREAM, GOLDEN_GAMMA

U64 = np.uint64
ONE = U64(1)
GAMMA = U64(GOLDEN_GAMMA)
MIX1 = U64(0xBF58476D1CE4E5B9)
MIX2 = U64(0x94D049BB133111EB)


def _crc_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.int64)
    for byte in range(256):
        value = byte
        for _ in range(8):
            value = (value >> 1) ^ 0xEDB88320 if value & 1 else value >> 1
        table[byte] = value
    return table


CRC_TABLE = _crc_table()
CRC_START = 0xFFFFFFFF
CRC_XOR_OUT = 0xFFFFFFFF  # what a finished register is XORed with (``crc_final``; compiled code uses it directly)

DEAL_STREAM = 0
"""``rng[DEAL_STREAM]``: a game's own stream (its decks and draws, and the conformance protocol's choices)."""
SEAT_STREAMS = 1
"""``rng[SEAT_STREAMS + s]``: seat s's own stream (what a ``RANDOM`` policy draws for seat s)."""


# ----- a game's state rows -----------------------------------------------------------------------
def row_field(column: int, doc: str) -> Any:
    """A compiled accessor ``read(row) -> row[column]`` with ``doc``: one of a game's public state fields.

    Every game's step API names its fields this way (``to_move = row_field(I_TO_MOVE, ...)``), so
    the reading is written once; the column is frozen into the machine code as a constant.
    """
    def read(row: np.ndarray) -> int:
        return row[column]

    return _accessor(read, column, doc)


def row_field_at(column: int, doc: str) -> Any:
    """A compiled accessor ``read(row, i) -> row[column + i]`` with ``doc``: a per-seat (or per-team, per-trick)
    block of a game's state fields, i being the seat, team or trick ``doc`` names."""
    def read(row: np.ndarray, i: int) -> int:
        return row[column + i]

    return _accessor(read, column, doc)


def row_flag(column: int, doc: str) -> Any:
    """A compiled accessor ``read(row) -> row[column] >= 0`` with ``doc``: a field that is -1 until something
    happens (the game's end reason: ``is_over``)."""
    def read(row: np.ndarray) -> bool:
        return row[column] >= 0

    return _accessor(read, column, doc)


def _accessor(read: Any, column: int, doc: str) -> Any:
    """``read`` compiled, named after its column (``read_c12``) before numba sees it.

    Numba names a compiled function's machine-code symbol by its qualified name, its argument types
    and a counter of the process that compiled it, and links a caller with every callee's symbol
    assuming one name means one body. Two accessors of one factory (same qualified name) compiled in
    different processes could get the same counter, and so the same symbol, while reading different
    columns: a kernel loading both from the cache then called one body for both (seen: Knockout
    Whist's mcts lineup, cached after a Knorri run had compiled some accessors, played different
    games). With the column in the name, one symbol means one column, hence one body.
    """
    read.__name__ = f"{read.__name__}_c{column}"
    read.__qualname__ = f"{read.__qualname__}_c{column}"
    read.__doc__ = doc
    return njit(**config.INLINED_KERNEL)(read)


@njit(**config.INLINED_KERNEL)
def new_game_rows(cards: np.ndarray, ints: np.ndarray, crc: int, winner: int, end_reason: int) -> None:
    """Where every engine starts a new game: its ``cards`` and ``ints`` rows zeroed, then the running CRC-32 of its
    decisions started at ``ints[crc]`` and ``ints[winner]`` and ``ints[end_reason]`` at -1 (none yet)."""
    for i in range(cards.shape[0]):
        cards[i] = 0
    for i in range(ints.shape[0]):
        ints[i] = 0
    ints[crc] = CRC_START
    ints[winner] = -1
    ints[end_reason] = -1


@njit(**config.INLINED_KERNEL)
def count_decision(ints: np.ndarray, decisions: int, crc: int, action: int) -> None:
    """Where every engine's step starts: one more decision in ``ints[decisions]``, its id folded into the running
    CRC-32 at ``ints[crc]``."""
    ints[decisions] += 1
    ints[crc] = crc_byte(ints[crc], action)


# ----- card-set bits -----------------------------------------------------------------------------
@intrinsic
def _ctpop(typingctx, value):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(**config.INLINED_KERNEL)
def popcount(cards: np.uint64) -> int:
    """How many cards a set holds."""
    return np.int64(_ctpop(U64(cards)))


@njit(**config.INLINED_KERNEL)
def lowest_card(cards: np.uint64) -> int:
    """The lowest card id of a non-empty set."""
    return np.int64(trailing_zeros(U64(cards)))


@njit(**config.INLINED_KERNEL)
def mark_cards(out, offset, card_set):
    """Set ``out[offset + id]`` to 1.0 for every card of the set (an observation's card flags)."""
    rest = card_set
    while rest:
        low = rest & (~rest + U64(1))
        out[offset + popcount(low - U64(1))] = 1.0
        rest ^= low


# A decision's legal ids as engines without Knorri's history hold them: a set of card ids (0-51)
# and ``n_special`` consecutive non-card ids from ``special`` (trump choices, declarations, votes ...).

@njit(**config.INLINED_KERNEL)
def write_choices(card_set, special, n_special, legal):
    """Write the ids, ascending (cards, then the special ids), into ``legal``; return how many."""
    count = 0
    rest = card_set
    while rest:
        low = rest & (~rest + U64(1))
        legal[count] = popcount(low - U64(1))
        count += 1
        rest ^= low
    for i in range(n_special):
        legal[count] = special + i
        count += 1
    return count


@njit(**config.INLINED_KERNEL)
def among_choices(card_set, special, n_special, action):
    """Whether ``action`` is one of the ids."""
    if 0 <= action < 52:
        return (card_set >> U64(action)) & U64(1) == U64(1)
    return special <= action < special + n_special


@njit(**config.INLINED_KERNEL)
def draw_choice(card_set, special, n_special, rng, stream):
    """``legal[next() % len(legal)]`` from ``rng[stream]``, the k-th id read straight from the set."""
    n_cards = popcount(card_set)
    k = below(rng, stream, n_cards + n_special)
    if k < n_cards:
        return nth_card(card_set, k)
    return special + k - n_cards


def _has_fast_pdep() -> bool:
    """Whether the CPU numba compiles for has a fast PDEP instruction (BMI2; AMD before Zen 3 runs it in microcode)."""
    from llvmlite import binding
    from numba.core import config as numba_config
    from numba.core.codegen import get_host_cpu_features

    cpu = numba_config.CPU_NAME or binding.get_host_cpu_name()
    features = numba_config.CPU_FEATURES if numba_config.CPU_FEATURES is not None else get_host_cpu_features()
    return "+bmi2" in features.split(",") and cpu not in ("znver1", "znver2")


FAST_PDEP = _has_fast_pdep()
"""Compile ``nth_card`` with PDEP (a constant to numba: the cached code is per CPU, so it always agrees)."""


@intrinsic
def _pdep(typingctx, source, mask):
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        pdep = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                              "llvm.x86.bmi.pdep.64")
        return builder.call(pdep, args)

    return sig, codegen


@njit(**config.INLINED_KERNEL)
def nth_card(cards: np.uint64, n: int) -> int:
    """The n-th (0-based) lowest card of a set holding more than n cards.

    PDEP deposits the single bit ``1 << n`` at the n-th set bit of ``cards``: one instruction
    and no branch, where clearing the lowest card n times costs a mispredicted loop exit.
    """
    if FAST_PDEP:
        return np.int64(trailing_zeros(_pdep(ONE << U64(n), U64(cards))))
    for _ in range(n):
        cards &= cards - ONE
    return np.int64(trailing_zeros(cards))


# ----- splitmix64, identical to sim.rng ----------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 output function."""
    z = (z ^ (z >> U64(30))) * MIX1
    z = (z ^ (z >> U64(27))) * MIX2
    return z ^ (z >> U64(31))


@njit(**config.INLINED_KERNEL)
def next_u64(rng: np.ndarray, stream: int) -> np.uint64:
    """The next output of the splitmix64 stream stored at ``rng[stream]``."""
    state = rng[stream] + GAMMA
    rng[stream] = state
    return mix64(state)


@njit(**config.INLINED_KERNEL)
def below(rng: np.ndarray, stream: int, n: int) -> int:
    """``next() % n`` from ``rng[stream]``: the protocol's way to pick one of n."""
    return np.int64(next_u64(rng, stream) % U64(n))


def _remainder_tables() -> np.ndarray:
    """Per divisor d (1..64): 2**32 mod d, 2**16 mod d and ceil(2**34 / d), for ``remainder_small``."""
    table = np.zeros((65, 3), dtype=np.uint64)
    for d in range(1, 65):
        table[d] = ((1 << 32) % d, (1 << 16) % d, -(-(1 << 34) // d))
    return table


REMAINDER = _remainder_tables()


@njit(**config.INLINED_KERNEL)
def remainder_small(x: np.uint64, d: int) -> int:
    """``x % d`` for 1 <= d <= 64 with multiplies instead of a divide, so that a loop of them can run as vector code.

    Folding the high bits down with ``2**32 mod d`` and then ``2**16 mod d`` keeps the value's
    remainder and leaves it under 2**28; for such n, ``(n * ceil(2**34 / d)) >> 34`` is exactly
    ``n // d`` (Granlund and Montgomery: the error of the rounded-up reciprocal, under d, times
    n stays under 2**34), and the product fits 64 bits.
    """
    row = REMAINDER[U64(d)]
    n = (x >> U64(32)) * row[0] + (x & U64(0xFFFFFFFF))  # under 2**38
    n = (n >> U64(16)) * row[1] + (n & U64(0xFFFF))  # under 2**28
    return np.int64(n - ((n * row[2]) >> U64(34)) * U64(d))


@njit(**config.INLINED_KERNEL)
def uniform_float(rng: np.ndarray, stream: int) -> float:
    """A uniform float in [0, 1) from 53 bits of ``rng[stream]``."""
    return (next_u64(rng, stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**config.INLINED_KERNEL)
def take_within_suits(split, work, left, rng, stream):
    """``split[suit]`` uniformly chosen cards of each suit from ``work[suit, :left[suit]]``, as a card set.

    The chosen cards move to the end of each suit's live part (a partial shuffle) and ``left`` shrinks.
    """
    hand = np.uint64(0)
    for suit in range(4):
        for _k in range(split[suit]):  # a uniform choice within the suit: the last slots of a partial shuffle
            j = below(rng, stream, left[suit])
            left[suit] -= 1
            card = work[suit, j]
            work[suit, j] = work[suit, left[suit]]
            work[suit, left[suit]] = card
            hand |= np.uint64(1) << np.uint64(card)
    return hand


@njit(**config.INLINED_KERNEL)
def refill(by_suit, suit_size, work, left):
    """Put the whole pool back into ``work`` (suit by suit, as ``by_suit``) with ``left`` its suit sizes."""
    for suit in range(4):
        left[suit] = suit_size[suit]
        for k in range(suit_size[suit]):
            work[suit, k] = by_suit[suit, k]


@njit(**config.STEP_KERNEL)
def derive_seed2(seed: np.uint64, step_a: int, step_b: int) -> np.uint64:
    """``sim.rng.derive_seed(seed, step_a, step_b)`` for non-negative steps."""
    value = mix64(U64(seed) + GAMMA * (U64(step_a) + ONE))
    return mix64(value + GAMMA * (U64(step_b) + ONE))


@njit(**config.STEP_KERNEL)
def derive_seed1(seed: np.uint64, step: int) -> np.uint64:
    """``sim.rng.derive_seed(seed, step)`` for a non-negative step."""
    return mix64(U64(seed) + GAMMA * (U64(step) + ONE))


@njit(**config.STEP_KERNEL)
def agent_seed(hand_seed: np.uint64, seat: int) -> np.uint64:
    """``sim.rng.agent_seed``: the seed of seat ``seat``'s own stream for the hand dealt from ``hand_seed``."""
    return derive_seed2(hand_seed, AGENT_STREAM, seat)


@njit(**config.STEP_KERNEL)
def seed_streams(rng: np.ndarray, seed: np.uint64, n_seats: int) -> None:
    """Start a game's streams from one seed: ``rng[DEAL_STREAM]`` at ``seed``, seat s's ``rng[SEAT_STREAMS + s]`` at
    ``agent_seed(seed, s)`` (the slots past the table's ``n_seats`` at 0), as the reference engines seed them."""
    rng[DEAL_STREAM] = U64(seed)
    for s in range(rng.shape[0] - SEAT_STREAMS):
        rng[SEAT_STREAMS + s] = agent_seed(U64(seed), s) if s < n_seats else U64(0)


@njit(**config.INLINED_KERNEL)
def shuffle_deck(deck: np.ndarray, rng: np.ndarray, stream: int) -> None:
    """A fresh permutation of the 52 cards into ``deck``: the protocol's Fisher-Yates from ``rng[stream]``
    (``sim.rng.SplitMix64.shuffled_deck``'s draws)."""
    for i in range(52):
        deck[i] = i
    for i in range(51, 0, -1):
        j = below(rng, stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]


# ----- CRC-32 of decision ids --------------------------------------------------------------------
@njit(**config.INLINED_KERNEL)
def crc_byte(register: int, byte: int) -> int:
    """One byte into a running CRC-32 register (zlib's polynomial)."""
    return CRC_TABLE[(register ^ byte) & 0xFF] ^ (register >> 8)


def crc_final(register: np.ndarray | int) -> np.ndarray | int:
    """The CRC-32 value of a running register (as ``zlib.crc32`` reports it)."""
    return register ^ CRC_XOR_OUT
