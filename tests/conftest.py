"""Shared test helpers: where the data lives, scenario fixtures, and protocol play for property tests."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from experiments.cli import main
from sim.cards import CLUBS, DIAMONDS, FULL_DECK, HEARTS, SPADES, card_id

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def pytest_xdist_auto_num_workers(config: Any) -> int:
    """``-n auto``: one worker more than the cores. Some tests mostly wait (on Dask workers they kill, a Ctrl-C
    they send, a subprocess's start), and a suite of one worker a core left a core idle a fifth of the time."""
    return (os.cpu_count() or 1) + 1


# ----- scenario fixtures ---------------------------------------------------------------------------------
def case_id(case: dict) -> str:
    """A scenario case's test id: its file, then its own name in brackets when it has one."""
    return case["file"] + (f"[{case['case']}]" if "case" in case else "")


def checks_something(case: dict) -> bool:
    """Whether a case expects anything, at the start or after a step (a refusal counts)."""
    checks = [case.get("expect")] + [step.get("expect") or step.get("refused") for step in case.get("steps", [])]
    return any(checks)


def assert_scenarios_documented(scenario_dir: Path, rules_page: Path) -> None:
    """The folder's format README lists exactly its scenario files, and the game's rules page names each."""
    files = {path.stem for path in scenario_dir.glob("*.json")}
    files_table = (scenario_dir / "README.md").read_text().split("## The files")[1]
    assert set(re.findall(r"^\| `([a-z0-9_]+)` \|", files_table, flags=re.M)) == files
    assert files <= set(re.findall(r"`([a-z0-9_]+)`", rules_page.read_text()))


def deck_nobody_captures() -> list[int]:
    """A Knorri deal thrown in: nine diamonds on the table, then every suit turned high to low, so no card takes."""
    diamonds = [card_id(DIAMONDS, rank) for rank in range(12, -1, -1)]
    others = [card_id(suit, rank) for suit in (CLUBS, HEARTS, SPADES) for rank in range(12, -1, -1)]
    return diamonds + others


def fresh_kernel() -> Callable[[int], int]:
    """A kernel no process has compiled (no cache): numba compiles it on its first call. It sums the squares below
    its argument."""
    import numba

    def total_of_squares(n):
        total = 0
        for i in range(n):
            total += i * i
        return total

    return numba.njit(cache=False)(total_of_squares)


def compile_cache_as(monkeypatch: Any, cached: bool) -> None:
    """Make every kernel module look cached, or not, to the compile estimates, and let the process say its compile
    line again: a command's notice checked as on a warm or a first use, whatever ran before in the worker."""
    from experiments import compile_notice
    from sim import compile_cache

    monkeypatch.setattr(compile_cache, "kernels_cached", lambda modules: cached)
    monkeypatch.setattr(compile_notice, "_said", False)


# ----- protocol play -------------------------------------------------------------------------------------
def protocol_decisions(game: Any, rng: Any, every: int = 1) -> Iterator[Any]:
    """Yield a reference game (or hand) at every ``every``-th decision, the first included; the protocol takes each."""
    index = 0
    while not game.done:
        if index % every == 0:
            yield game
        index += 1
        game.apply(rng.choice(game.legal_actions()))


def play_out_by_protocol(game: Any, rng: Any) -> Any:
    """Take every remaining decision of a reference game (or hand) as the protocol does; return it."""
    for _ in protocol_decisions(game, rng):
        pass
    return game


def assert_each_card_once(places: Iterable[int]) -> None:
    """The card sets hold all 52 cards between them, none twice."""
    sets = list(places)
    assert sum(cards.bit_count() for cards in sets) == 52, [cards.bit_count() for cards in sets]
    union = 0
    for cards in sets:
        union |= cards
    assert union == FULL_DECK


def count_arguments(monkeypatch: Any, function: Callable[[Any], Any], *homes: tuple[Any, str]) -> list[Any]:
    """Replace ``function`` at each ``(module, name)`` home with one that records its argument, and return the
    list it records into: how often, and with what, a run calls it."""
    seen: list[Any] = []

    def counting(argument: Any) -> Any:
        seen.append(argument)
        return function(argument)

    for module, name in homes:
        monkeypatch.setattr(module, name, counting)
    return seen


def count_batches(monkeypatch: Any, batch_module: Any) -> list[int]:
    """Wrap ``batch_module.play_batch`` so every call notes how many seeds it played (the compiled path taken,
    seen from outside); returns the list it fills."""
    calls: list[int] = []
    play_batch = batch_module.play_batch

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(args[1]))
        return play_batch(*args, **kwargs)

    monkeypatch.setattr(batch_module, "play_batch", counted)
    return calls


def advance_by_protocol(game: Any, rng: Any, steps: int) -> Any:
    """Take up to ``steps`` decisions as the protocol does (fewer if the game ends first); return the game."""
    for _ in range(steps):
        if game.done:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def fresh_choices(spec: str, game_name: str, seat: int, n_seats: int, seed: int, positions: Iterable[Any]) -> list:
    """What a newly made agent of ``spec``, reset at ``seat`` with ``seed``, chooses in each position."""
    from agents.base import make_agent

    choices = []
    for position in positions:
        agent = make_agent(spec, game=game_name)
        agent.reset(seat, n_seats, seed)
        choices.append(agent.act(position.observation(seat), position.legal_actions()))
    return choices


def assert_step_refused(batch: Any, actions: Any, index: int, arrays: Callable[[], list]) -> None:
    """A batch step whose action at ``index`` is illegal raises an ``IllegalActionError`` naming the index, the
    seat and the action, and leaves every state array (``arrays()``) as it was."""
    import numpy as np
    import pytest

    from sim.errors import IllegalActionError

    before = [array.copy() for array in arrays()]
    bad_action = int(np.flatnonzero(~batch.legal_mask()[index])[0])
    actions[index] = bad_action
    with pytest.raises(IllegalActionError) as refused:
        batch.step(actions)
    seat = int(batch.to_move[index])
    assert (refused.value.batch_index, refused.value.seat, refused.value.action) == (index, seat, bad_action)
    assert f"illegal action {bad_action} by batch index {index} at seat {seat}" in str(refused.value)
    for old, new in zip(before, arrays(), strict=True):
        assert np.array_equal(old, new)



@pytest.fixture
def shard_reads(monkeypatch: Any) -> list[int]:
    """How many shards each read of an analysis loader asks for, one entry a read (``pq.read_table`` watched)."""
    from experiments.analysis import load as shared_load

    asked: list[int] = []
    real = shared_load.pq.read_table

    def watched(paths: list, columns: list[str] | None = None, **kwargs: Any) -> Any:
        asked.append(len(paths))
        return real(paths, columns=columns, **kwargs)

    monkeypatch.setattr(shared_load.pq, "read_table", watched)
    return asked


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: Any) -> Path:
    """A kernel spec running this interpreter with the project importable, whatever is installed where: each module
    of notebook tests (every game's, and the shared ones) makes its own."""
    from notebook_runs import make_kernel_dir

    return make_kernel_dir(tmp_path_factory.mktemp("kernels"))


# ----- small runs several test files read ----------------------------------------------------------------
@pytest.fixture(scope="module")
def kort_run(tmp_path_factory):
    """Greedy as a team against random, both ways round, matches to 2: a few matches on the reference engine."""
    out = tmp_path_factory.mktemp("kort") / "run"
    assert main(["run", "--game", "kort", "--agents", "greedy;random;greedy;random", "--assign", "rotate",
                 "--matches", "6", "--option", "target_wins=2", "--seed", "4", "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 0
    return out


@pytest.fixture(scope="module")
def one_agent_run(tmp_path_factory):
    """Four random seats at 3 and 4 seats, 60 hands: a run of one agent."""
    out = tmp_path_factory.mktemp("one") / "run"
    assert main(["run", "--seats", "3,4", "--agents", "random", "--hands", "60", "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 0
    return out
