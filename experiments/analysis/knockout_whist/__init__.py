"""Analysis of Knockout Whist runs: who wins from which seat, how long games last, dog's lives, the bot ladder.

The same layers as Knorri's analysis (``experiments.analysis``), for a game whose
row is a whole game: ``load`` (one or several run folders as two tidy tables),
``stats`` (every number with a 95% interval over duplicate deals), ``figures``,
``report`` (``knorri-sim report RUN_DIR`` on a Knockout Whist run) and ``sample``
(the small runs the notebook and the tests play). The head-to-head results and
the openskill ratings are the shared ones (``experiments.analysis.ladder``), ranking
the seats by when they went out.
"""

from experiments.analysis.knockout_whist.load import GameRun, load_run, load_runs
from experiments.analysis.knockout_whist.stream import stream_run, stream_runs

__all__ = ["GameRun", "load_run", "load_runs", "stream_run", "stream_runs"]
