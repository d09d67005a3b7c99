"""Every registered game against the contract (``sim.contract``), and every command on every game.

The tiny game Ten is a package of its own (``tests/plugins/ten``), installed by the test command: its entry
points are all that registers it, which proves a game and its agents from another package need no edit of the
harness.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import types

import numpy as np
import pandas as pd
import pytest
import tiny_game
from tiny_game.engine import TenGame

from agents.base import known_agents
from experiments.cli import main
from experiments.runner.config import build_config
from sim import games, plugins
from sim.contract import GameAdapter, check_adapter, has_compiled_engine, plural
from sim.errors import GameInputError
from sim.reference_base import ReferenceGame

EVERY_GAME = tuple(games.names())


@pytest.mark.parametrize("name", EVERY_GAME)
def test_every_game_meets_the_contract(name):
    adapter = games.adapter(name)
    check_adapter(name, adapter)
    assert isinstance(adapter, GameAdapter)
    deal = adapter.deal(adapter.DEFAULT_SEATS, 7, {})
    assert isinstance(deal, ReferenceGame) and not deal.done and deal.legal_actions()


@pytest.mark.parametrize("name", EVERY_GAME)
def test_traj_prints_a_line_per_seed_the_same_on_every_engine(name, capsys):
    adapter = games.adapter(name)
    argv = ["traj", "--game", name, "--seats", str(adapter.DEFAULT_SEATS), "--seeds", "5", "9"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["5", "6", "7", "8"]
    if has_compiled_engine(adapter):
        assert main([*argv, "--engine", "compiled"]) == 0
        assert capsys.readouterr().out.splitlines() == lines


@pytest.mark.parametrize("name", EVERY_GAME)
def test_play_prints_the_log_and_the_end(name, capsys):
    assert main(["play", "--game", name, "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(games.adapter(name).TITLE + ", seed 3") and len(out) > 3
    assert main(["play", "--game", name, "--seed", "3", "--json"]) == 0
    assert all(json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines())


@pytest.mark.parametrize("name", EVERY_GAME)
def test_bench_times_the_reference_engine(name, capsys):
    unit = plural(games.adapter(name).ROW)
    assert main(["bench", "--game", name, "--engine", "reference", f"--{unit}", "5", "--repeat", "1",
                 "--workers", "1", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(row[unit] == 5 and row["engine"] == "reference" for row in rows)


@pytest.mark.parametrize("name", EVERY_GAME)
def test_run_then_report(name, tmp_path, capsys):
    adapter = games.adapter(name)
    out = tmp_path / "run"
    assert main(["run", "--game", name, "--seats", str(adapter.DEFAULT_SEATS), "--agents", "random",
                 "--hands", "24", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    hands = pd.read_parquet(out / "hands")
    outcome = adapter.OUTCOME[0]
    assert len(hands) == 24 and (outcome in hands or f"{outcome}_0" in hands)
    assert main(["report", str(out)]) == 0
    assert (out / "report" / "report.md").exists()
    capsys.readouterr()


@pytest.mark.parametrize("name", EVERY_GAME)
def test_league_rates_two_agents(name, tmp_path, capsys):
    seats = games.adapter(name).DEFAULT_SEATS
    assert main(["league", "--game", name, "--seats", str(seats), "--agents", "random,tiny_game.bots:LowestCard",
                 "--deals", "3", "--workers", "1", "--no-progress", "--out", str(tmp_path / "league")]) == 0
    out = capsys.readouterr().out
    assert "random" in out and "LowestCard" in out


def test_a_game_whose_scores_do_not_sum_to_zero_shows_its_mean(tmp_path, capsys):
    assert main(["run", "--game", tiny_game.NAME, "--seats", "2", "--agents", "random", "--hands", "10",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "+1.500" in out and "sums to zero" not in out  # three tricks between two seats


def test_ten_plays_its_own_registered_bot(capsys):
    assert main(["play", "--game", tiny_game.NAME, "--seed", "4", "--agents", "lowest;random"]) == 0
    assert "Ten, seed 4, agents: lowest; random" in capsys.readouterr().out


def test_a_game_from_another_package_needs_no_edit_of_the_harness():
    from conftest import ROOT

    mentions = [path.relative_to(ROOT).as_posix() for package in ("sim", "agents", "experiments", "rl")
                for path in (ROOT / package).rglob("*.py") if "tiny_game" in path.read_text()]
    assert mentions == []
    ten = {point.name: point for point in importlib.metadata.entry_points(group=plugins.GAMES)}[tiny_game.NAME]
    assert ten.value == "tiny_game.adapter" and ten.dist.name == "knorri-sim-ten"
    assert tiny_game.NAME in games.names() and "lowest" in known_agents(tiny_game.NAME)


def test_the_built_in_games_are_plug_ins_like_any_other():
    from conftest import ROOT

    for group in (plugins.GAMES, plugins.AGENTS, plugins.REPORTS):
        declared = {point.name for point in importlib.metadata.entry_points(group=group)
                    if point.dist.name == "knorri-sim"}
        assert declared == {"knorri", "knockout-whist", "kort"}, group
    for registry in ("sim/games.py", "agents/__init__.py", "experiments/analysis/reports.py"):
        text = (ROOT / registry).read_text()
        assert not any(f"{package}." in text for package in ("knorri", "knockout_whist", "kort")), registry


# Modules outside a game's folders that import that game, each with why it may.
OWN_GAME_IMPORTS_ALLOWED = {
    # the worked example of a user's own agent (docs/observations.md points at it): written for one game, as a
    # user's agent is, and imported by spec path, never by the harness
    "agents/examples/highest_card.py": {"knorri"},
    # --floor times Knorri's own compiled search kernels by wrapping them: a measure only that game's search has
    "experiments/bench/mcts.py": {"knorri"},
}


def _imported_modules(path, package: str) -> set[str]:
    """Every module a file imports, at the top or inside a function (``from sim import kort`` as ``sim.kort``)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_no_module_outside_a_games_folders_imports_that_game():
    """A game is its own folders plus one registration: sim/<game>/, agents/<game>/ and
    experiments/analysis/<game>/ alone import the game; everything else asks its adapter or its registries."""
    from conftest import ROOT

    folders = {point.value.split(".")[1] for point in importlib.metadata.entry_points(group=plugins.GAMES)
               if point.dist.name == "knorri-sim"}
    assert folders == {"knorri", "knockout_whist", "kort"}
    homes = {game: (f"sim.{game}", f"agents.{game}", f"experiments.analysis.{game}") for game in folders}
    breaches, allowed_used = [], set()
    for top in ("sim", "agents", "rl", "experiments"):
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            module = relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            own = {game for game, roots in homes.items() if any(module == r or module.startswith(r + ".")
                                                                 for r in roots)}
            for imported in _imported_modules(path, package):
                for game, roots in homes.items():
                    if game in own or not any(imported == r or imported.startswith(r + ".") for r in roots):
                        continue
                    if game in OWN_GAME_IMPORTS_ALLOWED.get(relative, set()):
                        allowed_used.add(relative)
                    else:
                        breaches.append(f"{relative} imports {imported}")
    assert breaches == []
    assert allowed_used == set(OWN_GAME_IMPORTS_ALLOWED), "an allowance no longer needed: drop it"


def test_an_adapter_missing_a_name_is_refused_in_one_line():
    adapter = games.adapter(tiny_game.NAME)
    broken = types.SimpleNamespace(**{k: v for k, v in vars(adapter).items() if k != "deal"})
    with pytest.raises(GameInputError, match=r"^game 'broken': its adapter lacks deal"):
        check_adapter("broken", broken)


def test_an_adapter_declaring_a_bad_seat_range_is_refused():
    adapter = games.adapter(tiny_game.NAME)
    broken = types.SimpleNamespace(**{**vars(adapter), "MIN_SEATS": 4})
    with pytest.raises(GameInputError, match="MIN_SEATS <= DEFAULT_SEATS <= MAX_SEATS"):
        check_adapter("broken", broken)


def test_an_adapter_leaving_an_end_reason_unexplained_is_refused():
    adapter = games.adapter(tiny_game.NAME)
    broken = types.SimpleNamespace(**{**vars(adapter), "END_REASON_DOCS": {}})
    with pytest.raises(GameInputError, match="END_REASON_DOCS must explain every end_reason category"):
        check_adapter("broken", broken)


def test_an_adapter_whose_resample_is_no_function_is_refused():
    adapter = games.adapter("knorri")
    learning = dataclasses.replace(adapter.LEARNING, resample="shuffle")
    broken = types.SimpleNamespace(**{**vars(adapter), "LEARNING": learning})
    with pytest.raises(GameInputError, match="LEARNING.resample must be a function or None"):
        check_adapter("broken", broken)


def test_an_adapter_giving_half_the_docs_facet_is_refused():
    adapter = games.adapter("kort")
    broken = types.SimpleNamespace(**{k: v for k, v in vars(adapter).items() if k != "ACTION_DOCS"})
    with pytest.raises(GameInputError, match="OBSERVATION .* and ACTION_DOCS .* go together"):
        check_adapter("broken", broken)


def test_a_game_cannot_be_registered_twice_under_one_name():
    with pytest.raises(GameInputError, match="already registered"):
        games.register_game("kort", "Kort", "tiny_game.adapter")


@pytest.mark.parametrize("name", EVERY_GAME)
def test_an_adapter_plays_the_engine_it_is_given_and_never_chooses_one(name):
    adapter = games.adapter(name)
    n_seats = adapter.DEFAULT_SEATS
    with pytest.raises(GameInputError, match="not 'auto': the run's plan chooses the route"):
        adapter.play_matches(n_seats, [1], [["random"] * n_seats], engine="auto")


def test_a_config_without_seats_takes_the_adapters_default_seat_count():
    adapter = games.adapter(tiny_game.NAME)
    config = build_config({"game": tiny_game.NAME, "hands": 4, "agents": ["random"]})
    assert [table.seats for table in config.tables] == [adapter.DEFAULT_SEATS] == [2]
    tables = build_config({"game": tiny_game.NAME, "hands": 4, "tables": [{"agents": ["random", "lowest"]}]})
    assert tables.tables[0].seats == adapter.DEFAULT_SEATS


def test_a_new_games_run_ids_name_the_game_and_its_options():
    identity = build_config({"game": tiny_game.NAME, "hands": 4}).identity()
    assert identity["game"] == tiny_game.NAME and identity["options"] == {}
    assert not games.game(tiny_game.NAME).bare_run_ids and games.game(games.DEFAULT_GAME).bare_run_ids


def test_only_one_game_may_leave_itself_out_of_its_run_ids():
    with pytest.raises(GameInputError, match="only one game's run ids leave the game out, and knorri's do"):
        games.register_game("ten-legacy", "Ten", "tiny_game.adapter", bare_run_ids=True)
    assert "ten-legacy" not in games.names()


def test_a_command_refuses_a_compiled_engine_the_game_lacks(capsys):
    assert main(["traj", "--game", tiny_game.NAME, "--seats", "2", "--seeds", "0", "2", "--engine", "compiled"]) == 2
    assert "Ten has no compiled engine: use --engine reference" in capsys.readouterr().err


# ----- Ten's own rules, as its engine plays them ----------------------------------------------------------------
def _play(game: TenGame, cards: list[int]) -> TenGame:
    for card in cards:
        game.apply(card)
    return game


def test_ten_the_highest_card_takes_the_trick_and_leads_next():
    game = TenGame(2, seed=3)
    lead, follow = game.legal_actions()[0], game.observation(1).hand[0]
    _play(game, [lead, follow])
    assert game.tricks[int(follow > lead)] == 1 and game.to_move == int(follow > lead)


def test_ten_deals_three_of_the_ten_cards_to_each_seat():
    for seed in range(20):
        game = TenGame(3, seed=seed)
        held = [card for seat in range(3) for card in game.observation(seat).hand]
        assert len(held) == len(set(held)) == 9 and max(held) < 10


def test_ten_a_tie_on_tricks_goes_to_the_tied_seat_that_took_a_trick_last():
    rng = np.random.default_rng(0)
    for seed in range(200):
        game = TenGame(3, seed=seed)
        while not game.done:
            game.apply(int(rng.choice(game.legal_actions())))
        if sorted(game.tricks) == [1, 1, 1]:
            assert game.winner == game.log[-2]["taker"]
            return
    pytest.fail("no three-way tie in 200 games")
