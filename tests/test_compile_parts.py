"""The parts a first run compiles on its idle workers are the very kernels, with the very types, that the lineup
kernel it compiles meanwhile calls: a part typed otherwise would be compiled twice and help nobody."""

from __future__ import annotations

import pytest

from agents.base import lineup_player
from agents.knockout_whist import decision as whist_decision
from agents.knockout_whist import search as whist_search
from agents.knorri import search, search_parts
from experiments.runner import routes
from sim.compile_cache import cached_signatures

SEARCHING = {"knorri": "random;greedy;loginf;mcts:iters=4", "knockout-whist": "mcts:iters=4;tracker;greedy;random",
             "kort": "mcts:iters=4;tracker;greedy;random"}
PART_KERNELS = {"knorri": [search.lookahead_choice, search.uct_iterations, search.sampled_stock_iterations],
                "knockout-whist": [whist_decision.start_search, whist_search.search]}


def test_knorris_lineup_without_a_search_has_only_the_look_ahead_as_its_part():
    player = lineup_player("knorri")
    assert player.compile_parts(["loginf", "greedy", "random"]) == search_parts.PLAIN_PARTS
    assert player.compile_parts(["loginf", "mcts:iters=4"]) == search_parts.SEARCHING_PARTS


def test_knockout_whist_splits_off_its_search_only_with_mcts_seated_and_kort_nothing():
    whist, kort = lineup_player("knockout-whist"), lineup_player("kort")
    assert whist.compile_parts(["tracker", "greedy", "random", "greedy"]) == ()
    assert len(whist.compile_parts(SEARCHING["knockout-whist"].split(";"))) == 1
    assert kort.compile_parts(SEARCHING["kort"].split(";")) == ()  # measured: it did not pay (docs/speed.md)


@pytest.mark.parametrize("game", sorted(PART_KERNELS))
def test_each_part_compiles_the_signature_the_searching_lineup_kernel_calls(game):
    specs = SEARCHING[game].split(";")
    for part in lineup_player(game).compile_parts(specs):
        part()
    routes.play_matches(game, 4, [5], [specs], 1, engine="compiled")
    for kernel in PART_KERNELS[game]:
        assert len(cached_signatures(kernel)) == 1, kernel.__name__
