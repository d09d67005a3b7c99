"""Card-game engines for knorri-sim: shared cards and random stream, and one package per game."""
