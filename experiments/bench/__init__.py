"""The benchmarks, one module per concern, each run by ``knorri-sim bench`` or ``python -m experiments.bench.<module>``.

- ``act``: the CPU time an agent takes inside ``act`` per decision, in any game.
- ``engines``: each engine's speed on uniform random deals of a game (``knorri-sim bench``).
- ``integrity``: what checking a run's bytes costs, writing (checksummed shards) and reading.
- ``lineups``: a lineup of agents on each path the runner can take (``knorri-sim bench --agents SPECS``).
- ``mcts``: ``mcts`` decisions per second in any game, and the Knorri search floor.
- ``openspiel``, ``openspiel_ismcts``: our Knorri ``mcts`` against OpenSpiel's ``MCTSBot`` and ``ISMCTSBot``.
- ``openspiel_speed``: clones, random play and ``random_sim_test`` of every game through ``pyspiel``.
- ``rl_vector``: the RL vector env's learner steps per second.
- ``runner``: ``knorri-sim run`` end to end, against the engine alone and into an S3-compatible store.
- ``startup``: how long the main commands take as whole processes, cold and warm.

Every figure is a timing of this machine, median of repeats, CPU seconds where the machine is shared; none is an
assertion in a test. The OpenSpiel ones need the ``rl`` extra.
"""
