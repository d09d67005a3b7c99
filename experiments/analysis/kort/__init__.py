"""Analysis of Kort runs: round results, the value of holding the trump, redeals, match length, teams' ladder.

The same layers as the other games' analysis: ``load`` (one or several run folders
as a matches, a rounds and a seats table), ``stats`` (every number with a 95%
interval over duplicate deals), ``figures``, ``report`` (``knorri-sim report
RUN_DIR`` on a Kort run) and ``sample`` (the small runs the notebook and the tests
play). The seat-pair ladder and the openskill ratings are the shared ones
(``experiments.analysis.ladder``), ranking seats by their match result; the
ratings rate each match's two teams.
"""

from experiments.analysis.kort.load import KortRun, load_run, load_runs
from experiments.analysis.kort.stream import stream_run

__all__ = ["KortRun", "load_run", "load_runs", "stream_run"]
