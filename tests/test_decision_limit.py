"""A decision that outlasts its time limit is interrupted, in the main thread and in any other; search agents
refuse budgets that are not finite."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import fresh_kernel

from agents.base import AgentSpecError, _lookup, known_agents, make_agent
from sim import games
from sim.decision_limit import DecisionTimeout, decision, limit_decisions


def test_a_blocking_call_in_the_main_thread_is_interrupted():
    started = time.monotonic()
    with limit_decisions(0.2), pytest.raises(DecisionTimeout), decision():
        time.sleep(60)
    assert time.monotonic() - started < 30


def test_a_busy_loop_in_another_thread_is_interrupted_and_quick_decisions_are_not():
    outcome = []

    def play():
        with limit_decisions(0.2):
            for _ in range(1000):
                with decision():
                    pass
            try:
                with decision():
                    while True:
                        pass
            except DecisionTimeout:
                outcome.append("interrupted")

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    thread.join(30)
    assert outcome == ["interrupted"]


def test_no_limit_and_a_bad_limit():
    with limit_decisions(0), decision():
        time.sleep(0.01)
    with pytest.raises(ValueError, match="finite"), limit_decisions(float("inf")):
        pass


@pytest.mark.parametrize("game", games.names())
def test_every_agents_float_parameters_refuse_values_that_are_not_finite(game):
    checked = 0
    for name in known_agents(game):
        parameters = getattr(_lookup(name, name, game), "PARAMETERS", {})
        for key, kind in parameters.items():
            if kind is float:
                for value in ("inf", "-inf", "nan"):
                    with pytest.raises(AgentSpecError, match=f"{key}="):
                        make_agent(f"{name}:{key}={value}", game=game)
                checked += 1
    assert checked >= 2 or "mcts" not in known_agents(game)  # every game's mcts has time and c


def test_a_decision_that_no_interrupt_ends_calls_the_stuck_hook(monkeypatch):
    import sim.decision_limit as decision_limit

    monkeypatch.setattr(decision_limit, "STUCK_GRACE_SECONDS", 0.2)
    stuck, release = threading.Event(), threading.Event()

    def blocked():
        try:
            with limit_decisions(0.2, stuck.set), decision():
                release.wait(60)  # blocked in C: the asynchronous exception waits for it to return
        except DecisionTimeout:
            pass

    thread = threading.Thread(target=blocked, daemon=True)
    thread.start()
    assert stuck.wait(30)
    release.set()
    thread.join(30)
    assert not thread.is_alive()


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_time_numba_spends_compiling_an_agents_kernel_is_not_counted_against_its_decision(where):
    """The first decision after an install may compile for longer than any limit; the limit is on thinking."""
    from numba.core.compiler_lock import global_compiler_lock

    fresh_kernel()(1)  # numba's once-a-process start (entry points read outside its lock) out of the way
    kernel, outcome = fresh_kernel(), []
    held, release = threading.Event(), threading.Event()

    def hold_the_compiler():  # another thread compiling: this decision's compile waits for it, off the clock too
        with global_compiler_lock:
            held.set()
            release.wait(30)

    def decide():
        with limit_decisions(0.05):
            try:
                with decision():
                    threading.Timer(0.3, release.set).start()
                    outcome.append(kernel(10))
                with decision():  # the clock still runs for thinking, compiled kernels included
                    kernel(10)
                    time.sleep(30) if where == "main thread" else _spin(30)
            except DecisionTimeout:
                outcome.append("interrupted")

    holder = threading.Thread(target=hold_the_compiler, daemon=True)
    holder.start()
    assert held.wait(30)
    started = time.monotonic()
    if where == "main thread":
        decide()
    else:
        thread = threading.Thread(target=decide, daemon=True)
        thread.start()
        thread.join(60)
    assert outcome == [285, "interrupted"]
    assert time.monotonic() - started < 20


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
