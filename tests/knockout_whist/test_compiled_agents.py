"""Knockout Whist's built-in agents inside compiled code: the runner's compiled path writes the reference path's
rows for lineups of greedy, tracker and mcts; the compiled tracker deduces what the Python tracker deduces at
every decision; compiled mcts reads only what its seat has seen; a user's agent or a time budget keeps the
reference path."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from agents.base import make_agent
from agents.knockout_whist import compiled_tracker, decision, lineup
from agents.knockout_whist.hand_values import hand_values
from agents.knockout_whist.mcts import MCTSAgent
from agents.knockout_whist.tracker import KnockoutWhistTracker, tracker_action
from agents.lineup import agent_table, seat_search
from agents.search_tree import SearchSettings
from experiments.runner import routes
from experiments.runner.config import build_config
from experiments.runner.execute import run_experiment
from sim.knockout_whist import compiled
from sim.knockout_whist.encoding import MAX_SEATS, NUM_ACTIONS
from sim.knockout_whist.reference import KnockoutWhistGame, as_options
from sim.rng import MASK64, SplitMix64, derive_seed

GAME = "knockout-whist"
OPTION_MIXES = ({}, {"card_exchange": True, "winner_deals": True, "no_trumps_choice": True},
                {"rainbow": True, "safe_first_hand": True},
                {"dogs_life": False, "card_exchange": True, "rainbow": True})


# ----- the runner's rows ----------------------------------------------------------------------------


@pytest.fixture
def kernel_games(monkeypatch):
    """Counts the games the lineup kernel plays (the compiled path taken, seen from outside)."""
    calls: list[int] = []
    play = lineup.play_lineups

    def counted(n_seats, flags, seeds, *rest, **kwargs):
        calls.append(len(seeds))
        return play(n_seats, flags, seeds, *rest, **kwargs)

    monkeypatch.setattr(lineup, "play_lineups", counted)
    return calls


@pytest.mark.parametrize("seats, agents, options", [
    (4, ["greedy"] * 4, {}),
    (4, ["tracker"] * 4, {"card_exchange": True, "winner_deals": True}),
    (4, ["random", "greedy", "tracker", "mcts:iters=30"], {}),
    (2, ["tracker", "mcts:iters=20,c=0.4,rollout=random,horizon=game,seed=5"], {"rainbow": True,
                                                                                "no_trumps_choice": True}),
    (3, ["mcts:iters=10", "greedy", "tracker"], {"card_exchange": True, "dogs_life": False}),
    (7, ["tracker", "greedy", "random", "tracker", "greedy", "random", "tracker"],
     {"card_exchange": True, "rainbow": True, "safe_first_hand": True}),
])
def test_a_lineup_of_built_in_agents_plays_in_compiled_code_and_writes_the_reference_paths_rows(
        seats, agents, options, tmp_path, kernel_games):
    games = -(-200 // seats) * seats  # every rotation of the lineup plays each deal
    run = build_config({"game": GAME, "seats": seats, "agents": agents, "hands": games, "seed": 11,
                        "chunk_hands": 70, "workers": 1, "assign": "rotate", "options": options})
    run_experiment(run, tmp_path / "compiled")
    assert sum(kernel_games) == games and routes.choose_route(run.adapter, GAME, [agents], False) == routes.LINEUP
    run_experiment(dataclasses.replace(run, engine="reference"), tmp_path / "reference")
    assert sum(kernel_games) == games
    compiled_rows, reference_rows = (pd.read_parquet(tmp_path / name / "hands").sort_values("hand_index")
                                     .reset_index(drop=True) for name in ("compiled", "reference"))
    assert len(compiled_rows) == games and compiled_rows.winner.nunique() > 1
    pd.testing.assert_frame_equal(compiled_rows, reference_rows)


def test_a_users_agent_a_time_budget_or_an_action_log_keeps_the_reference_path(tmp_path, kernel_games):
    assert lineup.LINEUP_PLAYER.accepts(["tracker", " greedy ", "mcts:iters=5,c=0.3", "random"])
    assert not lineup.LINEUP_PLAYER.accepts(["tracker", "agents.knockout_whist.greedy:GreedyAgent"])
    assert not lineup.LINEUP_PLAYER.accepts(["tracker", "mcts:time=0.01"])
    with pytest.raises(ValueError, match="the compiled engine plays only lineups of random, greedy, tracker, mcts"):
        routes.play_matches(GAME, 2, [1], [["greedy", "agents.knockout_whist.greedy:GreedyAgent"]], engine="compiled")
    run = build_config({"game": GAME, "seats": 3, "agents": ["tracker", "greedy", "random"], "hands": 30,
                        "seed": 4, "chunk_hands": 10, "workers": 1})
    run_experiment(run, tmp_path / "compiled")
    run_experiment(dataclasses.replace(run, log_actions=True), tmp_path / "logged")
    assert sum(kernel_games) == 30  # the logged run played no kernel game: the kernel keeps no action log
    compiled_rows, logged = (pd.read_parquet(tmp_path / name / "hands").sort_values("hand_index")
                             .reset_index(drop=True).drop(columns="run_id") for name in ("compiled", "logged"))
    pd.testing.assert_frame_equal(compiled_rows, logged)


# ----- what each seat knows ---------------------------------------------------------------------------


def _played_alongside(seed: int, options: dict, chosen: list[int] | None = None):
    """A reference game and its compiled twin stepped together, with every seat's compiled tracker row fed the
    public actions; yields ``(game, cards, ints, rows)`` at each decision, then applies the action the caller
    appended to ``chosen``, or else a random legal one."""
    random = SplitMix64(derive_seed(seed, 9))
    settings = as_options({"players": options.get("players", 4), **options})
    n = settings.players
    game = KnockoutWhistGame(settings, seed=seed)
    cards, ints, deck, streams = compiled.new_position()
    compiled.new_game(cards, ints, deck, streams, n, settings.flags(), np.uint64(seed))
    rows = compiled_tracker.new_tracker(n)
    while not game.done:
        for observer in range(n):
            compiled_tracker.catch_up(rows[observer], ints)
        yield game, cards, ints, rows
        action = chosen.pop() if chosen else random.choice(game.legal_actions())
        for observer in range(n):
            compiled_tracker.observe(rows[observer], ints, action)
        game.apply(action)
        compiled.apply_action(cards, ints, deck, streams, action)
    assert compiled.is_over(ints) and compiled.scores(ints) == game.scores


def test_the_compiled_tracker_deduces_what_the_python_tracker_deduces_and_chooses_as_tracker_does():
    legal = np.zeros(NUM_ACTIONS, dtype=np.int64)
    decisions = 0
    for seed in range(36):
        n = 2 + seed % 6
        trackers = [KnockoutWhistTracker(n, s) for s in range(n)]
        chosen: list[int] = []  # tracker's own choices in two games of three, random ones in the third
        for game, cards, ints, rows in _played_alongside(seed, {"players": n, **OPTION_MIXES[seed % 4]}, chosen):
            for observer in range(n):
                trackers[observer].update(game.observation(observer))
                assert [int(compiled_tracker.possible(rows[observer], cards, observer, s)) for s in range(n)] == \
                    [trackers[observer].possible(s) for s in range(n)]
                assert np.array_equal(compiled_tracker.row_of(trackers[observer]), rows[observer])
            seat = game.to_move
            expected = tracker_action(trackers[seat], game.observation(seat), game.legal_actions())
            assert compiled_tracker.tracker_choice(rows[seat], cards, ints, np.zeros(8, np.uint64), legal) == expected
            if seed % 3:
                chosen.append(expected)
            decisions += 1
    assert decisions > 3000


def test_the_compiled_root_is_the_position_read_from_the_seats_observation():
    root = compiled.new_position()
    for seed in range(24):
        n = 2 + seed % 6
        for game, cards, ints, _ in _played_alongside(seed, {"players": n, **OPTION_MIXES[seed % 4]}):
            seat = game.to_move
            stock = game.stock[len(game.stock) - game.stock_left:]
            expected = compiled.position_rows(game.observation(seat), game.hands, stock)
            hands = np.array(game.hands + [0] * (MAX_SEATS - n), dtype=np.uint64)
            compiled.seat_view(cards, ints, seat, hands, np.array(stock + [0] * (52 - len(stock))), root)
            for ours, theirs in zip(root, expected, strict=True):
                assert np.array_equal(ours, theirs)


def _shuffled_hidden(game: KnockoutWhistGame, seat: int, random: SplitMix64) -> tuple[list[int], list[int]]:
    """The other hands and the stock with the cards hidden from ``seat`` (theirs, the stock's and the others'
    thrown-away cards) shuffled within each suit over the same places: every place keeps its suit counts, so
    the deal still fits all the seat has seen (its cards, the plays, the turned card, the voids shown)."""
    stock = game.stock[len(game.stock) - game.stock_left:]
    places = [(("hand", s), card) for s in range(game.n_seats) if s != seat for card in range(52)
              if game.hands[s] >> card & 1]
    places += [(("thrown", s), card) for s in range(game.n_seats) if s != seat for card in range(52)
               if game.thrown[s] >> card & 1]
    places += [(("stock", i), card) for i, card in enumerate(stock)]
    hands, new_stock = [0] * game.n_seats, list(stock)
    for suit in range(4):
        where = [place for place, card in places if card // 13 == suit]
        cards = [card for _, card in places if card // 13 == suit]
        for (kind, index), k in zip(where, random.shuffled_deck(len(cards)), strict=True):
            if kind == "hand":
                hands[index] |= 1 << cards[k]
            elif kind == "stock":
                new_stock[index] = cards[k]
    return hands, new_stock


def test_compiled_mcts_decides_alike_whatever_hidden_cards_lie_behind_what_its_seat_has_seen():
    work = decision.new_search_work(41)
    checked = 0
    for seed in range(14):
        n = 2 + seed % 6
        options = {"players": n, **OPTION_MIXES[seed % 4]}
        values = hand_values(n, as_options(options).flags())
        random = SplitMix64(derive_seed(seed, 4))
        for game, cards, ints, rows in _played_alongside(seed, options):
            seat = game.to_move
            if len(game.legal_actions()) == 1 or random.below(3):
                continue
            choices = []
            for twin in range(3):  # the true position, then two with the hidden cards shuffled, other later deals
                streams = np.array([derive_seed(seed, 7, s) for s in range(MAX_SEATS)], dtype=np.uint64)
                position = (cards, ints)
                if twin:
                    hands, stock = _shuffled_hidden(game, seat, random)
                    position = compiled.position_rows(game.observation(seat), hands, stock, random.next())[:2]
                settings = SearchSettings(seat, 40, 0.7, compiled.GREEDY, seed % 2, values)
                choices.append(decision.mcts_choice(rows[seat].copy(), *position, settings, streams, work))
            assert choices[0] in game.legal_actions() and len(set(choices)) == 1
            checked += 1
    assert checked > 150


def test_the_python_mcts_and_the_lineup_seat_set_up_each_search_through_one_compiled_call_with_equal_inputs():
    """One search: the agent's ``prepare`` and the lineup's ``mcts_choice`` both start through
    ``decision.start_search``, and from the agent's observation it builds the root and the hidden cards' tables
    the lineup builds from the engine's rows and its compiled tracker row."""
    assert lineup.mcts_choice is decision.mcts_choice
    assert "start_search" in decision.mcts_choice.py_func.__code__.co_names
    assert "start_search" in MCTSAgent.prepare.__code__.co_names
    work = decision.new_search_work(2)
    checked = 0
    for seed in range(12):
        n = 2 + seed % 6
        agents = [MCTSAgent(seed=seed, iters=1) for _ in range(n)]
        for seat, agent in enumerate(agents):
            agent.reset(seat, n, seed)
        for game, cards, ints, rows in _played_alongside(seed, {"players": n, **OPTION_MIXES[seed % 4]}):
            seat = game.to_move
            agent, observation = agents[seat], game.observation(seat)
            agent.tracker.update(observation)
            agent._search_rng[0] = work.search_rng[0] = derive_seed(seed, checked)
            agent.prepare(observation)
            tables = decision.start_search(rows[seat].copy(), cards, ints, seat, work)
            assert agent._search_rng[0] == work.search_rng[0]  # the same stand-in deal drawn
            for ours, theirs in zip(agent._tree.root, work.root, strict=True):
                assert np.array_equal(ours, theirs)
            mine = decision.hidden_cards(compiled_tracker.row_of(agent.tracker), *compiled.seen_rows(observation)[:2],
                                         seat)
            for field, ours, theirs in zip(tables._fields, mine, tables, strict=True):
                assert np.array_equal(ours, theirs), field
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("spec", ["mcts", "mcts:iters=50,c=0.4,rollout=random,horizon=game,seed=-3"])
def test_a_lineup_seat_searches_with_the_settings_its_python_agent_searches_with(spec):
    """One declaration of the search's parameters: the lineup's seat record is read from the agent
    (``compiled_record``), and the settings the kernel builds from it at a decision are the agent's own."""
    agent, record = make_agent(spec, game=GAME), lineup.compiled_agent(spec)
    agent.reset(2, 4, 0)
    values = hand_values(4, as_options({"players": 4}).flags())  # the table a lineup passes
    ours = agent.search_settings(values)
    theirs = seat_search(agent_table([record]), 0, 2, values)
    for field, mine, kernels in zip(ours._fields, ours, theirs, strict=True):
        assert np.array_equal(mine, kernels), field
    assert record.spec_seed == (int(spec.partition("seed=")[2] or 0) & MASK64)
