"""Example agents for users to copy: each file's docstring says how to run it."""
