"""The games from the libraries RL researchers use: PettingZoo, Gymnasium and OpenSpiel (the ``rl`` extra).

- ``rl.pettingzoo_env``: an AEC environment per game (``env(game=..., n_seats=...)``);
- ``rl.gym_env.SingleSeatEnv``: one learner seat against built-in agents (reference engine);
- ``rl.vector_env.BatchVectorEnv``: many deals stepped in lockstep on the compiled engine, with autoreset;
- ``rl.openspiel_game``: each game registered with OpenSpiel (``python_knorri`` ...).

The layers run rl -> agents -> sim: built-in agents are the opponents; nothing below imports this package.
"""
