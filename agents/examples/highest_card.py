"""An example Knorri agent to copy: the constructor, ``PARAMETERS``, the observation fields it reads.

Run it against the built-in agents (one line, from the repository root)::

    knorri-sim run --agents "agents.examples.highest_card:HighestCardAgent;greedy;random;random" --hands 200

(``...:HighestCardAgent:low_when_ahead=true`` sets its parameter). A spec is ``module:Class[:key=value,...]``;
the module is imported from the installed packages or the working directory, so a copy saved as
``./mybot.py`` runs as ``mybot:HighestCardAgent``. What each observation field means, for every game:
``docs/observations.md`` (a wheel installs it, with the rules pages ``seeds/*.md``, under
``<sys.prefix>/share/knorri-sim/``).

The protocol: ``name``; ``reset(seat, n_seats, seed=None)`` at the start of every hand; ``act(observation,
legal) -> int``, one of the ascending ``legal`` ids (a Python or NumPy integer; anything else stops the
run with one line). The constructor must take ``seed``: the runner builds every agent with one.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.cards import rank_of, suit_of
from sim.knorri.encoding import PICK_UP  # 52: pick up the bottom card of the trick
from sim.knorri.observation import KnorriObservation


class HighestCardAgent:
    """Takes the highest capture in phase 1; in phase 2 plays its highest legal card, never picking up by choice.

    With ``low_when_ahead=true`` it plays its lowest legal card instead while it holds fewer cards than
    every other seat still in (it is ahead, so it saves its high cards).

    Observation fields read: ``phase``, ``seat``, ``hand``, ``card_counts`` and ``out``.
    """

    PARAMETERS: dict[str, type] = {"low_when_ahead": bool}  # what a spec may set: low_when_ahead=true

    def __init__(self, seed: int = 0, low_when_ahead: bool = False) -> None:
        self.name = "highest_card"
        self.seed = seed  # this agent is deterministic; a random one would seed its generator here
        self.low_when_ahead = low_when_ahead
        self.seat = -1

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """A new hand at ``seat``: nothing to forget."""
        self.seat = seat

    def act(self, observation: KnorriObservation, legal: Sequence[int]) -> int:
        """The chosen legal id: the highest card (by rank, then suit), or the lowest when ahead and asked to."""
        cards = [action for action in legal if action < PICK_UP]
        if not cards:  # only a pick-up (or a club-run opening) is legal
            return int(legal[-1])
        by_rank = sorted(cards, key=lambda card: (rank_of(card), suit_of(card)))
        if observation.phase == 2 and self.low_when_ahead and self._ahead(observation):
            return by_rank[0]
        return by_rank[-1]

    def _ahead(self, observation: KnorriObservation) -> bool:
        mine = len(observation.hand)
        others = [count for seat, count in enumerate(observation.card_counts)
                  if seat != observation.seat and not observation.out[seat]]
        return all(mine < count for count in others)
