"""Whole Knorri hands between built-in agents, seat by seat ``random``, ``greedy``, ``loginf`` or ``mcts``, in numba.

The runner's compiled path for lineups the batch engine's own policies cannot play (reached through
``LINEUP_PLAYER``, registered in ``agents.base``). One compiled call plays a list of hands from their seeds to the
end, the engine stepping the hand and each seat to move asked through its agent's compiled code, with the state,
streams and searches of its Python agent. A seat is told only what it may know, so for the same seed a hand plays
the same decisions as with the Python agents on the reference engine (tested row for row). How each agent plays
here, and what it may see, is in docs/internals.md, ``agents.knorri.lineup``.

An ``mcts`` with a time budget (``time=``) is not reproducible and stays with the Python agent; so does every
agent named by import path. What each seat's spec becomes in the kernel (``CompiledSeat``) is read in
``agents.knorri.lineup_seats``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.base import register_lineup
from agents.knorri import search_parts, search_rules
from agents.knorri.decision import mcts_choice, search_work
from agents.knorri.lineup_seats import (
    BUILT_IN,
    LOGINF,
    MCTS,
    CompiledSeat,
    compiled_seat,
    learns_models,
    seat_agent,
    seat_plan,
    smoothing,
)
from agents.knorri.mcts import GAME
from agents.knorri.opponent_models import add_choice_evidence
from agents.knorri.search import ONE_SLOT, lookahead_choice
from agents.lineup import lineup_entry_kernels, lineup_kernel_code
from sim import config
from sim.contract import ChunkColumns
from sim.knorri.adapter import check_continuation, check_options, lineup_columns
from sim.knorri.compiled import (
    GREEDY,
    LOG_FIELDS,
    RANDOM,
    apply_action,
    continue_past_cutoff,
    deal_hand,
    held,
    is_cut_off,
    is_over,
    legal_actions,
    log_decision,
    new_position,
    next_u64,
    phase_of,
    policy_action,
    to_move,
)
from sim.knorri.encoding import DEFAULT_REPEAT, MAX_PHASE2_ACTIONS


@dataclass
class LineupRows:
    """What ``play_lineup`` returns: every hand's final engine ``ints`` row, the cards held, the decision log."""

    ints: np.ndarray  # int64[H, fields]: decode with sim.knorri.compiled.batch.results_from_rows
    held: np.ndarray  # uint64[H, n_seats]: the cards each seat held at the end
    log: np.ndarray | None  # int64[D, LOG_FIELDS] (hand index, step, seat, phase, action), or None
    continued: LineupRows | None = None  # with a continuation: every hand at its final end


def play_lineup(n_seats: int, seeds: np.ndarray, first_seats: np.ndarray, seats: Sequence[Sequence[CompiledSeat]],
                log_actions: bool = False, *, cap: int = MAX_PHASE2_ACTIONS,
                repeat: int = DEFAULT_REPEAT, continue_cap: int | None = None) -> LineupRows:
    """Play hand h from ``seeds[h]`` (first seat ``first_seats[h]``) with ``seats[h][s]`` at seat s, to the end,
    under the table's cut-off rules ``cap`` and ``repeat`` (the searches and playouts too: they step the
    engine's rows, which carry the rules). With ``continue_cap``, a hand they cut off plays on with no repeat
    check up to that cap, and ``continued`` holds every hand at its final end."""
    total = len(seeds)
    seeds = np.asarray(seeds, dtype=np.uint64)
    plan = seat_plan(seeds, seats, n_seats)
    searches = {id(seat.search): seat.search for row in seats for seat in row}  # the lineup's few distinct ones
    capacity = search_rules.tree_capacity(max(search.largest_budget() for search in searches.values()))
    position = new_position(cap, repeat)
    copies = 1 if continue_cap is None else 2
    ints = np.zeros((copies, total, position.ints.shape[0]), dtype=np.int64)
    held_out = np.zeros((copies, total, n_seats), dtype=np.uint64)
    log = np.zeros((_log_room(total) if log_actions else 0, LOG_FIELDS), dtype=np.int64)
    deals = LineupDeals(np.int64(n_seats), seeds, np.asarray(first_seats, dtype=np.int64), np.int64(cap),
                        np.int64(repeat), np.int64(-1 if continue_cap is None else continue_cap))
    searching = (plan.kinds == MCTS).any()
    play = _play_searching if searching else _play_plain
    start, rows = 0, 0
    while start < total:
        start, rows = play(deals, plan, LineupOutputs(ints, held_out, log), position, start, rows, capacity,
                           True if searching else None)
        if start < total:  # the log ran out of room in hand ``start``: grow it and play that hand again
            log = np.concatenate([log, np.zeros_like(log)])
    continued = None if continue_cap is None else LineupRows(ints[1], held_out[1], None)
    return LineupRows(ints[0], held_out[0], log[:rows] if log_actions else None, continued)


def _log_room(hands: int) -> int:
    return max(1024, 160 * hands)  # hands take about 130 (greedy) to 280 (loginf) decisions; the log grows


# ----- kernels --------------------------------------------------------------------------------------
@njit(**config.PASTED_KERNEL)
def _decide(agent, position, streams, work, searching):
    """The action of the seat to move, by its ``agent`` (a ``SeatAgent``); ``searching`` is None in a lineup
    without ``mcts``, whose kernel then holds no search.

    ``streams[seat]`` is each seat's agent stream; ``work`` is ``decision.search_work``'s scratch, whose
    ``known`` carries a greedy playout's values from one decision to the next (cleared here
    whenever the hand leaves the greedy line), and whose ``loglik[seat]`` is the seat's evidence so far.
    """
    cards, ints, rng = position.cards, position.ints, position.rng
    legal, known, search_rng = work.legal, work.known, work.search_rng
    kind = agent.kind
    seat = to_move(ints)
    n_legal = legal_actions(cards, ints, legal)
    if kind == RANDOM:
        known[0] = 0.0
        return policy_action(RANDOM, seat, legal, n_legal, cards, ints, rng)
    preferred = policy_action(GREEDY, seat, legal, n_legal, cards, ints, rng)
    if n_legal == 1 or kind == GREEDY or (kind == LOGINF and phase_of(ints) == 1):
        return preferred
    if kind == LOGINF:
        return lookahead_choice(position, legal, n_legal, preferred, work.first, agent.rollout, streams, seat,
                                search_rng, known)
    if searching is None:
        return preferred  # never taken: a lineup without mcts has no seat of another kind
    search_rng[0] = next_u64(streams, seat)
    action = mcts_choice(agent.search, position, legal, n_legal, preferred, work.loglik[seat], work)
    if action != preferred:
        known[0] = 0.0  # the greedy playout ``known`` holds went another way
    return action


@njit(**config.PASTED_KERNEL)
def _score_choice(plan, h, seat, action, position, work):
    """Add ``seat``'s choice of ``action`` (before it is applied) to the evidence of every ``mcts`` seat with a
    posterior (``agents.knorri.opponent_models``); the acting greedy or ``loginf`` seat's own choice is the
    comparison."""
    cards, ints, rng = position.cards, position.ints, position.rng
    legal, look_known = work.legal, work.look_known
    kind = plan.kinds[h, seat]
    n_legal = legal_actions(cards, ints, legal)
    if n_legal < 2:
        return
    greedy_choice = action if kind == GREEDY else policy_action(GREEDY, seat, legal, n_legal, cards, ints, rng)
    lookahead = greedy_choice  # loginf captures as greedy does in phase 1
    if phase_of(ints) == 2:
        if kind == LOGINF and plan.rollouts[h, seat] == GREEDY:
            lookahead = action
        else:
            look_known[0] = 0.0
            lookahead = lookahead_choice(position, legal, n_legal, greedy_choice, work.first, GREEDY, rng, ONE_SLOT,
                                         rng, look_known)
    for observer in range(plan.kinds.shape[1]):
        if observer != seat and learns_models(plan, h, observer):
            add_choice_evidence(work.loglik[observer], seat, action, n_legal, greedy_choice, lookahead,
                                smoothing(plan, h, observer))


class LineupDeals(NamedTuple):
    """The hands of a lineup call: hand h dealt from ``seeds[h]`` with first seat ``first_seats[h]``, under the
    cut-off rules ``cap`` and ``repeat``; with a ``continue_cap`` of 0 or more, a hand they cut off plays on."""

    n_seats: np.int64
    seeds: np.ndarray
    first_seats: np.ndarray
    cap: np.int64
    repeat: np.int64
    continue_cap: np.int64


class LineupOutputs(NamedTuple):
    """Where a lineup call writes: each hand's final ``ints`` row and held cards (``[0]`` as the rules ended it,
    ``[1]`` at its final end when hands play on), and the decision log (``LOG_FIELDS`` a row; no rows: none)."""

    ints: np.ndarray
    held: np.ndarray
    log: np.ndarray


def _play_hands(deals, plan, out, position, start, log_rows, capacity, searching):
    """Play hands ``start`` on to the end with each seat's agent (``plan``, a ``SeatPlan``); return (hands done,
    log rows used).

    ``position`` is the hand's working position (``new_position(cap, repeat)``'s); the searches' positions are
    made like it, and their trees hold up to ``capacity`` nodes. With a log that fills up, it stops before the
    hand that does not fit. With a ``continue_cap`` of 0 or more, a hand the rules cut off plays on past the cut
    (``continue_past_cutoff``), each seat keeping its memory. ``searching`` is None in a lineup without ``mcts``:
    numba then drops the search and the opponent models before typing them. Compiled as ``_play_searching`` and
    ``_play_plain`` (``agents.lineup.lineup_entry_kernels``).
    """
    n_seats, seeds, first_seats = deals.n_seats, deals.seeds, deals.first_seats
    continue_cap, ints_out, held_out, log = deals.continue_cap, out.ints, out.held, out.log
    cards, ints = position.cards, position.ints
    work = search_work(position, n_seats, capacity)
    known, loglik = work.known, work.loglik
    seat_streams = np.zeros(n_seats, dtype=np.uint64)
    logging = log.shape[0] > 0
    for h in range(start, seeds.shape[0]):
        deal_hand(position, n_seats, first_seats[h], seeds[h], deals.cap, deals.repeat)
        for s in range(n_seats):
            seat_streams[s] = plan.streams[h, s]
        known[0] = 0.0
        loglik[:] = 0.0
        observed = False
        for s in range(n_seats):
            observed = observed or learns_models(plan, h, s)
        step = 0
        continued = False
        while True:
            if is_over(ints):
                if continued or continue_cap < 0 or not is_cut_off(ints):
                    break
                _store_hand(h, ints, cards, n_seats, ints_out[0], held_out[0])
                continue_past_cutoff(cards, ints, continue_cap)
                known[0] = 0.0  # a greedy playout carried from before the cut ran under the old rules
                continued = True
                continue
            seat = to_move(ints)
            action = _decide(seat_agent(plan, h, seat), position, seat_streams, work, searching)
            if searching is not None and observed:
                _score_choice(plan, h, seat, action, position, work)
            if logging:
                if log_rows + step >= log.shape[0]:
                    return h, log_rows
                log_decision(log[log_rows + step], h, step, seat, phase_of(ints), action)
            apply_action(position, action)
            step += 1
        log_rows += step
        _store_hand(h, ints, cards, n_seats, ints_out[1 if continue_cap >= 0 else 0],
                    held_out[1 if continue_cap >= 0 else 0])
        if continue_cap >= 0 and not continued:
            _store_hand(h, ints, cards, n_seats, ints_out[0], held_out[0])
    return seeds.shape[0], log_rows


_play_searching, _play_plain = lineup_entry_kernels(_play_hands)  # the lineup with ``mcts`` seats, and without


@njit(**config.PASTED_KERNEL)
def _store_hand(h, ints, cards, n_seats, ints_out, held_out):
    """Hand ``h``'s ints row and the cards each seat holds, as the hand stands, into row ``h`` of the outputs."""
    for i in range(ints.shape[0]):
        ints_out[h, i] = ints[i]
    for s in range(n_seats):
        held_out[h, s] = held(cards, s)


def _searching(specs: Sequence[str]) -> bool:
    return any(getattr(compiled_seat(spec), "kind", None) == MCTS for spec in specs)


class KnorriLineups:
    """Knorri's compiled lineup player, registered on import (``agents`` imports it): every seat
    ``random``, ``greedy``, ``loginf`` or ``mcts`` (not ``time=``), hand k of every match in one ``play_lineup``
    call, the columns built by the engine's ``sim.knorri.adapter.lineup_columns``."""

    names = BUILT_IN
    logs_actions = True
    # Each lineup kernel, with the CPU seconds compiling it takes on first use (as measured in docs/speed.md).
    CODE: dict[str, float] = {"_play_searching": 35.0, "_play_plain": 24.0}

    def accepts(self, specs: Sequence[str]) -> bool:
        """Whether every spec has a compiled seat (``compiled_seat``)."""
        return all(compiled_seat(spec) is not None for spec in specs)

    def compiled_code(self, specs: Sequence[str]) -> dict[str, float]:
        """The lineup kernel ``specs`` run (``agents.lineup.lineup_kernel_code``), with its measured compile seconds."""
        return lineup_kernel_code(__name__, self.CODE, _searching(specs))

    def compile_parts(self, specs: Sequence[str]) -> Sequence[Callable[[], object]]:
        """The search kernels the lineup kernel ``specs`` run calls (``agents.knorri.search_parts``)."""
        return search_parts.SEARCHING_PARTS if _searching(specs) else search_parts.PLAIN_PARTS

    def play(self, n_seats: int, match_seeds: Sequence[int], seatings: Sequence[Sequence[str]], match_hands: int,
             log_actions: bool, options: dict[str, Any],
             continuation: dict[str, Any] | None = None) -> ChunkColumns:
        """Play one match of ``match_hands`` hands per seed, ``seatings[i]`` at the table, under the table's cut-off
        options (``cap``, ``repeat``); with a ``continuation``, a hand they cut off plays on past the cut
        (``sim.knorri.adapter.check_continuation``)."""
        rules = check_options(options)
        cap, repeat = rules.get("cap", MAX_PHASE2_ACTIONS), rules.get("repeat", DEFAULT_REPEAT)
        more = check_continuation(rules, continuation)
        continue_cap = None if more is None else more["cap"]
        seats = [[compiled_seat(spec) for spec in seating] for seating in seatings]

        def rows(seeds: np.ndarray, first_seats: np.ndarray) -> tuple[Any, ...]:
            played = play_lineup(n_seats, seeds, first_seats, seats, log_actions, cap=cap, repeat=repeat,
                                 continue_cap=continue_cap)
            continued = None if played.continued is None else (played.continued.ints, played.continued.held)
            return played.ints, played.held, played.log, continued

        return lineup_columns(n_seats, match_seeds, match_hands, log_actions, rows)


LINEUP_PLAYER = register_lineup(GAME, KnorriLineups())
