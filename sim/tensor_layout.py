"""Observation tensors laid out as named fields, each ``(name, width, meaning)`` in order (every game's).

The compiled kernels write by the offsets these give, and readers slice by the same
names, so a game defines its layout once as a tuple of fields.
"""

from __future__ import annotations

from collections.abc import Sequence

Field = tuple[str, int, str]
"""One field of a tensor: its name, how many numbers it takes, and what they mean."""


def field_slices(fields: Sequence[Field]) -> dict[str, slice]:
    """Each field's slice of the tensor, the fields one after the other: ``tensor[..., slices["own_hand"]]``."""
    slices, at = {}, 0
    for name, width, _ in fields:
        slices[name] = slice(at, at + width)
        at += width
    return slices


def tensor_size(fields: Sequence[Field]) -> int:
    """How many numbers the whole tensor holds."""
    return sum(width for _, width, _ in fields)


def field_meanings(fields: Sequence[Field]) -> dict[str, str]:
    """What each named field holds."""
    return {name: meaning for name, _, meaning in fields}


def layout(fields: Sequence[Field]) -> tuple[dict[str, slice], int, dict[str, str]]:
    """A tensor's whole layout from its fields: the named slices, the size and what each field holds."""
    return field_slices(fields), tensor_size(fields), field_meanings(fields)


def field_starts(fields: Sequence[Field]) -> list[int]:
    """Where each field starts, in order: the offsets a compiled kernel writes by."""
    return [part.start for part in field_slices(fields).values()]
