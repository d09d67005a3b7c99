"""Errors every layer of the experiments package raises for the user, kept apart from the command line.

The CLI (``experiments.cli``) catches them and prints one line, exit code 2; the runner and
the commands raise them without importing the CLI module.
"""

from __future__ import annotations


class UsageError(Exception):
    """Options that make no sense together; reported as one line, exit code 2."""
