"""The benchmarks, one module per concern, each run by ``knorri-sim bench`` or ``python -m experiments.bench.<module>``.

- ``engines``: each engine's speed on uniform random deals of a game (``knorri-sim bench``).
- ``integrity``: what checking a run's bytes costs, writing (checksummed shards) and reading (every shard checked)
  (``python -m experiments.bench.integrity``).
- ``lineups``: a lineup of agents through the game's runner adapter, on each path it can take
  (``knorri-sim bench --agents SPECS``; ``python -m experiments.bench.lineups`` for every game's table).
- ``mcts``: ``mcts`` decisions per second in any game, and the Knorri search floor
  (``python -m experiments.bench.mcts``).
- ``openspiel``: our Knorri ``mcts`` against OpenSpiel's ``MCTSBot`` on the same deals
  (``python -m experiments.bench.openspiel``, the ``rl`` extra).
- ``openspiel_ismcts``: our Knorri ``mcts`` against OpenSpiel's ``ISMCTSBot`` on duplicate deals at equal CPU per
  decision (``python -m experiments.bench.openspiel_ismcts``, the ``rl`` extra).
- ``openspiel_speed``: clones, random play and ``random_sim_test`` of every game through ``pyspiel``
  (``python -m experiments.bench.openspiel_speed``, the ``rl`` extra).
- ``rl_vector``: the RL vector env's learner steps per second (``python -m experiments.bench.rl_vector``).
- ``startup``: how long the main commands take as whole processes, cold (an empty compile cache) and warm
  (``python -m experiments.bench.startup``).
- ``runner``: ``knorri-sim run`` end to end, against the engine alone and into an S3-compatible store
  (``python -m experiments.bench.runner overhead|store``).

Every figure is a timing of this machine, median of repeats, CPU seconds where the machine is shared; none is an
assertion in a test.
"""
