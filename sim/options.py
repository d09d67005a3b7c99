"""Reading a game's options as written on a command line or in a config: ``name=value`` strings or a mapping."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sim.errors import GameInputError


def option_pairs(settings: Iterable[str] | Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(name, value)`` pairs from a mapping (values as given) or from ``name=value`` strings (both sides
    stripped); a string without ``=`` is refused in one line. Each game checks the names and values."""
    if isinstance(settings, Mapping):
        return list(settings.items())
    pairs = []
    for setting in settings:
        name, sep, value = str(setting).partition("=")
        if not sep:
            raise GameInputError(f"an option is written name=value, not {setting!r}")
        pairs.append((name.strip(), value.strip()))
    return pairs
