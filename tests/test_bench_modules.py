"""The benchmarks package: one module per concern, each documented where a user looks and runnable as documented."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import numpy as np

import experiments.bench as bench
from experiments.bench import lineups, mcts

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(info.name for info in pkgutil.iter_modules(bench.__path__))


def test_every_bench_module_is_listed_in_the_package_and_the_docs():
    docs = "".join(path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
    for name in MODULES:
        assert f"``{name}``" in bench.__doc__
        reached = "knorri-sim bench" if name == "engines" else f"python -m experiments.bench.{name}"
        assert reached in importlib.import_module(f"experiments.bench.{name}").__doc__
        assert name == "engines" or f"`{name}" in docs


def test_every_python_m_bench_has_a_main():
    for name in MODULES:
        if name != "engines":  # reached by knorri-sim bench
            assert callable(importlib.import_module(f"experiments.bench.{name}").main)


def test_the_lineup_table_plays_the_same_rows_on_both_paths(capsys):
    assert lineups.main(["--game", "knockout-whist", "--agents", "greedy", "--hands", "100", "--repeat", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| Knockout Whist")]
    assert len(rows) == 1
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert cells[2] == "2" and cells[4] == "100"  # the reference path timed a fiftieth of the compiled path's deals
    assert cells[-1] == "yes"


def test_rows_differing_in_one_masked_value_are_not_the_same():
    many = {"x": np.ma.array([1, 2, 3], mask=[False, True, False])}
    assert lineups.same_rows(many, {"x": np.ma.array([1, 2], mask=[False, True])})
    assert not lineups.same_rows(many, {"x": np.ma.array([1, 2], mask=[False, False])})


def test_mcts_decisions_are_timed_for_each_seat_count_and_budget(capsys):
    assert mcts.main(["--game", "kort", "--iters", "5,10", "--deals", "1", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["Kort, 4 seats, mcts", "Kort, 4 seats, mcts"]
    assert "mcts:iters=5" in lines[0] and "mcts:iters=10" in lines[1] and all("decisions/s" in line for line in lines)


def test_the_mcts_warm_up_covers_a_decision_with_a_choice_in_every_phase():
    recorded = mcts.positions("knorri", 3, 1)
    phases = {position[2].phase for position in recorded if len(position[3]) > 1}
    assert {position[2].phase for position in mcts.warm_up(recorded)[1:]} == phases
