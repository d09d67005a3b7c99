"""Card-game engines for knorri-sim: shared cards and random stream, and one package per game."""

from sim.harness import refuse_shadowing

refuse_shadowing()  # a user's own sim/, agents/, rl/ or experiments/ ahead on sys.path is refused in one line
