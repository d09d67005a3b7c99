"""The import contract holds: `lint-imports` checks the contracts in pyproject.toml's [tool.importlinter].

Imports flow one way (experiments -> rl -> agents -> sim), no game's package imports another
game's, and agents reach an engine only through its public compiled API, never its internals. No two modules
import each other, even through an import inside a function.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
from conftest import ROOT


def _lint_imports() -> str:
    """The venv's ``lint-imports`` (next to this Python), else the one on the PATH."""
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports") or "lint-imports"


def test_imports_keep_the_layers_and_the_games_apart():
    result = subprocess.run([_lint_imports(), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_covers_every_package_and_game():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'layers = ["experiments", "rl", "agents", "sim"]' in text
    assert 'modules = ["sim.knorri", "sim.knockout_whist", "sim.kort"]' in text
    assert '"import-linter>=' in text



def import_circles(graph: grimp.ImportGraph) -> list[set[str]]:
    """Every set of two or more modules that reach each other by imports (strongly connected components)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in order:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == order[module]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        circles.append(component)
            elif step not in order:
                order[step] = low[step] = len(order)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
            elif step in on_stack:
                low[module] = min(low[module], order[step])
    return circles


def test_no_two_modules_import_each_other_even_inside_a_function():
    graph = grimp.build_graph("experiments", "rl", "agents", "sim")
    assert import_circles(graph) == []


def test_a_circle_through_an_import_inside_a_function_is_found():
    graph = grimp.ImportGraph()
    for module in ("game.load", "game.stats", "game.report"):
        graph.add_module(module)
    graph.add_import(importer="game.stats", imported="game.load")
    graph.add_import(importer="game.report", imported="game.stats")
    assert import_circles(graph) == []
    graph.add_import(importer="game.load", imported="game.stats")  # what a function-local import adds to the graph
    assert import_circles(graph) == [{"game.load", "game.stats"}]
