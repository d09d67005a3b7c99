"""Kernels that Knockout Whist's and Kort's compiled engines share, written once and compiled for each engine.

Both engines give a decision's legal ids by one function, ``choices(cards, ints)``: a card set and a run
of special ids (``sim.compiled_bits.write_choices``). The legal list, the legality check and the uniform
draw follow from it alike, and so do a batch's legal masks, its first illegal action and its loop over
the games to observe. ``choice_kernels`` and ``batch_kernels`` build those kernels from an engine's own
modules; each engine's ``kernels`` and ``batch_kernels`` modules call them once, at import.

Why a factory holds modules, not compiled functions: numba's compiled-code cache keys a closure by its
captured values, pickled, and a compiled function pickles with an id that is new in every process (its
closures would compile anew in every run), while a module pickles by its name. A kernel here reads the
engine's functions as attributes of the module it holds, which numba resolves when it compiles them, so
each engine's kernels compile once and load from the cache after. Each kernel is named after its game
(``legal_actions_kort``), so one machine-code symbol means one body (``sim.compiled_bits._accessor`` says
why that matters).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from numba import njit

from sim import config
from sim.compiled_bits import among_choices, draw_choice, write_choices


def choice_kernels(engine: ModuleType, game: str) -> tuple[Any, Any, Any]:
    """``engine``'s ``legal_actions``, ``is_legal`` and ``uniform_action``, read from its ``choices``.

    ``engine`` is the module that defines ``choices(cards, ints) -> (card_set, special, n_special)``;
    ``game`` names the kernels (``legal_actions_<game>``).
    """

    def legal_actions(cards, ints, legal):
        """Write the legal ids, ascending, into ``legal`` (int64, one slot per action id) and return how many."""
        card_set, special, n_special = engine.choices(cards, ints)
        return write_choices(card_set, special, n_special, legal)

    def is_legal(cards, ints, action):
        """Whether ``action`` is legal for the seat to move."""
        card_set, special, n_special = engine.choices(cards, ints)
        return among_choices(card_set, special, n_special, action)

    def uniform_action(cards, ints, rng, stream):
        """``legal[next() % len(legal)]`` from ``rng[stream]``, reading the k-th legal id straight from ``choices``."""
        card_set, special, n_special = engine.choices(cards, ints)
        return draw_choice(card_set, special, n_special, rng, stream)

    return tuple(_compiled(kernel, game, config.INLINED_KERNEL) for kernel in (legal_actions, is_legal,
                                                                                uniform_action))


def batch_kernels(engine: ModuleType, observer: ModuleType, to_move: int, end_reason: int,
                  game: str) -> tuple[Any, Any, Any]:
    """A batch's ``batch_legal_mask``, ``batch_first_illegal`` and ``batch_observe`` for ``engine``'s games.

    ``engine`` defines ``legal_actions`` and ``is_legal`` (``choice_kernels``), ``observer`` defines
    ``observe_seat(cards_row, ints_row, seat, out_row)``, which writes one live game's observation from
    ``seat``'s point of view into a zeroed row; ``to_move`` and ``end_reason`` are the columns of the ints
    row holding the seat to move and the end reason (-1 while the game goes on).
    """

    def batch_legal_mask(cards, ints, mask, legal):
        """``mask[g, a]`` = whether action a is legal in game g (all False once it is over); ``legal``: int64 scratch
        with a slot per action id."""
        mask[:] = False
        for g in range(ints.shape[0]):
            count = engine.legal_actions(cards[g], ints[g], legal)
            for i in range(count):
                mask[g, legal[i]] = True

    def batch_first_illegal(cards, ints, actions):
        """The first game (not over) whose action is not legal, or -1 when every action is."""
        for g in range(ints.shape[0]):
            if ints[g, end_reason] < 0 and not engine.is_legal(cards[g], ints[g], actions[g]):
                return g
        return -1

    def batch_observe(cards, ints, out):
        """Write each game's observation from its acting seat's point of view (zeros once it is over)."""
        out[:] = 0.0
        for g in range(ints.shape[0]):
            seat = ints[g, to_move]
            if ints[g, end_reason] < 0 and seat >= 0:
                observer.observe_seat(cards[g], ints[g], seat, out[g])

    return tuple(_compiled(kernel, game, config.STEP_KERNEL) for kernel in (batch_legal_mask, batch_first_illegal,
                                                                             batch_observe))


def _compiled(kernel: Any, game: str, flags: dict) -> Any:
    """``kernel`` compiled with ``flags``, its names suffixed with ``game`` before numba sees them."""
    kernel.__name__ = f"{kernel.__name__}_{game}"
    kernel.__qualname__ = f"{kernel.__qualname__}_{game}"
    return njit(**flags)(kernel)
