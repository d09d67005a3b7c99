"""Errors every layer of the experiments package raises for the user, kept apart from the command line.

The CLI (``experiments.cli``) catches them and prints one line, exit code 2; the runner and
the commands raise them without importing the CLI module.
"""

from __future__ import annotations

import os
import sys


class UsageError(Exception):
    """Options that make no sense together; reported as one line, exit code 2."""


class ConfigError(UsageError):
    """A config file, option or lineup the runner refuses; one line, nothing written."""


class RunDamaged(Exception):
    """A run folder whose files differ from what its writer recorded (a shard missing, short, another run's, a copy
    of another chunk's, or its bytes changed); one line naming the file, exit code 1."""


DEBUG_VARIABLE = "KNORRI_SIM_DEBUG"


def debugging(args: object = None) -> bool:
    """Whether to print an agent's whole traceback: ``--debug`` given, or ``KNORRI_SIM_DEBUG=1`` set."""
    return bool(getattr(args, "debug", False)) or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def print_trace(trace: str, args: object = None) -> None:
    """With ``--debug`` (or ``KNORRI_SIM_DEBUG=1``), the failing agent's whole traceback on stderr."""
    if trace and debugging(args):
        print(trace.rstrip(), file=sys.stderr)
