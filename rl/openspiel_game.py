"""Every game registered with OpenSpiel as a Python game: ``pyspiel.load_game("python_knorri", {"players": 4})``.

Importing this module registers ``python_knorri``, ``python_knockout_whist`` and ``python_kort`` (parameters:
``players``, and the game's runner options). Each is sequential, zero-sum, imperfect-information, with terminal
rewards, played on the game's reference engine. Chance is explicit: a deal starts with ``SEED_BYTES`` chance
nodes that draw the 64-bit seed the harness deals from, so the deal is the one ``knorri-sim`` plays for that seed.
A player's information state string is its reference observation; its observation string leaves out the log.
An algorithm that clones states searches the true state, with perfect information; ``resample_from_infostate``
gives one the seat cannot tell from it, so ``ISMCTSBot`` searches only what the seat may know. More in
docs/internals.md, ``rl.openspiel_game``.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel

from rl.games import GameFacts, learning_games
from sim.errors import GameInputError
from sim.games import adapter
from sim.reference_base import ReferenceGame

SEED_BYTES = 8
"""The chance nodes at the start of a deal, one byte of the deal's seed each (most significant first)."""


def short_name(game: str) -> str:
    """The name OpenSpiel knows the game by: ``python_knorri``, ``python_knockout_whist``, ``python_kort``."""
    return "python_" + game.replace("-", "_")


def _game_type(facts: GameFacts) -> pyspiel.GameType:
    defaults: dict[str, Any] = {"players": facts.default_seats, **adapter(facts.name).check_options({})}
    return pyspiel.GameType(
        short_name=short_name(facts.name), long_name=f"Python {facts.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=facts.seats[-1], min_num_players=facts.seats[0],
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=False,
        parameter_specification=defaults)


class CardGame(pyspiel.Game):
    """One of the harness's games for OpenSpiel; ``GAME`` (set per registered subclass) names it."""

    FACTS: GameFacts

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        facts = self.FACTS
        params = dict(params or {})
        self.n_seats = facts.check_seats(int(params.pop("players", facts.default_seats)))
        self.options = adapter(facts.name).check_options(params)
        low, high = facts.score_range(self.n_seats)
        info = pyspiel.GameInfo(num_distinct_actions=facts.num_actions, max_chance_outcomes=256,
                                num_players=self.n_seats, min_utility=low, max_utility=high, utility_sum=0.0,
                                max_game_length=SEED_BYTES + facts.max_decisions(self.n_seats, self.options))
        super().__init__(_game_type(facts), info, {"players": self.n_seats, **self.options})

    def new_initial_state(self) -> CardGameState:
        """A deal about to draw its seed."""
        return CardGameState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ReferenceObserver:
        """Strings of the reference observation (with the public log for perfect recall)."""
        return ReferenceObserver(iig_obs_type is not None and iig_obs_type.perfect_recall)


class DealState:
    """Everything a ``CardGameState`` holds, in one object, so that OpenSpiel's clone copies it with one call.

    OpenSpiel clones a Python state by building a fresh one and deep-copying each entry of its ``__dict__``: with
    the reference game behind one ``__deepcopy__`` the copy is the engine's own ``clone`` (a few list copies),
    not a generic walk over every log event. ``legal`` caches the mover's legal actions (never mutated, so shared);
    ``player`` is OpenSpiel's current player, kept up to date by every action.
    """

    __slots__ = ("seed_bytes", "game", "legal", "player", "log_lines")

    def __init__(self) -> None:
        self.seed_bytes: tuple[int, ...] = ()
        self.game: ReferenceGame | None = None
        self.legal: list[int] | None = None
        self.player = CHANCE
        self.log_lines: list[str] = []  # the public log's events as JSON, filled in by ``public_log``

    def __deepcopy__(self, memo: dict) -> DealState:
        twin = DealState.__new__(DealState)
        twin.seed_bytes, twin.legal, twin.player = self.seed_bytes, self.legal, self.player
        twin.game = None if self.game is None else self.game.clone()
        twin.log_lines = self.log_lines[:]
        return twin

    def settle(self) -> None:
        """Refresh the cached player after the game moved (and forget the legal actions)."""
        game = self.game
        self.legal = None
        self.player = CHANCE if game is None else TERMINAL if game.end_reason is not None else game._to_move


CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class CardGameState(pyspiel.State):
    """A deal: the seed's chance nodes, then the reference game (all of it in ``DealState``)."""

    def __init__(self, game: CardGame) -> None:
        super().__init__(game)
        self._deal = DealState()

    @property
    def game(self) -> ReferenceGame | None:
        """The reference game being played (None while the seed is drawn)."""
        return self._deal.game

    def public_log(self) -> str:
        """The public log as JSON lines, each event written once (a log only grows), for information states."""
        lines, log = self._deal.log_lines, self._deal.game.log
        lines.extend(json.dumps(event, default=str, sort_keys=True) for event in log[len(lines):])
        return "\n".join(lines)

    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` while the seed is drawn, ``TERMINAL`` once the deal is over."""
        return self._deal.player

    def _legal_actions(self, player: int) -> list[int]:
        deal = self._deal
        if deal.legal is None:
            deal.legal = deal.game.legal_actions()
        return deal.legal

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (default: the one to move): what ``pyspiel.State.legal_actions`` gives,
        answered here for Python callers without OpenSpiel's round trips through the other Python methods."""
        deal = self._deal
        mover = deal.player
        if mover == TERMINAL:
            return []
        if mover == CHANCE:
            return list(range(256))
        if player is not None and player != mover:
            return []
        if deal.legal is None:
            deal.legal = deal.game.legal_actions()
        return list(deal.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next seed byte: 256 equally likely values."""
        return CHANCE_OUTCOMES

    def _apply_action(self, action: int) -> None:
        deal = self._deal
        game = deal.game
        if game is not None:
            legal = deal.legal if deal.legal is not None else game.legal_actions()
            if action not in legal:
                game.apply(action)  # refused by the engine, with its own one-line message
            # What ``ReferenceGame.apply`` does once the action is known to be legal (the check above reuses the
            # legal actions OpenSpiel asked for, rather than listing them a second time).
            game.decisions.append(int(action))
            game._take(int(action))
        else:
            deal.seed_bytes += (int(action),)
            if len(deal.seed_bytes) == SEED_BYTES:
                facts = self.get_game().FACTS
                deal.game = facts.new_game(self.num_players(), int.from_bytes(bytes(deal.seed_bytes), "big"),
                                           self.get_game().options)
        deal.settle()

    def _action_to_string(self, player: int, action: int) -> str:
        return f"seed byte {action}" if player == pyspiel.PlayerId.CHANCE else str(action)

    def is_terminal(self) -> bool:
        """Whether the deal is over."""
        return self._deal.player == TERMINAL

    def returns(self) -> list[float]:
        """Each seat's score once the deal is over (0 before)."""
        if self._deal.player != TERMINAL:
            return [0.0] * self.num_players()
        return [float(score) for score in self._deal.game.scores]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardGameState:
        """A state ``player_id`` cannot tell from this one, its hidden cards drawn afresh (what ISMCTS searches).

        ``probability_sampler()`` gives uniform numbers in [0, 1) (OpenSpiel's ``UniformProbabilitySampler``); two
        of them seed the draw. What is hidden, and how it is drawn, is each game's (its ``LearningFacts.resample``;
        a game without one is refused in one line). The copy keeps this state's OpenSpiel history, whose seed bytes
        then no longer describe its cards.
        """
        facts = self.get_game().FACTS
        if facts.resample is None:
            raise GameInputError(f"{facts.title} draws no hidden cards afresh: its adapter's LearningFacts give no "
                                 "resample, so OpenSpiel's resample_from_infostate (ISMCTS) is not offered")
        twin = self.clone()
        deal = twin._deal
        if deal.game is not None and deal.player != TERMINAL:
            seed = (int(probability_sampler() * 2**32) << 32) | int(probability_sampler() * 2**32)
            deal.game = facts.resample(deal.game, player_id, random.Random(seed))
            deal.settle()
        return twin

    def __str__(self) -> str:
        deal = self._deal
        if deal.game is None:
            return f"drawing the seed: {len(deal.seed_bytes)} of {SEED_BYTES} bytes"
        return self.get_game().FACTS.board(deal.game)


CHANCE_OUTCOMES = [(byte, 1 / 256) for byte in range(256)]


class ReferenceObserver:
    """OpenSpiel's Python observer protocol over a seat's reference observation (strings only)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, dtype=np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: CardGameState, player: int) -> None:
        """No tensor: the games give strings here (their tensors are in the batch engines and the other envs)."""

    def string_from(self, state: CardGameState, player: int) -> str:
        """What ``player`` may know, as JSON: nothing of the seed before the deal."""
        if state.game is None:
            return ""
        observation = state.game.observation(player)
        view = {f.name: getattr(observation, f.name) for f in fields(observation) if f.name != "log"}
        text = json.dumps(view, default=str, sort_keys=True)
        return text + "\n" + state.public_log() if self.perfect_recall else text


def _register() -> dict[str, type[CardGame]]:
    classes = {}
    for name, facts in learning_games().items():
        cls = type(f"{facts.title.replace(' ', '')}Game", (CardGame,), {"FACTS": facts})
        pyspiel.register_game(_game_type(facts), cls)
        classes[name] = cls
    return classes


GAME_CLASSES = _register()
"""The registered game class of every game, by its ``sim.games`` name."""
