"""The command that replays a failed deal is written by the runner (``experiments``) from the deal ``sim`` reports."""

from __future__ import annotations

from experiments.runner.seating import replay_command
from sim import games
from sim.errors import FailedDeal


def test_options_at_the_games_defaults_are_left_out():
    deal = FailedDeal(4, 7, ("a;b", "random", "random", "random"), {"target_wins": 7, "first_holder": 0})
    command = replay_command(games.adapter("kort"), "kort", deal)
    assert command == "knorri-sim play --game kort --seats 4 --seed 7 --agents 'a;b;random;random;random'"


def test_an_option_off_its_default_is_given_and_a_flag_written_in_lower_case():
    deal = FailedDeal(3, 5, ("random",) * 3, {"rainbow": True})
    assert "--option rainbow=true" in replay_command(games.adapter("knockout-whist"), "knockout-whist", deal)


def test_a_knorri_hand_names_its_first_seat_and_its_cut_off_options():
    deal = FailedDeal(3, 9, ("random",) * 3, {"cap": 500, "repeat": 3}, first_seat=2)
    command = replay_command(games.adapter("knorri"), "knorri", deal)
    assert command.startswith("knorri-sim play --seats 3 --seed 9 --first 2")
    assert "--option cap=500" in command and "--game" not in command
