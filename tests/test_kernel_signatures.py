"""A kernel compiles once, whoever calls it: every caller passes it arguments of the same types.

Numba compiles a kernel afresh for each new set of argument types, and it types a read-only array apart from a
writable one. A table made at import, or a global a kernel reads, is read-only; so a caller holding a writable
copy of the same table would cost a second compile of the whole kernel (half a minute for a lineup).
"""

from __future__ import annotations

import numpy as np

from agents.deal_sampling import BINOMIAL
from agents.knockout_whist import lineup as knockout_whist_lineup
from agents.kort import lineup as kort_lineup
from sim.knockout_whist.encoding import Options
from sim.knorri.compiled import batch, playout


def test_a_knorri_batch_plays_one_compiled_form_whatever_form_its_policies_come_in():
    table = np.zeros((3, 4), dtype=np.int8)  # logged, so every call takes the general playout
    read_only_table = table.copy()
    read_only_table.flags.writeable = False
    # a policy per seat for one hand is a broadcast view (read-only); for several hands, a fresh table
    for hands, policies in ((1, [0, 1, 0, 1]), (3, [0, 1, 0, 1]), (3, "greedy"), (3, table), (3, read_only_table)):
        batch.play_batch(4, np.arange(hands, dtype=np.uint64), policies=policies, workers=1, log_actions=True)
    assert len(playout.play_chunk.signatures) == 1


def test_a_knockout_whist_lineup_compiles_once_with_an_mcts_seat_and_once_without_the_search():
    flags = Options().flags()
    seatings = (["greedy", "random", "tracker", "random"], ["mcts:iters=5", "greedy", "random", "tracker"],
                ["tracker", "mcts:iters=7", "random", "greedy"], ["random", "greedy", "greedy", "tracker"])
    for seating in seatings:
        knockout_whist_lineup.play_lineups(4, flags, np.array([7], dtype=np.uint64), [seating],
                                           knockout_whist_lineup.int_rows(1))
    assert len(knockout_whist_lineup._play_searching.signatures) == 1
    assert len(knockout_whist_lineup._play_plain.signatures) == 1


def test_the_binomial_table_is_read_only_as_kernels_see_it():
    assert not BINOMIAL.flags.writeable


def test_a_kort_lineup_compiles_once_with_an_mcts_seat_and_once_without_the_search():
    seatings = (["greedy", "tracker", "random", "greedy"], ["mcts:iters=5", "greedy", "tracker", "random"],
                ["tracker", "mcts:iters=7", "greedy", "greedy"], ["random", "random", "greedy", "tracker"])
    for seating in seatings:
        kort_lineup.play_lineups({"target_wins": 1}, np.array([7], dtype=np.uint64), [seating])
    assert len(kort_lineup._play_searching.signatures) == 1
    assert len(kort_lineup._play_plain.signatures) == 1
