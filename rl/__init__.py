"""The games from the libraries RL researchers use: PettingZoo, Gymnasium and OpenSpiel (the ``rl`` extra).

- ``rl.pettingzoo_env``: an AEC environment per game (``env(game=..., n_seats=...)``);
- ``rl.gym_env.SingleSeatEnv``: one learner seat against built-in agents (reference engine);
- ``rl.vector_env.BatchVectorEnv``: many deals stepped in lockstep on the compiled engine, with autoreset;
- ``rl.openspiel_game``: each game registered with OpenSpiel (``python_knorri`` ...), with fast clones and
  ``resample_from_infostate`` (each game's ``LearningFacts.resample`` draws what a seat has not seen) for ISMCTS.

The layers run rl -> agents -> sim: built-in agents are the opponents; nothing below imports this package.
"""

import runpy as _runpy
from pathlib import Path as _Path

# A user's own sim/ ahead on sys.path would be imported in place of the harness's engines, and fail far from the
# cause: refuse it (or any other harness name taken) in one line before this package imports sim. sim/harness.py
# imports nothing of the harness, so it is run from its file.
_runpy.run_path(str(_Path(__file__).resolve().parent.parent / "sim" / "harness.py"),
                run_name="sim.harness")["refuse_shadowing"]()
