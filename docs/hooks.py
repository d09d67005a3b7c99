"""mkdocs hooks: the pages whose one maintained copy lives elsewhere in the repository are read from there.

The site's home page is README.md, each game's rules page is its ``seeds/<game>.md`` (beside the scenario fixtures
and tests that name its rules), the notebooks' page is ``notebooks/README.md`` and the contributing page is
CONTRIBUTING.md. Their files under ``docs/`` only
point at them (so GitHub shows a link there); at build time this hook puts the text itself in their place, with
its links made relative to ``docs/``: the README links the pages as GitHub shows them (``docs/agents.md``,
``seeds/knorri.md``, ``CONTRIBUTING.md``), the site holds them at ``agents.md``, ``rules/knorri.md`` and
``contributing.md``. A link this map does not know is left as it is, so ``mkdocs build --strict`` reports it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# the page on the site -> the repository file that is its text
INCLUDED = {
    "index.md": "README.md",
    "rules/knorri.md": "seeds/knorri.md",
    "rules/knockout_whist.md": "seeds/knockout_whist.md",
    "rules/kort.md": "seeds/kort.md",
    "contributing.md": "CONTRIBUTING.md",
    "notebooks.md": "notebooks/README.md",
}
# a link's start as the repository's root sees it -> the same place on the site (a link's #anchor is kept)
SITE_PATHS = {"docs/": "", **{source: page for page, source in INCLUDED.items() if page != "index.md"}}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def site_link(target: str) -> str:
    """Where a link from the repository's root lands on the site (unchanged when the site does not hold it)."""
    for prefix, replacement in SITE_PATHS.items():
        if target.startswith(prefix):
            return replacement + target[len(prefix):]
    return target


def included_page(source: str) -> str:
    """The markdown of repository file ``source`` for the site: links rewritten, and a line saying where it lives."""
    text = LINK.sub(lambda match: f"]({site_link(match.group(1))})", (ROOT / source).read_text(encoding="utf-8"))
    where = f"*This page is `{source}` in the repository: edit it there.*"
    return f"{text.rstrip()}\n\n---\n\n{where}\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs hook: a page that stands for a repository file gets that file's text."""
    source = INCLUDED.get(page.file.src_uri)
    return included_page(source) if source else markdown
