"""Replays name the agent at every seat on every frame and raise the legal plays of the seat to move."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from experiments.replay.build import fresh_replay
from sim import games
from sim.cards import card_list
from sim.knorri import render as knorri_render
from sim.knorri.encoding import PICK_UP, run_cards
from sim.svg_cards import seat_label

# ----- replays name each seat's agent and mark the legal plays --------------------------------------------------


MARKED = re.compile(r'<g class="c(?: red)? mark" transform="translate\(([-\d.]+),([-\d.]+)\)"')


def _positions(game: str, seats: int, seed: int, steps: int = 400):
    """Positions of a deal played by uniform random choices, each before a decision (a copy of the deal there)."""
    adapter = games.adapter(game)
    deal = adapter.deal(seats, seed, adapter.check_options({}), None)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if deal.done:
            return
        yield copy.deepcopy(deal)
        legal = deal.legal_actions()
        deal.apply(int(legal[int(rng.integers(len(legal)))]))


def test_a_replay_names_the_agent_at_every_seat_on_every_frame():
    specs = ["greedy", "random", "loginf", "random"]
    replay = fresh_replay("knorri", 4, 7, specs, {})
    for frame in (replay.frames[0], replay.frames[len(replay.frames) // 2], replay.frames[-1]):
        assert all(f"seat {seat}: {spec}" in frame for seat, spec in enumerate(specs))


def test_a_long_agent_name_is_shortened_beside_its_seat_and_whole_in_the_title():
    label = seat_label(1, ["random", "runner_fixtures.agents:PythonRandom"])
    assert label.startswith("seat 1: runner_fixtu") and label.endswith("\u2026") and len(label) <= 8 + 16


def test_knorris_phase2_raises_exactly_the_cards_of_the_legal_plays_of_the_seat_to_move():
    checked = 0
    for position in _positions("knorri", 4, 11, 600):
        if position.phase != 2:
            continue
        legal = position.legal_actions()
        playable = {card for action in legal if action != PICK_UP
                    for card in ([action] if action < PICK_UP else run_cards(action))}
        drawn = knorri_render.render_svg(position)
        assert len(MARKED.findall(drawn)) == len(playable), (legal, playable)
        others = [seat for seat in range(4) if seat != position.to_move]
        assert MARKED.findall(knorri_render.render_svg(position, seat=others[0])) == []  # not its turn: no marks
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("game, seats", [("knockout-whist", 4), ("kort", 4)])
def test_the_other_games_raise_the_legal_cards_of_the_seat_to_move(game, seats):
    adapter = games.adapter(game)
    checked = 0
    for position in _positions(game, seats, 5, 120):
        hand = card_list(position.hands[position.to_move])
        cards = [action for action in position.legal_actions() if action in hand]
        assert len(MARKED.findall(adapter.render_svg(position))) == len(cards)
        checked += bool(cards)
    assert checked > 5
