"""mkdocs hooks: the site's home page is README.md, with its links made relative to ``docs/``.

The README links the pages as GitHub shows them (``docs/agents.md``, ``seeds/knorri.md``, ``CONTRIBUTING.md``);
on the site the same pages sit at ``agents.md``, ``rules/knorri.md`` and ``contributing.md``. Reading the README
here, rather than keeping a second copy of it in ``docs/index.md``, leaves one text to maintain. A link this map
does not know is left as it is, so ``mkdocs build --strict`` reports it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOME = "index.md"  # the page that stands for README.md on the site

# README link prefix -> the same page on the site (a link's #anchor is kept)
SITE_PATHS = {
    "docs/": "",
    "seeds/knorri.md": "rules/knorri.md",
    "seeds/knockout_whist.md": "rules/knockout_whist.md",
    "seeds/kort.md": "rules/kort.md",
    "CONTRIBUTING.md": "contributing.md",
}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def site_link(target: str) -> str:
    """Where a README link's target is on the site (unchanged when it is not a page the site holds)."""
    for prefix, replacement in SITE_PATHS.items():
        if target.startswith(prefix):
            return replacement + target[len(prefix):]
    return target


def readme_for_site(text: str) -> str:
    """The README's markdown with every link and image path rewritten for the site."""
    return LINK.sub(lambda match: f"]({site_link(match.group(1))})", text)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs hook: the home page's markdown is the README's, its links rewritten."""
    if page.file.src_uri == HOME:
        return readme_for_site((ROOT / "README.md").read_text(encoding="utf-8"))
    return markdown
