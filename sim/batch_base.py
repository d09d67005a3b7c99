"""What every game's compiled batch does the same way in Python: checking inputs, threads, masks and the step.

Each game's ``batch`` module keeps its own kernels, state columns and results;
``CompiledBatch`` is the part of its batch class that only needs to know where
those columns are, and the functions below check what callers pass in.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from types import ModuleType
from typing import Any, ClassVar

import numba
import numpy as np

from sim import config
from sim.errors import GameInputError, IllegalActionError

CHUNKS_PER_WORKER = 16
"""A parallel playout splits its games into this many chunks a thread, so a slow chunk does not hold up a core."""


def empty_state(total: int, card_fields: int, int_fields: int, rng_fields: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed state arrays for ``total`` games: card sets (uint64), ints (int64), decks (int64[52]), streams."""
    return (np.zeros((total, card_fields), dtype=np.uint64), np.zeros((total, int_fields), dtype=np.int64),
            np.zeros((total, 52), dtype=np.int64), np.zeros((total, rng_fields), dtype=np.uint64))


def seeded_state(seeds: Sequence[int] | np.ndarray, layout: ModuleType
                 ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``seeds`` checked (``check_seeds``) and zeroed state arrays for one game each (``empty_state``), sized by a
    compiled engine's layout module (its ``NUM_CARD_FIELDS``, ``NUM_INT_FIELDS`` and ``NUM_RNG``)."""
    seeds = check_seeds(seeds)
    return seeds, empty_state(len(seeds), layout.NUM_CARD_FIELDS, layout.NUM_INT_FIELDS, layout.NUM_RNG)


def protocol_rows(*columns: Sequence[Any]) -> list[str]:
    """One protocol line per game from per-game columns (a per-seat or per-team column's values written in
    turn), fields separated by spaces."""
    lines = []
    for row in zip(*columns, strict=True):
        values = [v for value in row for v in (value if isinstance(value, list) else [value])]
        lines.append(" ".join(str(v) for v in values))
    return lines


class BatchResultsBase:
    """What every game's ``BatchResults`` dataclass does alike: its length (the games) and its fields by name."""

    seed: np.ndarray

    def __len__(self) -> int:
        return len(self.seed)

    def to_dict(self) -> dict[str, Any]:
        """Every field by name (per-seat and per-round fields stay multi-dimensional; options as a dict; fields
        left out, None, are not given)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}
        if "options" in values:
            values["options"] = values["options"].to_dict()
        return values


def check_seeds(seeds: Sequence[int] | np.ndarray) -> np.ndarray:
    """Seeds as ``uint64[N]``; a ``GameInputError`` unless they are a 1-D array of non-negative integers."""
    seeds = np.asarray(seeds)
    if seeds.ndim != 1 or (seeds.size and (seeds.dtype.kind not in "iu" or (seeds.dtype.kind == "i" and
                                                                            seeds.min() < 0))):
        raise GameInputError("seeds must be a 1-D array of non-negative integers")
    return seeds.astype(np.uint64)


def policy_id(policy: int | str, names: Mapping[str, int]) -> int:
    """A compiled policy's id from its id or its name in ``names``; a ``GameInputError`` for anything else."""
    if isinstance(policy, str):
        if policy not in names:
            raise GameInputError(f"unknown policy {policy!r}: known policies are {', '.join(names)}")
        return names[policy]
    if int(policy) not in names.values():
        raise GameInputError(f"unknown policy id {policy}: known ids are {sorted(names.values())}")
    return int(policy)


def playout_request(seeds: Sequence[int] | np.ndarray, policy: int | str, names: Mapping[str, int],
                    workers: int | None) -> tuple[np.ndarray, int, int]:
    """A whole-game playout's inputs, checked: the seeds (``check_seeds``), the policy's id among ``names``
    (``policy_id``) and the thread count (``check_workers``)."""
    return check_seeds(seeds), policy_id(policy, names), check_workers(workers)


def check_workers(workers: int | None) -> int:
    """How many threads a playout may spread over: ``workers``, or every core numba counts when it is None."""
    if workers is None:
        return min(config.default_workers(), numba.config.NUMBA_NUM_THREADS)
    if not 1 <= int(workers) <= numba.config.NUMBA_NUM_THREADS:
        raise GameInputError(f"workers must be 1 to {numba.config.NUMBA_NUM_THREADS}, not {workers}")
    return int(workers)


def chunk_count(total: int, workers: int) -> int:
    """How many chunks a parallel playout of ``total`` games on ``workers`` threads splits them into."""
    return max(1, min(total, workers * CHUNKS_PER_WORKER))


def play_spread(workers: int, total: int, serial: Callable[..., Any], head: Sequence[Any],
                thread_tail: Callable[[], Sequence[Any]]) -> None:
    """Play ``total`` games with the serial chunk kernel, ``serial(*head, start, stop, *tail)``: on one worker over
    all of them, on more over ``chunk_count`` chunks that ``workers`` threads take in turn. Each thread makes its own
    ``tail`` by calling ``thread_tail()`` (its scratch rows, where the kernel needs any), so no two chunks played at
    once share scratch rows or write near each other's. A failing chunk, or an interrupt, stops the threads taking
    more; its error is raised here.

    The kernels release the GIL, so plain threads play on as many cores and nothing more is compiled: a ``prange``
    wrapper would link, optimise and emit the whole engine again, which cost more CPU than a timing it serves.
    """
    if workers == 1:
        serial(*head, np.int64(0), np.int64(total), *thread_tail())
        return
    chunks = chunk_count(total, workers)
    taken = itertools.count()
    taking = threading.Lock()
    stopped = threading.Event()  # a chunk failed or the caller was interrupted: take no more chunks

    def play_chunks() -> None:
        tail = thread_tail()
        while not stopped.is_set():
            with taking:
                chunk = next(taken)
            if chunk >= chunks:
                return
            try:
                serial(*head, np.int64(chunk * total // chunks), np.int64((chunk + 1) * total // chunks), *tail)
            except BaseException:
                stopped.set()
                raise

    with ThreadPoolExecutor(workers) as pool:
        threads = [pool.submit(play_chunks) for _ in range(workers)]
        try:
            for thread in threads:
                thread.result()  # a chunk's error, if any, is raised here
        except BaseException:  # Ctrl-C too: the threads finish the chunk they play, and start no other
            stopped.set()
            raise


def code_names(codes: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Integer codes as their names (``str`` array of the same shape); a negative code (none yet) is ``""``."""
    table = np.array([*map(str, names), ""])
    return table[np.where(np.asarray(codes) < 0, len(names), codes)]


def ints_column(column: int, doc: str) -> property:
    """A batch's read-only property ``int64[B]``: every entry's ``_ints[:, column]`` (a copy), documented ``doc``."""
    return property(lambda batch: batch._ints[:, column].copy(), doc=doc)


def ints_columns(column: int, width: int, doc: str) -> property:
    """A batch's read-only property ``int64[B, width]``: the ``width`` columns from ``column`` (a copy)."""
    return property(lambda batch: batch._ints[:, column:column + width].copy(), doc=doc)


class CompiledBatch:
    """B games of one kind stepped together: the questions and the step every game's batch answers alike.

    A game's subclass holds the state arrays (``_cards`` with each seat's hand at
    ``C_HAND + s``, ``_ints`` with one row of scalars a game), ``n_seats``, and names
    its columns in the class attributes below (or gives its engine's layout module as
    ``LAYOUT``, which names them) and its kernels module in ``KERNELS``. The step kernels
    take the ``STATE`` arrays in order; a game whose kernels take more overrides
    ``_first_illegal``, ``_apply`` and ``_play_others``.
    """

    UNIT = "game"
    """What one entry of the batch is called in messages (a Knorri batch holds hands)."""
    NUM_ACTIONS: int
    OBSERVATION_SIZE: int
    C_HAND: int
    I_TO_MOVE: int
    I_END_REASON: int
    I_SCORE: int
    END_REASONS: tuple[str, ...] = ()
    """The names of the end-reason codes, in code order (``end_reason_code`` indexes this)."""
    KERNELS: ClassVar[Any]
    """The game's batch kernels module: ``batch_legal_mask(cards, ints, mask bool[B, A], scratch int64[A])``,
    ``batch_observe(cards, ints, out float32[B, F])``, ``batch_decide(cards, ints, rngs, policies int8[B, n],
    out int64[B])``, ``batch_first_illegal(cards, ints, ids)``, ``batch_step(*state, ids)`` and
    ``batch_play_others(*state, policies, seat)``."""
    POLICIES: ClassVar[Mapping[str, int]] = {}
    """The compiled policies ``play_others`` can seat, by agent name (each makes that agent's choices)."""
    STATE: ClassVar[tuple[str, ...]] = ("_cards", "_ints", "_decks", "_rngs")
    """The attributes holding per-entry state (first axis: the entry), which ``restart`` replaces."""
    LAYOUT: ClassVar[ModuleType | None] = None
    """The compiled engine's state layout module, if it names the columns above (``C_HAND``, ``I_TO_MOVE``,
    ``I_END_REASON``, ``I_SCORE``) and ``END_REASONS`` (enum members or names): then they are read from it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Take the columns and end reasons from ``LAYOUT`` when the subclass gives one."""
        super().__init_subclass__(**kwargs)
        layout = cls.__dict__.get("LAYOUT")
        if layout is not None:
            cls.C_HAND, cls.I_TO_MOVE = layout.C_HAND, layout.I_TO_MOVE
            cls.I_END_REASON, cls.I_SCORE = layout.I_END_REASON, layout.I_SCORE
            cls.END_REASONS = tuple(getattr(reason, "value", reason) for reason in layout.END_REASONS)

    n_seats: int
    _cards: np.ndarray
    _ints: np.ndarray
    _rngs: np.ndarray

    def __len__(self) -> int:
        return len(self._ints)

    def legal_mask(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``bool[B, NUM_ACTIONS]``: the legal actions of each entry's seat to move (all False once it is over);
        with ``rows`` (entry indices), only those entries' rows, in that order."""
        cards, ints = self._rows(rows)
        mask = np.zeros((len(ints), self.NUM_ACTIONS), dtype=np.bool_)
        self.KERNELS.batch_legal_mask(cards, ints, mask, np.zeros(self.NUM_ACTIONS, dtype=np.int64))
        return mask

    def policy_actions(self, policies: np.ndarray) -> np.ndarray:
        """``int64[B]``: the action the compiled policy ``policies[b, seat]`` takes for entry b's seat to move.

        ``policies`` is ``int8[B, n_seats]`` of the game's policy ids (``-1``: no policy at that seat, its entry
        of the result is -1, as for entries that are over). A policy draws from its seat's own stream in the
        batch, seeded ``agent_seed(seed, seat)`` as ``RandomAgent`` is, so it makes the agent's very choices.
        """
        out = np.full(len(self), -1, dtype=np.int64)
        self.KERNELS.batch_decide(self._cards, self._ints, self._rngs, np.ascontiguousarray(policies, dtype=np.int8),
                                  out)
        return out

    def _rows(self, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The card and int state of ``rows`` (copies), or of every entry."""
        if rows is None:
            return self._cards, self._ints
        return self._cards[rows], self._ints[rows]

    @property
    def to_move(self) -> np.ndarray:
        """``int64[B]``: the seat to move in each entry (-1 once over)."""
        return self._ints[:, self.I_TO_MOVE].copy()

    @property
    def done(self) -> np.ndarray:
        """``bool[B]``: which entries are over."""
        return self._ints[:, self.I_END_REASON] >= 0

    @property
    def end_reason(self) -> np.ndarray:
        """``str[B]``: why each entry ended, by name (one of ``END_REASONS``); ``""`` while it is playing."""
        return code_names(self.end_reason_code, self.END_REASONS)

    @property
    def end_reason_code(self) -> np.ndarray:
        """``int8[B]``: the end reason as an index into ``END_REASONS``; -1 while playing."""
        return self._ints[:, self.I_END_REASON].astype(np.int8)

    @property
    def scores(self) -> np.ndarray:
        """``int64[B, n_seats]``: each seat's score so far (final once over; the class says how games score)."""
        return self._ints[:, self.I_SCORE:self.I_SCORE + self.n_seats].copy()

    @property
    def card_counts(self) -> np.ndarray:
        """``int64[B, n_seats]``: cards each seat holds (public in both games)."""
        return np.bitwise_count(self._cards[:, self.C_HAND:self.C_HAND + self.n_seats]).astype(np.int64)

    def observation_tensor(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``float32[B, OBSERVATION_SIZE]``: each entry from its acting seat's point of view (``OBSERVATION_SLICES``).

        It holds only what that seat may know (the class says what); seats are counted
        from the acting seat. Rows of finished entries are zero. With ``rows`` (entry
        indices), only those entries' rows, in that order.
        """
        cards, ints = self._rows(rows)
        out = np.zeros((len(ints), self.OBSERVATION_SIZE), dtype=np.float32)
        self.KERNELS.batch_observe(cards, ints, out)
        return out

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Apply ``actions[b]`` in every entry b still playing (entries for finished ones are ignored).

        The whole batch is checked first: one illegal action raises ``IllegalActionError``
        naming the batch index, seat and action, and then nothing in the batch has changed.
        """
        ids = self.action_ids(actions)
        bad = self._first_illegal(ids)
        if bad >= 0:
            self.raise_illegal(bad, actions)
        self._apply(ids)

    def action_ids(self, actions: Sequence[int] | np.ndarray) -> np.ndarray:
        """``int64[B]``: one action id per entry, -1 for ids out of range (never wrapped round); a
        ``GameInputError`` unless ``actions`` is one integer per entry."""
        actions = np.asarray(actions)
        if actions.shape != (len(self),) or (actions.size and actions.dtype.kind not in "iu"):
            raise GameInputError(f"step needs one integer action per {self.UNIT}: shape ({len(self)},), "
                                 f"got {actions.shape} {actions.dtype}")
        return np.where((actions < 0) | (actions >= self.NUM_ACTIONS), -1, actions).astype(np.int64)

    def raise_illegal(self, bad: int, actions: Sequence[int] | np.ndarray) -> None:
        """Raise the ``IllegalActionError`` for entry ``bad``'s action in ``actions`` (its seat, action, legal ids)."""
        seat = int(self._ints[bad, self.I_TO_MOVE])
        legal = np.flatnonzero(self.legal_mask(np.array([bad]))[0]).tolist()
        error = IllegalActionError(seat, int(np.asarray(actions)[bad]), legal, who=f"batch index {bad}")
        error.batch_index = bad
        raise error

    def policy_ids(self, policies: Mapping[int, str] | Sequence[str], seat: int) -> np.ndarray:
        """``int64[n_seats]``: the compiled policy id of every seat but ``seat`` (whose entry is 0), by name
        (``policies[s]``, one of ``POLICIES``); a ``GameInputError`` for a name without one."""
        ids = np.zeros(self.n_seats, dtype=np.int64)
        for other in range(self.n_seats):
            if other != seat:
                name = policies[other]
                if name not in self.POLICIES:
                    raise GameInputError(f"no compiled policy {name!r} for seat {other}: the compiled policies "
                                         f"are {', '.join(self.POLICIES)}")
                ids[other] = self.POLICIES[name]
        return ids

    def play_others(self, policies: Mapping[int, str] | Sequence[str], seat: int) -> None:
        """Let every seat but ``seat`` play by its compiled policy until ``seat`` is to move or the entry is over.

        ``policies[s]`` names seat s's policy (one of ``POLICIES``; ``seat``'s own is ignored). Random
        policies draw from the seats' own streams, as ``RandomAgent`` reset with ``agent_seed(seed, s)``
        does, so an entry with a learner at ``seat`` is the runner's game with that agent there.
        """
        self._play_others_by_id(self.policy_ids(policies, seat), seat)

    def _play_others_by_id(self, ids: np.ndarray, seat: int) -> None:
        """``play_others`` with the policies as ``policy_ids`` gives them."""
        while True:
            self._prepare_step()
            self._play_others(ids, int(seat))
            waiting = (self._ints[:, self.I_END_REASON] < 0) & (self._ints[:, self.I_TO_MOVE] != seat)
            if not waiting.any():
                return

    def advance_learner(self, rows: np.ndarray, ids: np.ndarray | None, policies: np.ndarray, seat: int,
                        observations: np.ndarray, masks: np.ndarray, done: np.ndarray) -> None:
        """A learner's step in the entries ``rows`` (int64, ascending): apply ``ids`` (every entry's action id,
        already checked legal; None: no learner move, as after a fresh deal), let the other seats play
        ``policies`` (``policy_ids``) to ``seat``'s next turn, then write row b of ``observations`` (float32),
        ``masks`` (bool) and ``done`` for each entry b of ``rows``. ``ids`` is given only with every entry in
        ``rows``. A game may do it all in one compiled pass (``KnorriBatch``); this is the plain sequence."""
        if ids is not None:
            self._apply(ids)
        self._play_others_by_id(policies, seat)
        if len(rows) == len(self):
            self.KERNELS.batch_observe(self._cards, self._ints, observations)
            self.KERNELS.batch_legal_mask(self._cards, self._ints, masks, np.zeros(self.NUM_ACTIONS, dtype=np.int64))
            done[:] = self.done
        else:
            observations[rows] = self.observation_tensor(rows)
            masks[rows] = self.legal_mask(rows)
            done[rows] = self.done[rows]

    def outcome(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entries ``rows``' scores (``int64[k, n_seats]``) and end reason codes (``int8[k]``), read for those
        rows alone (cheaper than ``scores`` and ``end_reason_code`` when few entries ended)."""
        ints = self._ints[rows]
        return ints[:, self.I_SCORE:self.I_SCORE + self.n_seats], ints[:, self.I_END_REASON].astype(np.int8)

    def restart(self, where: np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal fresh entries at the indices ``where`` from ``seeds`` (as ``from_seeds`` deals them): autoreset."""
        where = np.asarray(where, dtype=np.int64)
        if len(where) == 0:
            return
        fresh = self._fresh(check_seeds(seeds))
        for name in self.STATE:
            mine, theirs = getattr(self, name), getattr(fresh, name)
            if mine.shape[1:] == theirs.shape[1:]:
                mine[where] = theirs
            else:  # a longer buffer than a fresh deal's (a grown history): the rest starts empty
                mine[where] = 0
                mine[(where, *(slice(0, n) for n in theirs.shape[1:]))] = theirs

    def _fresh(self, seeds: np.ndarray) -> CompiledBatch:
        """A new batch of the same kind (seats, options) dealt from ``seeds``: ``from_seeds(seeds, self.options)``
        (a game whose batches are made otherwise overrides this, or ``restart``)."""
        return type(self).from_seeds(seeds, self.options)

    def _prepare_step(self) -> None:
        """Make room for what a step may remember (a game keeping a growing history overrides this)."""

    def _state(self) -> tuple[np.ndarray, ...]:
        """The per-entry state arrays, in ``STATE`` order (as the step kernels take them)."""
        return tuple(getattr(self, name) for name in self.STATE)

    def _play_others(self, policies: np.ndarray, seat: int) -> None:
        """Call the game's kernel letting seats other than ``seat`` play ``policies`` (ids, ``int64[n_seats]``)."""
        self.KERNELS.batch_play_others(*self._state(), policies, seat)

    def _first_illegal(self, ids: np.ndarray) -> int:
        """The first entry still playing whose action id is not legal, or -1 (``ids`` int64[B], -1 out of range)."""
        return self.KERNELS.batch_first_illegal(self._cards, self._ints, ids)

    def _apply(self, ids: np.ndarray) -> None:
        """Apply every entry's action, all of them checked legal."""
        self.KERNELS.batch_step(*self._state(), ids)
