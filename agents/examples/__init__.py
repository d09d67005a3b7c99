"""Example agents to copy when writing your own: each file's docstring says how to run it."""
