"""Write ``docs/observations.md``, what an agent sees in each game, from the observation classes' ``FIELD_DOCS``.

Each registered game that gives the contract's docs facet (``sim.contract.GameDocs``: its
adapter's ``OBSERVATION`` and ``ACTION_DOCS``) has a section, in the registry's order.
Run ``python -m experiments.observation_docs`` after changing an observation; a test checks that
the page equals what this renders and that every dataclass field is documented, so it cannot drift.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path

from sim import games
from sim.contract import documents_observation

PAGE = Path(__file__).resolve().parent.parent / "docs" / "observations.md"

INTRO = """# What an agent sees: the observation of each game

`act(observation, legal)` gets one frozen dataclass (the seat's view, nothing it may not know) and the legal
action ids, ascending; it returns one of them as an `int` (NumPy integers are fine). Card id =
`suit * 13 + rank`, suits `C D H S` (0-3), rank 0 for the 2 up to 12 for the ace. `observation.to_dict()`
gives the same as plain JSON-ready data. A worked example is `agents/examples/highest_card.py`. The first
eight fields, `seat` to `log`, are the same in every game (`sim.reference_base.SeatView`), so an agent that
reads only those plays any of them.

This page is generated from each observation module's `FIELD_DOCS` by `python -m experiments.observation_docs`;
a test fails when a field is missing here or the page is out of date.
"""


def observations() -> list[tuple[str, str, str, str]]:
    """Each documented game's title, observation module, observation class and action ids in words, read from the
    registered games' adapters."""
    shown = []
    for name in games.names():
        adapter = games.adapter(name)
        if documents_observation(adapter):
            observation = adapter.OBSERVATION
            shown.append((adapter.TITLE, observation.__module__, observation.__name__, adapter.ACTION_DOCS))
    return shown


def field_docs(module_name: str, class_name: str) -> tuple[list[dataclasses.Field], dict[str, str]]:
    """The dataclass fields of an observation class and its module's ``FIELD_DOCS``."""
    module = importlib.import_module(module_name)
    return list(dataclasses.fields(getattr(module, class_name))), dict(module.FIELD_DOCS)


def render() -> str:
    """The page's Markdown: per game, the action ids and a table of every field with its type and meaning."""
    parts = [INTRO]
    for title, module_name, class_name, actions in observations():
        fields, docs = field_docs(module_name, class_name)
        parts.append(f"## {title}: `{class_name}` (`{module_name.replace('.', '/')}.py`)\n\nAction ids: {actions}\n")
        rows = ["| field | type | meaning |", "| --- | --- | --- |"]
        for item in fields:
            kind = item.type if isinstance(item.type, str) else getattr(item.type, "__name__", str(item.type))
            kind, meaning = (text.replace("|", "\\|") for text in (kind, docs.get(item.name, "UNDOCUMENTED")))
            rows.append(f"| `{item.name}` | `{kind}` | {meaning} |")
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def main() -> int:
    """Write the page."""
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
