"""Analysis of Knorri runs: cut-offs (repeats and the cap), phase-2 length, scores by seat and turn, the ladder.

The same layers as the other games' analysis: ``load`` (a run folder as a hands and a seats table), ``stats``
(every number with a 95% interval over duplicate deals), ``figures``, ``report`` (``knorri-sim report RUN_DIR``
on a Knorri run) and ``sample`` (the small run the notebooks and the tests play). The ladder and the openskill
ratings are the shared ones (``experiments.analysis.ladder``), ranking seats by score.
"""

from experiments.analysis.knorri.load import Run, load_run

__all__ = ["Run", "load_run"]
