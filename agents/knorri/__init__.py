"""Knorri's own agents: greedy, loginf, mcts, the tracker they read the log with, and their compiled lineup."""
