"""Reading a game's options as written on a command line or in a config: ``name=value`` strings or a mapping."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any, TypeVar

from sim.errors import GameInputError

OptionsT = TypeVar("OptionsT")


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


def parse_named_options(settings: Iterable[str] | Mapping[str, Any] | OptionsT, options_type: type[OptionsT],
                        value_of: Callable[[str, Any], Any], known: str) -> OptionsT:
    """A game's options dataclass from ``name=value`` strings or a mapping (an instance is returned as it is).

    Each name must be one of the dataclass's fields (else a one-line ``GameInputError`` lists them
    as ``known``, e.g. "the options"); ``value_of(name, value)`` converts each value, and the
    dataclass checks the whole. Unnamed options keep their defaults.
    """
    if isinstance(settings, options_type):
        return settings
    names = [field.name for field in fields(options_type)]
    values: dict[str, Any] = {}
    for name, value in option_pairs(settings):
        if name not in names:
            raise GameInputError(f"unknown option {name!r}: {known} are {', '.join(names)}")
        values[name] = value_of(name, value)
    return options_type(**values)
