"""Playouts: finish a full-information Knorri position with a simple policy and read the scores.

Search agents need ``evaluate(hand) -> scores`` (``mcts``'s leaf values) or ``best_action(hand)``
(``loginf``'s look-ahead: the action whose playout scores best for the seat to move). A playout finishes
the hand under its own cut-off options (``hand.cap``, ``hand.repeat``: the table's, as the tracker rebuilt it).
Two evaluators offer it:

- ``PythonPlayout`` clones the reference hand and plays it out in Python;
- ``CompiledPlayout`` reads the position into the compiled engine's rows and plays
  it out in one compiled call.

``loginf`` looks ahead with the compiled one, at the position its tracker keeps in step
(``best_action_at``); the Python one is the readable statement it is tested against.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from agents.knorri.greedy import greedy_action
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64

if TYPE_CHECKING:
    from sim.knorri.compiled import PositionRows

LOOKAHEAD_CODE: dict[str, float] = {"agents.knorri.search:lookahead_choice": 13.0}
"""The compiled look-ahead of a ``loginf`` choice (with the engine's step and the playout inside it) and its
measured compile seconds: ``loginf`` runs it, and so does ``mcts`` for the seats it models. Both declare it
under this one key, so a table seating both counts it once (``COMPILED_CODE``)."""

PLAYOUT_POLICIES = ("random", "greedy")


class Playout(Protocol):
    """Scores of a position played to its end (one list entry per seat)."""

    def evaluate(self, hand: KnorriHand) -> list[float]:
        """Play ``hand`` (not changed) out and return every seat's final score."""

    def best_action(self, hand: KnorriHand) -> int:
        """The legal action whose playout scores best for the seat to move (greedy's choice first, keeping ties)."""


def _check_policy(policy: str) -> str:
    if policy not in PLAYOUT_POLICIES:
        raise ValueError(f"playout policy {policy!r} is unknown: use {' or '.join(PLAYOUT_POLICIES)}")
    return policy


class PythonPlayout:
    """Plays a clone of the position out in Python: ``greedy`` everywhere, or uniform ``random``."""

    def __init__(self, policy: str = "greedy", seed: int = 0) -> None:
        self.policy = _check_policy(policy)
        self._stream = SplitMix64(seed)

    def evaluate(self, hand: KnorriHand) -> list[float]:
        """Every seat's final score after playing a clone of ``hand`` to its end."""
        game = hand.clone()
        finish_in_place(game, self.policy, self._stream)
        return [float(s) for s in game.scores]

    def best_action(self, hand: KnorriHand) -> int:
        """Each legal action played out in turn, greedy's choice first; the first with the best score wins."""
        return best_by_playouts(self.evaluate, hand)


def best_by_playouts(evaluate: Callable[[KnorriHand], list[float]], hand: KnorriHand) -> int:
    """The legal action whose playout (``evaluate`` of the hand after it) scores best for the seat to move,
    greedy's choice tried first and kept on ties: ``loginf``'s look-ahead."""
    seat, legal = hand.to_move, hand.legal_actions()
    default = greedy_action(hand.phase, hand.hands[seat], hand.top_card, hand.opening, legal)
    best_action, best_score = default, None
    for action in [default] + [a for a in legal if a != default]:
        child = hand.clone()
        child.apply(action)
        score = evaluate(child)[seat]
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action


def finish_in_place(game: KnorriHand, policy: str, stream: SplitMix64) -> None:
    """Play ``game`` itself to its end with ``policy`` for every seat."""
    while not game.done:
        legal = game.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif policy == "greedy":
            action = greedy_action(game.phase, game.hands[game.to_move], game.top_card, game.opening, legal)
        else:
            action = stream.choice(legal)
        game.apply(action)


class CompiledPlayout:
    """One compiled playout per call (``agents.knorri.search``) from a phase-2 position (Python for a phase-1 one).

    The position is read into the compiled engine's rows and played out in one compiled call
    with the same policy; greedy draws nothing at random, so its scores equal
    ``PythonPlayout``'s exactly (tested).
    """

    def __init__(self, policy: str = "greedy", seed: int = 0) -> None:
        from agents.knorri import search as compiled_search  # imported here: the compiled engine is optional
        from sim.knorri.compiled import position_rows

        self.policy = _check_policy(policy)
        self._search = compiled_search
        self._rows = position_rows
        self._scratch, self._aside = compiled_search.Scratch(), compiled_search.Scratch()
        self._policy_id = compiled_search.POLICY_IDS[policy]
        self._stream = SplitMix64(seed)
        self._python = PythonPlayout(policy, seed)

    def evaluate(self, hand: KnorriHand) -> list[float]:
        """Every seat's final score after one compiled playout of ``hand``."""
        if hand.phase == 1 or hand.done:
            return self._python.evaluate(hand)
        return self._search.play_out(self._rows(hand), self._policy_id, self._stream.next(), self._scratch)

    def best_action(self, hand: KnorriHand) -> int:
        """``best_by_playouts`` in one compiled call from a phase-2 position (``search.lookahead_action``): the
        same candidates in the same order, a ``random`` playout's seed drawn from this playout's stream as
        ``evaluate`` draws it."""
        if hand.phase == 1 or hand.done:
            return best_by_playouts(self.evaluate, hand)
        return self.best_action_at(self._rows(hand))

    def best_action_at(self, rows: PositionRows) -> int:
        """``best_action`` of a phase-2 position still playing, given as the compiled engine's rows (a tracker's
        ``position_rows``)."""
        streams = np.array([self._stream.state], dtype=np.uint64)
        action = self._search.lookahead_action(rows, self._scratch, self._aside, self._policy_id, streams)
        self._stream.state = int(streams[0])
        return action
