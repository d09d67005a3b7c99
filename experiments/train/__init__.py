"""``knorri-sim train``: self-play Deep Monte-Carlo training of the ``learned`` agent's network.

``selfplay.py`` plays the hands on the game's compiled batch, ``learner.py`` holds the training library (the
``train`` extra: JAX and optax), ``loop.py`` the generations and the checkpoints, ``evaluate.py`` the duel against
``greedy`` on fixed duplicate deals, ``run.py`` drives it all, and ``report.py`` draws the learning curve and writes
the model card.
"""
