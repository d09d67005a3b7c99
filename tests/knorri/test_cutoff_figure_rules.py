"""The cut-off page draws the agent-effect figure only where some table seated several agents: with one agent its
change is zero by construction."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import pandas as pd

from experiments.analysis.knorri import cutoff_page
from experiments.analysis.knorri.counterfactual import Counterfactual

matplotlib.use("Agg")


def _agents(rows: list[tuple[int, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"seats": seats, "agent": agent, "seat_hands": 40, "diff": 0.1, "diff_ci95": 0.05}
                         for seats, agent in rows])


def _followed(agents: pd.DataFrame, outcomes: pd.DataFrame | None = None) -> Counterfactual:
    outcomes = outcomes if outcomes is not None else pd.DataFrame(
        {"label": ["4 seats"], "reason": ["repeat"], "cut": [3], "paired": [3], "ended": [2], "scores_changed": [1],
         "never_ended": [1], "diverged": [0]})
    extra = pd.DataFrame({"reason": ["repeat"], "extra": [12], "hands": [2]})
    return Counterfactual({"repeat": 2}, {"repeat": 0, "cap": 20000}, 40, 40, outcomes, extra, agents)


def _figures(continuation: Counterfactual) -> set[str]:
    analysis = SimpleNamespace(continuation=continuation, counterfactual=None)
    return {spec.name for spec in cutoff_page.FIGURES if spec.follows and spec.applies(analysis)}


def test_a_table_of_one_agent_has_no_agent_effect_figure():
    # every hand's scores sum to zero among one agent's own seats: its change is zero by construction
    assert _figures(_followed(_agents([(4, "random"), (5, "random")]))) == {"cutoff_continuation"}


def test_a_table_of_several_agents_has_the_agent_effect_figure():
    both = {"cutoff_continuation", "cutoff_continuation_agent_effect"}
    assert _figures(_followed(_agents([(4, "random"), (4, "greedy")]))) == both
    assert _figures(_followed(_agents([(3, "random"), (4, "random"), (4, "loginf")]))) == both

