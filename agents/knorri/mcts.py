"""``mcts``: Monte Carlo tree search over the position the log reveals, compiled end to end.

Phase 2 is a game of complete information once the tracker has read the log, so the search is UCT over the exact
position, greedy playouts from each new leaf, the other seats playing the model the posterior gives them
(``agents.knorri.opponent_models``). In phase 1 the stock order is hidden: each sample is an order of the unseen
cards, every capture choice is played out on it, and the best mean wins. This agent keeps what the seat knows (its
tracker of the log, its posterior over the others) and reads the position; the decision itself is one compiled
function, ``agents.knorri.decision.decide``, which the compiled lineup runs too, with the same parameter record
(``search``). How many playouts it spends and when it stops are ``agents.knorri.search_rules``.

Parameters (spec ``mcts:iters=200,c=0.4,rollout=greedy``): docs/agents.md's table of Knorri's agents; ``version=1``
to ``version=5`` are the earlier ``mcts`` (docs/agents.md, "How ``mcts`` saves playouts, and the first ``mcts``",
has the versions and what each measured). Through ``knorri-sim run`` a lineup of built-in specs plays in compiled
code (``agents.knorri.lineup``) with this agent's rows; a ``time`` budget keeps the reference engine. The design
in full is in docs/internals.md, ``agents.knorri.mcts``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from agents.base import register
from agents.knorri import decision, search_rules
from agents.knorri.opponent_models import DEFAULT_EPS, MODEL_COUNT, Belief, parse_models, parse_prior
from agents.knorri.playout import LOOKAHEAD_CODE, PLAYOUT_POLICIES
from agents.knorri.search import POLICY_IDS
from agents.knorri.tracker import STEPPED_CODE, KnorriTracker
from agents.sampled_search import CHUNK, check_budget, check_choice
from sim.cards import card_list
from sim.knorri.compiled import Position, PositionRows, cut_off_rules, new_position, position_rows
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64, derive_seed

GAME = "knorri"  # the game this agent is registered for


class VersionDefaults(NamedTuple):
    """What one version of ``mcts`` spends and cuts where its spec does not say: ``iters`` playouts a decision;
    ``line_factor`` and ``chance_factor`` times that for a phase-2 search whose pick is the best line (every other
    seat deterministic) and for one where another seat is modelled ``random`` (chance nodes); ``horizon``, the
    phase-2 actions a chance search's playout plays before the cap's ranking scores it (0: to the end). When
    each version stops a search, and where it cuts, are ``search_rules``'s."""

    iters: int
    line_factor: int
    chance_factor: int
    horizon: int


VERSION_DEFAULTS: dict[int, VersionDefaults] = {
    1: VersionDefaults(iters=1000, line_factor=1, chance_factor=1, horizon=0),  # the first mcts: every iteration
    2: VersionDefaults(iters=200, line_factor=5, chance_factor=1, horizon=0),  # a phase-2 search stops once settled
    3: VersionDefaults(iters=200, line_factor=5, chance_factor=3, horizon=40),  # chance playouts cut, thrice as many
    4: VersionDefaults(iters=200, line_factor=5, chance_factor=5, horizon=40),  # five times as many
    5: VersionDefaults(iters=200, line_factor=5, chance_factor=5, horizon=40),  # cut where two others are random
    6: VersionDefaults(iters=200, line_factor=5, chance_factor=5, horizon=40),  # cut where most others are random
}
"""Each version's defaults. Among searchers, which version 3 and later model as random players, the chance searches
are nearly all the searches, and their budget is what the strength against the first ``mcts`` turned on; versions
5 and 6 spend as version 4 and differ in where a chance search's playouts are cut
(``search_rules.playout_horizon``: the same searches as version 5 at 3 and 4 seats)."""
VERSIONS = tuple(VERSION_DEFAULTS)
DEFAULT_VERSION = 6
DEFAULT_C = 0.4
POSTERIOR = "posterior"
DEFAULT_OTHERS = POSTERIOR
DEFAULT_MODELS = "random+greedy+loginf+maxn"
DEFAULT_PRIOR = ""  # equal weights
PICKS = ("auto", "visits")
DEFAULT_PICK = "auto"  # the best line found when the tree's values are exact outcomes, else the most visited
TIMED_TREE_ITERATIONS = 4096  # with a time budget, the tree is sized as for this many iterations


class MCTSAgent:
    """UCT over the deduced position (phase 2), sampled stock orders (phase 1); compiled search."""

    PARAMETERS: dict[str, type] = {"iters": int, "time": float, "c": float, "rollout": str, "seed": int,
                                   "others": str, "models": str, "prior": str, "eps": float, "pick": str,
                                   "version": int, "line_iters": int, "chance_iters": int,
                                   "horizon": int}
    # Its compiled search, and the CPU seconds compiling it (with the engine kernels it calls) takes on first use
    # (as measured in docs/speed.md).
    COMPILED_CODE: dict[str, float] = {**LOOKAHEAD_CODE, **STEPPED_CODE, "agents.knorri.decision": 21.0}

    def __init__(self, seed: int = 0, iters: int | None = None, time: float = 0.0, c: float = DEFAULT_C,
                 rollout: str = "greedy", others: str = DEFAULT_OTHERS, spec_seed: int = 0,
                 models: str = DEFAULT_MODELS, prior: str = DEFAULT_PRIOR, eps: float = DEFAULT_EPS,
                 pick: str = DEFAULT_PICK, version: int = DEFAULT_VERSION, line_iters: int | None = None,
                 chance_iters: int | None = None, horizon: int | None = None) -> None:
        if version not in VERSIONS:
            raise ValueError(f"version={version} is unknown: use {' or '.join(map(str, VERSIONS))}")
        defaults = VERSION_DEFAULTS[version]
        iters = defaults.iters if iters is None else iters
        check_budget(iters, time, c, unit="playout")
        default_line_iters = defaults.line_factor * iters
        line_iters = default_line_iters if line_iters is None else line_iters
        default_chance_iters = defaults.chance_factor * iters
        chance_iters = default_chance_iters if chance_iters is None else chance_iters
        for name, value in (("line_iters", line_iters), ("chance_iters", chance_iters)):
            if value < 1:
                raise ValueError(f"{name}={value}: give at least 1 playout per decision")
        horizon = defaults.horizon if horizon is None else horizon
        if horizon < 0:
            raise ValueError(f"horizon={horizon}: give 0 (playouts to the end) or a number of phase-2 actions")
        check_choice("rollout", rollout, PLAYOUT_POLICIES)
        check_choice("others", others, (POSTERIOR, *search_rules.OPPONENT_MODELS), joiner=", ")
        check_choice("pick", pick, PICKS)
        if not 0.0 < eps < 1.0:
            raise ValueError(f"eps={eps} must lie strictly between 0 and 1")
        self.candidates = parse_models(models)
        self.log_prior = parse_prior(prior, len(self.candidates))
        self.eps = eps
        self.name = (f"mcts:iters={iters},c={c},rollout={rollout}" + (f",time={time}" if time else "")
                     + (f",others={others}" if others != DEFAULT_OTHERS else "")
                     + (f",models={models}" if models != DEFAULT_MODELS and others == POSTERIOR else "")
                     + (f",prior={prior}" if prior != DEFAULT_PRIOR and others == POSTERIOR else "")
                     + (f",eps={eps}" if eps != DEFAULT_EPS and others == POSTERIOR else "")
                     + (f",pick={pick}" if pick != DEFAULT_PICK else "")
                     + (f",line_iters={line_iters}" if line_iters != default_line_iters else "")
                     + (f",chance_iters={chance_iters}" if chance_iters != default_chance_iters else "")
                     + (f",horizon={horizon}" if horizon != defaults.horizon else "")
                     + (f",version={version}" if version != DEFAULT_VERSION else ""))
        self.pick = pick
        self.version = version
        self.others = others
        self.iters, self.line_iters, self.chance_iters, self.horizon = iters, line_iters, chance_iters, horizon
        self.time_budget, self.c, self.rollout = time, c, rollout
        self.search = decision.search_params(
            rollout=POLICY_IDS[rollout], iters=iters, line_iters=line_iters, chance_iters=chance_iters,
            horizon=horizon, c=c, others=search_rules.OPPONENT_MODELS.get(others, decision.POSTERIOR),
            candidates=[search_rules.OPPONENT_MODELS[name] for name in self.candidates], log_prior=self.log_prior,
            eps=eps, auto_pick=pick == "auto", version=version)  # what the compiled decision reads; a lineup too
        self._belief: Belief | None = None
        self._deal: tuple[tuple, PositionRows] | None = None  # the deal's key and rows, once phase 2 has begun
        self._spec_seed = spec_seed
        self.seat, self.n_seats = 0, 3
        self.tracker = KnorriTracker(3)
        # made by ``_work_for`` once per table: the position a decision reads into, its scratch, and the evidence a
        # seat with fixed models passes (never read)
        self._position: Position | None = None
        self._work: decision.SearchWork | None = None
        self._work_key: tuple[int, tuple[int, int]] | None = None
        self._no_evidence: np.ndarray | None = None
        self._reseed(derive_seed(seed, spec_seed))

    def _reseed(self, seed: int) -> None:
        self._stream = SplitMix64(seed)

    def reset(self, seat: int, n_seats: int, seed: int | None = None) -> None:
        """Start a new hand at ``seat``: a fresh tracker and, given a hand seed, fresh random streams."""
        self.seat, self.n_seats = seat, n_seats
        self.tracker = KnorriTracker(n_seats)
        self._belief, self._deal = None, None
        if seed is not None:
            self._reseed(derive_seed(seed, self._spec_seed))

    def act(self, observation: Any, legal: Sequence[int]) -> int:
        """The compiled decision (``agents.knorri.decision``) at the position the log reveals: the best sampled
        capture choice (phase 1) or the tree's pick (phase 2)."""
        self.tracker.update(observation)
        if len(legal) == 1:
            return legal[0]
        rows = self._rows(observation.phase)
        work = self._work_for(rows)
        work.search_rng[0] = self._stream.next()
        evidence = self._evidence()
        if self.time_budget <= 0:
            return int(decision.decide(self.search, rows, self._position, evidence, work))
        return self._decide_in_time(rows, evidence, work, observation.phase)

    def _rows(self, phase: int) -> PositionRows:
        """The position as the seat knows it. In phase 1 any order of the unseen cards will do: the search
        reshuffles them."""
        if phase == 1:
            return position_rows(self.tracker.rebuild(card_list(self.tracker.unseen)))
        return self.tracker.position_rows()

    def _evidence(self) -> np.ndarray:
        """What the seat has learned of the others' play: the deal's decisions scored against each candidate model
        (``opponent_models.Belief``), read from phase 2 on, when the whole deal is public."""
        if self.search.others != decision.POSTERIOR:
            return self._no_evidence
        if self._belief is None or len(self.tracker.decisions) < self._belief.seen:
            self._belief = Belief(self.n_seats, self.seat, self.candidates, self.log_prior, self.eps)
        deal = None
        if self.tracker.phase == 2:  # the deal is whole and fixed from here to the hand's end: encoded once
            t = self.tracker
            key = (t.deal_table + t.turned_order, t.first_seat, t.cap, t.repeat)
            if self._deal is None or self._deal[0] != key:
                self._deal = key, position_rows(KnorriHand(self.n_seats, key[0], t.first_seat, cap=t.cap,
                                                           repeat=t.repeat))
            deal = self._deal[1]
        self._belief.observe(deal, self.tracker.decisions)
        return self._belief.loglik

    def _work_for(self, rows: PositionRows) -> decision.SearchWork:
        """The decision's scratch, made once per table (seat count and cut-off rules)."""
        key = (self.n_seats, cut_off_rules(rows.ints))
        if self._work is None or self._work_key != key:
            self._position = new_position(*key[1])
            self._work = decision.new_search_work(self._position, self.n_seats, self._tree_size())
            self._work_key = key
            self._no_evidence = np.zeros((self.n_seats, MODEL_COUNT))
        return self._work

    def _tree_size(self) -> int:
        """The nodes a phase-2 tree may hold: as for the largest budget, or a fixed size under a time budget."""
        iterations = TIMED_TREE_ITERATIONS if self.time_budget > 0 else self.search.largest_budget()
        return int(search_rules.tree_capacity(iterations))

    def _decide_in_time(self, rows: PositionRows, evidence: np.ndarray, work: decision.SearchWork,
                        phase: int) -> int:
        """The same decision, searching in chunks until ``time`` seconds have passed. The iterations left are
        unknown, so only a won line may stop a phase-2 search early."""
        size = self._tree_size()
        n_legal, by_line, rule, horizon = decision.start_timed(self.search, rows, self._position, evidence, work,
                                                               size)
        rule = rule if rule == search_rules.BY_BEST_LINE else search_rules.NEVER
        deadline = time.perf_counter() + self.time_budget
        samples = 0
        while True:
            ran = decision.search_more(self.search, self._position, n_legal, CHUNK, rule, horizon, size, work)
            samples += ran
            if (phase == 2 and ran < CHUNK) or time.perf_counter() >= deadline:
                break
        return int(decision.timed_pick(self._position, n_legal, samples, by_line, work))


register("mcts", game=GAME)(MCTSAgent)


class MaxnMCTSAgent(MCTSAgent):
    """``mcts`` with every seat searching for itself in the tree (max-n): the opponent model's ablation.

    Not registered; name it by import path, e.g. ``agents.knorri.mcts:MaxnMCTSAgent:iters=1000``.
    """

    def __init__(self, seed: int = 0, **parameters: Any) -> None:
        super().__init__(seed, others="maxn", **parameters)


class GreedyOthersMCTSAgent(MCTSAgent):
    """``mcts`` with the other seats playing greedy inside the tree (``agents.knorri.mcts:GreedyOthersMCTSAgent``)."""

    def __init__(self, seed: int = 0, **parameters: Any) -> None:
        super().__init__(seed, others="greedy", **parameters)
