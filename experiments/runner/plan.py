"""From a config to a list of chunks: seatings, seeds and the global numbering of hands.

The derivation of every seed, which the rows and docs/experiments.md document:

- table ``t`` (its place in the config, from 0), deal group ``g`` (from 0):
  ``match_seed = derive_seed(master_seed, t, g)`` (``sim.rng.derive_seed``);
- every seating (arrangement) of the lineup plays the same deal group, so the
  same seeds: duplicate deals;
- the game deals hand ``k`` of a match from ``derive_seed(match_seed, k)`` (a game whose match is one
  game, like Knockout Whist, deals it from ``derive_seed(match_seed, 0)``).

A chunk is a run of whole deal groups of one table (every arrangement, every
hand of each match), so a chunk's rows depend on the config alone, never on
the worker count or the scheduler.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from experiments.runner import routes
from experiments.runner.config import ConfigError, RunConfig, TableConfig
from experiments.runner.seating import check_specs
from sim import games
from sim.contract import plural
from sim.rng import derive_seed, derive_seeds

# Hands per chunk when the config does not say: about 1/64 of the run, so small runs
# still spread over the cores, capped so that a kill loses little and the progress
# bar moves: lineups the engine plays itself are hundreds of times faster than search agents,
# compiled or not (docs/speed.md).
TARGET_CHUNKS = 64
COMPILED_CHUNK_HANDS = 20_000  # lineups at the engine's speed (routes.ENGINE)
PYTHON_CHUNK_HANDS = 200  # every other lineup
# A run's plan (a task per chunk) is held in memory and its chunks are numbered in int32 columns, its matches and
# deal groups in int64 ones (a run of version 2 numbered them in uint32): larger runs are refused before anything is
# planned.
MAX_CHUNKS = 1_000_000
MAX_MATCHES = 2**32


@dataclass(frozen=True)
class TablePlan:
    """One table: its arrangements (a spec per seat each), how many deal groups and hands it plays, and the route
    its chunks take to the kernel (``routes.choose_route``, decided here once)."""

    index: int
    seats: int
    seatings: tuple[tuple[str, ...], ...]
    groups: int
    match_hands: int
    first_hand: int  # global index of the table's first hand
    first_match: int  # global index of the table's first match
    route: str = routes.REFERENCE

    @property
    def hands_per_group(self) -> int:
        """Hands in one deal group: every arrangement plays every hand of the match."""
        return len(self.seatings) * self.match_hands

    @property
    def hands(self) -> int:
        """Hands this table plays."""
        return self.groups * self.hands_per_group


@dataclass(frozen=True)
class Chunk:
    """Deal groups ``first_group`` up to ``first_group + groups`` of one table."""

    id: int
    table: int
    first_group: int
    groups: int
    hands: int
    first_hand: int


def arrangements(table: TableConfig, teams: Sequence[int] | None = None) -> tuple[tuple[str, ...], ...]:
    """The distinct seatings of a lineup: as given, every rotation, every permutation, or a balanced design.

    Rotation ``r`` seats ``agents[(seat + r) % n]`` at each seat; permutations
    come in lexicographic order of seat indices. Repeats (a lineup with the same
    spec twice) are played once. ``balanced`` reads the lineup as a pool of agents
    and seats one per team (``teams``: each seat's team, by default every seat its
    own; see ``balanced_seatings``); ``duel`` reads it as two agents and the other
    seats' specs (see ``duel_design``).
    """
    n, lineup = table.seats, table.agents
    if table.assign == "balanced":
        return balanced_seatings(lineup, tuple(range(n)) if teams is None else tuple(teams))
    if table.assign == "duel":
        return tuple(seat.seating for seat in duel_design(lineup, tuple(range(n)) if teams is None else tuple(teams)))
    if table.assign == "fixed":
        orders = [tuple(range(n))]
    elif table.assign == "rotate":
        orders = [tuple((seat + r) % n for seat in range(n)) for r in range(n)]
    else:
        orders = list(itertools.permutations(range(n)))
    seen: dict[tuple[str, ...], None] = {}
    for order in orders:
        seen.setdefault(tuple(lineup[i] for i in order), None)
    return tuple(seen)


def balanced_seatings(pool: Sequence[str], teams: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    """Every ordering of the pool's agents dealt out to the teams, wrapping round: a balanced design.

    With ``T`` teams (seats, in a game without partners) and ``m`` agents, each ordering
    ``o`` of the agents gives team ``t`` the agent ``o[t % m]``, and every seat of a team
    holds its team's agent. With ``T == m`` that is every permutation; with ``T < m``
    every ordered choice of ``T`` different agents; with ``T > m`` each of the ``m!``
    orderings goes round the table more than once, so some agents hold two teams. Over
    the design every agent holds every team equally often, and as many seats in all:
    the orderings are all equally often at the table, on the same deals. Distinct
    seatings are kept once, in lexicographic order of the orderings.
    """
    n_teams = max(teams) + 1
    m = len(pool)
    orders = itertools.permutations(range(m), min(m, n_teams))
    seen: dict[tuple[str, ...], None] = {}
    for order in orders:
        seen.setdefault(tuple(pool[order[team % len(order)]] for team in teams), None)
    return tuple(seen)


@dataclass(frozen=True)
class DuelSeating:
    """One seating of a duel table: the specs at the seats, the tested seats (one team) and who holds them."""

    seating: tuple[str, ...]
    tested: tuple[int, ...]  # the seats A or B holds in this seating
    side: int  # 0: A holds the tested seats, 1: B does


def tested_team(teams: Sequence[int]) -> tuple[int, ...]:
    """The seats a duel's A or B holds before any rotation: seat 0's team (seat 0 alone without partners)."""
    return tuple(seat for seat, team in enumerate(teams) if team == teams[0])


def duel_design(lineup: Sequence[str], teams: Sequence[int]) -> tuple[DuelSeating, ...]:
    """The seatings of a duel: ``lineup`` is A, B, then one spec per seat outside seat 0's team, in seat order.

    Rotation ``r`` of the table puts at seat ``s`` what seat ``(s + r) % n`` holds unrotated: A (or B) at seat 0's
    team, the other specs at the other seats in order. Each rotation is played twice, once with A at the tested
    seats and once with B, the others unchanged, so the pair differs only in who holds the tested seats; over the
    rotations the tested seats turn over every seat. A rotation whose A-seating an earlier one already gave (Kort
    with one spec at both other seats: rotating by two seats swaps nothing) is played once. The seatings come in
    pairs: ``A`` at rotation 0, ``B`` at rotation 0, ``A`` at the next rotation, and so on. A rotation that would
    split the tested seats over several teams is refused: the games' teams (Kort's seats 0 and 2 against 1 and 3)
    all turn into teams.
    """
    n = len(teams)
    tested = tested_team(teams)
    others = [seat for seat in range(n) if seat not in tested]
    if len(lineup) != 2 + len(others):
        raise ConfigError(f"a duel lineup is A, B and one spec for each of the {len(others)} other seats, "
                          f"not {len(lineup)} specs")
    design: list[DuelSeating] = []
    seen: set[tuple[tuple[str, ...], tuple[int, ...]]] = set()
    for r in range(n):
        seats = tuple(sorted((seat - r) % n for seat in tested))
        if len({teams[seat] for seat in seats}) != 1 or len(seats) != list(teams).count(teams[seats[0]]):
            raise ConfigError(f"rotating the table by {r} seats splits the tested team over other teams: "
                              "a duel needs teams that turn into teams")
        pair = []
        for agent in lineup[:2]:
            unrotated = [agent] * n
            for seat, spec in zip(others, lineup[2:], strict=True):
                unrotated[seat] = spec
            pair.append(tuple(unrotated[(seat + r) % n] for seat in range(n)))
        if (pair[0], seats) in seen:
            continue
        seen.add((pair[0], seats))
        design += [DuelSeating(pair[0], seats, 0), DuelSeating(pair[1], seats, 1)]
    return tuple(design)


def table_plans(config: RunConfig) -> list[TablePlan]:
    """Every table with its seatings, size and route; hands or matches round up to whole duplicate sets."""
    plans = []
    first_hand = first_match = 0
    seat_teams = config.adapter.seat_teams
    for index, table in enumerate(config.tables):
        seatings = arrangements(table, seat_teams(table.seats))
        if config.matches is not None:
            groups = math.ceil(config.matches / len(seatings))
        else:
            groups = math.ceil(config.hands / len(seatings))
        try:
            route = routes.choose_route(config.adapter, config.game, seatings, config.log_actions, config.engine)
        except ValueError as refused:  # engine = compiled for a lineup no compiled code plays
            raise ConfigError(f"table {index}: {refused}") from None
        plan = TablePlan(index, table.seats, seatings, groups, config.match_hands, first_hand, first_match, route)
        plans.append(plan)
        first_hand += plan.hands
        first_match += groups * len(seatings)
    return plans


def rounding_note(config: RunConfig, plans: Sequence[TablePlan]) -> str | None:
    """One line saying how the asked ``hands`` (or ``matches``) were rounded up to whole deal groups, every seating
    playing every deal, e.g. ``rounded up to 90 hands: 1 deal × 90 seatings (asked for 8)``; None when no table's
    size changed. With several tables, only those whose size changed are named."""
    asked = config.matches if config.matches is not None else config.hands
    if asked is None:
        return None
    unit = "match" if config.matches is not None else config.adapter.ROW
    notes = []
    for plan in plans:
        played = plan.groups * len(plan.seatings) if config.matches is not None else plan.hands
        if played == asked:
            continue
        deals = f"{plan.groups:,} deal" + ("s" if plan.groups != 1 else "")
        each = f", {plan.match_hands} hands each" if config.matches is not None and plan.match_hands > 1 else ""
        note = (f"rounded up to {played:,} {plural(unit) if played != 1 else unit}: {deals} × "
                f"{len(plan.seatings):,} seating" + ("s" if len(plan.seatings) != 1 else "") + each)
        notes.append(note if len(plans) == 1 else f"table {plan.index} ({plan.seats} seats) {note}")
    if not notes:
        return None
    return "; ".join(notes) + f" (asked for {asked:,}; every seating plays every deal)"


def check_lineups(config: RunConfig) -> None:
    """Every spec of every table makes an agent of the config's game (each built once, here, before a run starts),
    or one line says what is wrong. The seat counts, options and lineup lengths are ``build_config``'s to check."""
    check_specs([spec for table in config.tables for spec in table.agents], config.game)


def plays_at_engine_speed(game: str, seatings: Sequence[Sequence[str]], log_actions: bool = False) -> bool:
    """Whether the seatings play on the game's own compiled policies alone (``routes.ENGINE``): such lineups run
    at the engine's measured rate, which sizes their chunks and estimates their time unsampled."""
    return routes.choose_route(games.adapter(game), game, seatings, log_actions) == routes.ENGINE


def make_chunks(plans: list[TablePlan], chunk_hands: int) -> list[Chunk]:
    """Cut every table into chunks of about ``chunk_hands`` hands (whole deal groups)."""
    chunks: list[Chunk] = []
    for plan in plans:
        per_chunk = max(1, chunk_hands // plan.hands_per_group)
        for first in range(0, plan.groups, per_chunk):
            groups = min(per_chunk, plan.groups - first)
            hands = groups * plan.hands_per_group
            chunks.append(Chunk(len(chunks), plan.index, first, groups, hands,
                                plan.first_hand + first * plan.hands_per_group))
    return chunks


def check_size(plans: list[TablePlan], chunk_hands: int) -> None:
    """Refuse, in one line, a run too large to plan (over ``MAX_CHUNKS`` chunks) or to number (``MAX_MATCHES``)."""
    matches = sum(plan.groups * len(plan.seatings) for plan in plans)
    if matches > MAX_MATCHES:
        raise ConfigError(f"the run would play {matches:,} matches; a run numbers at most {MAX_MATCHES:,}: "
                          "split it into runs with different seeds")
    chunks = sum(-(-plan.groups // max(1, chunk_hands // plan.hands_per_group)) for plan in plans)
    if chunks > MAX_CHUNKS:
        raise ConfigError(f"the run would be cut into {chunks:,} chunks of {chunk_hands:,} rows; at most "
                          f"{MAX_CHUNKS:,}: give a larger --chunk-hands, or fewer --hands")


def match_seed(master_seed: int, table: int, group: int) -> int:
    """The seed of deal group ``group`` at table ``table``: every arrangement plays it."""
    return derive_seed(master_seed, table, group)


def match_seeds(master_seed: int, table: int, groups: np.ndarray) -> np.ndarray:
    """``match_seed`` for an array of deal groups, at NumPy speed (uint64)."""
    seeds = np.full(len(groups), derive_seed(master_seed, table), dtype=np.uint64)
    return derive_seeds(seeds, groups)
