"""A decision that outlasts its time limit is interrupted, in the main thread and in any other; search agents
refuse budgets that are not finite."""

from __future__ import annotations

import threading
import time

import pytest

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
