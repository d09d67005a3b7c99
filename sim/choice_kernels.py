"""Kernels that Knockout Whist's and Kort's compiled engines share, written once and compiled for each engine.

Both engines give a decision's legal ids by one function, ``choices(cards, ints)``: a card set and a run
of special ids (``sim.compiled_bits.write_choices``). The legal list, the legality check and the uniform
draw follow from it alike: ``choice_kernels`` builds those kernels from an engine's own module, which
calls it once, at import.

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


def _compiled(kernel: Any, game: str, flags: dict) -> Any:
    """``kernel`` compiled with ``flags``, its names suffixed with ``game`` before numba sees them."""
    kernel.__name__ = f"{kernel.__name__}_{game}"
    kernel.__qualname__ = f"{kernel.__qualname__}_{game}"
    return njit(**flags)(kernel)
