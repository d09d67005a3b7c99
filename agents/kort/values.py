"""A team's chance to win a Kort match from a score, for searches that stop at the end of a round.

A search that plays out only the round being decided still needs the team's *match*
result (a seat maximises its team's), so it values the score the round leaves by the
chance that the team goes on to win the match from there. That chance follows from
how often each round result happens to the holder's team and to the other: the
holder keeps the trump while its team gets the wins and it passes to the other team
otherwise, so ``match_win_chance`` works it out exactly by recursion over the scores
(every round adds at least one win, so the recursion ends).

The round results' frequencies were measured once in ``tracker`` self-play; the figures, and how they were
taken, are in docs/kort.md ("Kort's agents and the ladder of teams").
"""

from __future__ import annotations

from functools import cache

import numpy as np

from sim.kort.encoding import RESULT_WINS, Result

# (wins, chance) of each round result, for the holder's team and for the other team
HOLDER_TEAM_GETS = ((RESULT_WINS[Result.ORDINARY], 0.566), (RESULT_WINS[Result.KORT], 0.031))
OTHER_TEAM_GETS = ((RESULT_WINS[Result.ORDINARY], 0.393), (RESULT_WINS[Result.AT_KORT], 0.010))


@cache
def match_win_chance(target: int) -> np.ndarray:
    """``table[us, them, holds]``: the chance that a team with ``us`` wins against ``them`` (both below
    ``target``) wins the match, holding the trump for the next round when ``holds`` is 1."""
    total = sum(chance for _, chance in HOLDER_TEAM_GETS + OTHER_TEAM_GETS)
    table = np.zeros((target, target, 2))

    def value(us: int, them: int, holds: int) -> float:
        if us >= target:
            return 1.0
        if them >= target:
            return 0.0
        return float(table[us, them, holds])

    for score_sum in range(2 * target - 2, -1, -1):  # higher scores first: each round adds wins
        for us in range(max(0, score_sum - target + 1), min(target - 1, score_sum) + 1):
            them = score_sum - us
            for holds in (0, 1):
                chance = 0.0
                for wins, share in HOLDER_TEAM_GETS:  # the holder's team gets the wins and keeps the trump
                    chance += share * (value(us + wins, them, 1) if holds else value(us, them + wins, 0))
                for wins, share in OTHER_TEAM_GETS:  # the other team gets them and the trump passes to it
                    chance += share * (value(us, them + wins, 0) if holds else value(us + wins, them, 1))
                table[us, them, holds] = chance / total
    return table
