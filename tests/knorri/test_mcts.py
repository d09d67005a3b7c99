"""``mcts``: compiled search that agrees with the Python playouts, plays legally, deterministically and
only from what its seat may know, and beats random play clearly."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import AgentSpecError, make_agent
from agents.knorri.loginf import LogInfAgent
from agents.knorri.playout import CompiledPlayout, PythonPlayout, best_by_playouts, finish_in_place
from agents.knorri.search import (
    POLICY_IDS,
    Scratch,
    TreeSearch,
    lookahead_action,
    sampled_stock_search,
)
from agents.knorri.search_rules import (
    BY_BEST_LINE,
    BY_VISITS,
    GREEDY_MODEL,
    LOOKAHEAD_MODEL,
    NEVER,
    RANDOM_MODEL,
    others_are_greedy,
    settle_rule,
    tree_capacity,
)
from agents.knorri.tracker import KnorriTracker
from sim.knorri.compiled import position_rows
from sim.knorri.encoding import TABLE_SIZE
from sim.knorri.reference import KnorriHand
from sim.rng import SplitMix64, agent_seed
from sim.seating import play_with_agents


def _positions(n_seats: int, seeds: range, phase: int, every: int = 3, per_hand: int = 12):
    """Copies of hands at every ``every``-th decision of random play with two or more choices (``per_hand`` at most)."""
    found = []
    for seed in seeds:
        taken = 0
        hand = KnorriHand.from_seed(n_seats, seed)
        rng = SplitMix64(seed ^ 0xC0FFEE)
        count = 0
        while not hand.done:
            legal = hand.legal_actions()
            if hand.phase == phase and len(legal) > 1:
                count += 1
                if count % every == 0 and taken < per_hand:
                    found.append(hand.clone())
                    taken += 1
            hand.apply(rng.choice(legal))
    return found


def _tracker_at(hand: KnorriHand, seat: int) -> KnorriTracker:
    tracker = KnorriTracker(hand.n_seats)
    tracker.update(hand.observation(seat))
    return tracker


def test_compiled_and_python_greedy_playouts_give_the_same_scores():
    """Greedy playouts draw nothing at random: both evaluators must finish every position identically."""
    python, compiled = PythonPlayout("greedy"), CompiledPlayout("greedy")
    positions = [p for n in (3, 4, 6) for p in _positions(n, range(8), phase=2, every=5)]
    assert len(positions) > 200
    for position in positions:
        assert compiled.evaluate(position) == python.evaluate(position)


def test_loginfs_look_ahead_in_one_compiled_call_picks_as_the_python_loop_does():
    """``CompiledPlayout.best_action`` (one kernel call) equals ``best_by_playouts`` over the same playouts: with
    greedy playouts the Python playouts' pick, and with random ones the compiled playouts' pick from the same
    stream, which both leave at the same point."""
    positions = [p for n in (3, 4, 6) for p in _positions(n, range(20, 26), phase=2, every=4)]
    assert len(positions) > 100
    python, compiled = PythonPlayout("greedy"), CompiledPlayout("greedy")
    for position in positions:
        assert compiled.best_action(position) == python.best_action(position)
    one_call, loop = CompiledPlayout("random", seed=5), CompiledPlayout("random", seed=5)
    for position in positions:
        assert one_call.best_action(position) == best_by_playouts(loop.evaluate, position)
        assert one_call._stream.state == loop._stream.state


def test_first_pass_of_the_tree_is_loginfs_look_ahead():
    """One iteration per root child tries each once with a greedy playout: exactly loginf's choice."""
    tree = TreeSearch(capacity=256, n_seats=4)
    rng = np.zeros(1, dtype=np.uint64)
    checked = 0
    for position in _positions(4, range(10), phase=2, every=2):
        seat = position.to_move
        loginf = LogInfAgent()
        loginf.reset(seat, 4)
        expected = loginf.act(position.observation(seat), position.legal_actions())
        tree.start(position_rows(_tracker_at(position, seat).position()))
        tree.iterate(len(position.legal_actions()), 0.4, POLICY_IDS["greedy"], rng)
        children = tree.root_children()
        assert sorted(a for a, _, _, _ in children) == position.legal_actions()
        assert all(visits == 1 for _, visits, _, _ in children)
        assert tree.pick() == expected
        checked += 1
    assert checked > 50


def _search(position, iterations, models, settle, seed=31, capacity_for=300):
    """One phase-2 search from ``position``'s seat (a tree sized for ``capacity_for`` iterations): the tree and the
    iterations it ran."""
    seat = position.to_move
    tree = TreeSearch(tree_capacity(capacity_for), position.n_seats)
    tree.start(position_rows(_tracker_at(position, seat).position()))
    models = np.full(position.n_seats, models, dtype=np.int64)
    ran = tree.iterate(iterations, 0.4, POLICY_IDS["greedy"], np.array([seed], dtype=np.uint64), models, settle)
    return tree, ran


def test_a_search_that_stops_once_the_most_visited_child_leads_by_more_than_is_left_picks_as_a_full_one():
    """``BY_VISITS`` runs a prefix of the full search (same streams) and stops only when the leader's lead exceeds
    the iterations left, so the most visited child is the one the whole budget would pick; it saves iterations."""
    saved, checked = 0, 0
    for position in _positions(4, range(4), phase=2, every=3, per_hand=8):
        for model in (RANDOM_MODEL, GREEDY_MODEL):
            full, ran_full = _search(position, 300, model, NEVER)
            settled, ran = _search(position, 300, model, BY_VISITS)
            assert ran_full == 300 and 1 <= ran <= 300
            assert settled.pick() == full.pick()
            saved += 300 - ran
            checked += 1
    assert checked > 20 and saved > 0


def test_a_search_whose_line_wins_outright_stops_there_and_plays_that_line():
    """``BY_BEST_LINE`` stops as soon as a line goes out first for the searching seat (value 1, the best score
    there is); the pick then starts such a line. A search that finds none by its last iteration spends it all."""
    stopped, unsettled = 0, 0
    for position in _positions(4, range(6), phase=2, every=2, per_hand=10):
        tree, ran = _search(position, 200, GREEDY_MODEL, BY_BEST_LINE)
        children = tree.root_children()
        values = {action: line for action, _, _, line in children}
        if ran < 200:
            assert values[tree.pick(by_best_line=True)] == 1.0
            stopped += 1
        else:
            before_last, _ = _search(position, 199, GREEDY_MODEL, NEVER)
            assert max(line for _, _, _, line in before_last.root_children()) < 1.0
            unsettled += 1
    assert stopped > 5 and unsettled > 0


def test_a_won_line_ends_a_search_only_where_the_playouts_play_the_other_seats_models():
    """Under ``loginf`` models the playouts still play the seats greedy, so a won line is no proof: no early stop
    there (nor in version 1); a most-visited pick stops by visits."""
    assert settle_rule(2, True, True) == BY_BEST_LINE
    assert settle_rule(2, True, False) == NEVER
    assert settle_rule(2, False, False) == BY_VISITS
    assert settle_rule(1, True, True) == NEVER and settle_rule(1, False, False) == NEVER
    assert others_are_greedy(np.array([LOOKAHEAD_MODEL, GREEDY_MODEL, GREEDY_MODEL]), hero=0)
    assert not others_are_greedy(np.array([GREEDY_MODEL, LOOKAHEAD_MODEL, GREEDY_MODEL]), hero=0)


def test_version_1_is_the_first_mcts_every_iteration_spent():
    """``mcts:version=1`` keeps the first agent's budget (1,000 playouts in every search) and never stops a search
    early; the current default stops once its pick settles, with budgets of its own."""
    first, current = make_agent("mcts:version=1"), make_agent("mcts")
    assert (first.iters, first.line_iters, first.version) == (1000, 1000, 1) and first.name.endswith("version=1")
    assert current.version == 6 and current.iters < first.iters and "version" not in current.name
    assert current.line_iters == 5 * current.iters  # a search against deterministic seats mostly stops at once
    assert make_agent("mcts:version=1,iters=50").line_iters == 50
    assert make_agent("mcts:iters=50,line_iters=70").line_iters == 70
    assert current.chance_iters == 5 * current.iters and current.horizon == 40  # short playouts, more of them
    third = make_agent("mcts:version=3")
    assert (third.iters, third.chance_iters, third.horizon) == (200, 600, 40) and third.name.endswith("version=3")
    assert make_agent("mcts:version=1,iters=50").chance_iters == 50
    assert make_agent("mcts:version=1").horizon == 0 and make_agent("mcts:version=2").horizon == 0
    assert make_agent("mcts:version=2").chance_iters == make_agent("mcts:version=2").iters
    assert "horizon=0" in make_agent("mcts:horizon=0").name
    fourth = make_agent("mcts:version=4")
    assert (fourth.chance_iters, fourth.horizon) == (1000, 40) and fourth.name.endswith("version=4")
    fifth = make_agent("mcts:version=5")
    assert (fifth.chance_iters, fifth.horizon) == (1000, 40) and fifth.name.endswith("version=5")
    with pytest.raises(AgentSpecError, match="version=7 is unknown"):
        make_agent("mcts:version=7")
    with pytest.raises(AgentSpecError, match="horizon=-1: give 0"):
        make_agent("mcts:horizon=-1")
    with pytest.raises(AgentSpecError, match="line_iters=0: give at least 1 playout"):
        make_agent("mcts:line_iters=0")
    with pytest.raises(AgentSpecError, match="chance_iters=0: give at least 1 playout"):
        make_agent("mcts:chance_iters=0")



def test_the_loginf_opponent_model_chooses_as_loginf_does():
    """The tree's ``others=loginf`` model is loginf compiled: the same choice at every tested position."""
    scratch, lookahead = Scratch(), Scratch()
    positions = _positions(4, range(10, 16), phase=2, every=2) + _positions(5, range(3), phase=2, every=2)
    for position in positions:
        seat = position.to_move
        loginf = LogInfAgent()
        loginf.reset(seat, position.n_seats)
        expected = loginf.act(position.observation(seat), position.legal_actions())
        assert lookahead_action(position_rows(position), scratch, lookahead) == expected
    assert len(positions) > 50


def test_phase1_sample_values_equal_python_playouts_of_the_same_stock_order():
    """The compiled phase-1 search reshuffles only the unseen cards; replaying its order in Python agrees."""
    scratch = Scratch()
    for position in _positions(4, range(6), phase=1, every=4)[:12]:
        seat = position.to_move
        tracker = _tracker_at(position, seat)
        known = position_rows(tracker.rebuild(sorted_unseen(tracker)))
        choices = position.legal_actions()
        search_seed = 12345 + seat
        means = sampled_stock_search(known, choices, seat, 1, POLICY_IDS["greedy"],
                                     np.array([search_seed], dtype=np.uint64), scratch)
        stream = SplitMix64(search_seed)
        order = list(known.deck)
        first_unseen = TABLE_SIZE + len(tracker.turned_order)
        for i in range(51, first_unseen, -1):
            j = first_unseen + stream.below(i - first_unseen + 1)
            order[i], order[j] = order[j], order[i]
        for choice, mean in zip(choices, means, strict=True):
            game = tracker.rebuild(order[TABLE_SIZE + len(tracker.turned_order):])
            game.apply(choice)
            finish_in_place(game, "greedy", SplitMix64(0))
            n = game.n_seats
            low, high = -n * (n - 1) / 2, n - 1
            assert mean == pytest.approx((game.scores[seat] - low) / (high - low))


def sorted_unseen(tracker: KnorriTracker) -> list[int]:
    """The unseen cards in id order: any order will do to read a phase-1 position."""
    return [card for card in range(52) if tracker.unseen >> card & 1]


def test_phase1_choice_ignores_the_true_stock_order():
    """Two deals equal up to the current turn but with the unseen cards in another order look the same
    to the seat, so the agent (same seeds) must choose the same."""
    checked = 0
    for position in _positions(4, range(20), phase=1, every=5)[:10]:
        seat = position.to_move
        turned = 52 - position.observation(seat).stock_left
        rest = list(position.deck[turned:])
        other_deck = list(position.deck[:turned]) + rest[::-1]
        other = KnorriHand(4, other_deck, position.first_seat)
        for action in position.decisions:
            other.apply(action)
        assert other.observation(seat) == position.observation(seat)
        choices = []
        for hand in (position, other):
            agent = make_agent("mcts:iters=120")
            agent.reset(seat, 4, agent_seed(77, seat))
            choices.append(agent.act(hand.observation(seat), hand.legal_actions()))
        assert choices[0] == choices[1]
        checked += 1
    assert checked == 10


@pytest.mark.parametrize(("n_seats", "spec"), [
    (3, "mcts:iters=40"),
    (5, "mcts:iters=15,rollout=random"),
    (6, "agents.knorri.mcts:MaxnMCTSAgent:iters=40"),
    (4, "agents.knorri.mcts:GreedyOthersMCTSAgent:iters=40,c=1.0"),
])
def test_mcts_plays_only_legal_ids_at_every_seat_count(n_seats, spec):
    """play_hand raises on any illegal id; every seat is MCTS (each opponent model, both playout policies)."""
    for seed in range(2):
        agents = [make_agent(spec) for _ in range(n_seats)]
        hand = play_with_agents(KnorriHand.from_seed(n_seats, seed), agents, seed)
        assert hand.done and sum(hand.scores) == 0


def test_mcts_default_budget_is_deterministic_for_a_fixed_seed():
    def play(seed, agents):
        return play_with_agents(KnorriHand.from_seed(4, seed), agents, seed)

    reused = [make_agent("mcts")] + [make_agent("greedy") for _ in range(3)]
    play(3, reused)
    first = play(4, reused)
    again = play(4, [make_agent("mcts", seed=9)] + [make_agent("greedy") for _ in range(3)])
    assert first.decisions == again.decisions and first.scores == again.scores
    other_spec_seed = play(4, [make_agent("mcts:seed=5")] + [make_agent("greedy") for _ in range(3)])
    assert other_spec_seed.done


def test_mcts_beats_random_clearly_on_duplicate_deals():
    """A small budget already wins by a wide margin over 12 duplicate deals (48 hands) at 4 seats."""
    total, hands = 0, 0
    for seed in range(12):
        for hero in range(4):
            agents = [make_agent("mcts:iters=60" if s == hero else "random") for s in range(4)]
            total += play_with_agents(KnorriHand.from_seed(4, seed), agents, seed).scores[hero]
            hands += 1
    assert total / hands > 1.5  # 0 is even; greedy averages about +2.9 against random
