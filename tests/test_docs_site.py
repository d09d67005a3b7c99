"""The documentation site builds with ``mkdocs build --strict``, offline, and shows what it promises.

Strict mode fails the build on any warning: a link to a missing page, heading or file outside ``docs/``, a page
left out of the nav, or a docstring mkdocstrings cannot read (and a page's missing source, README.md,
CONTRIBUTING.md or ``seeds/*.md``, stops it). The build runs in a child process whose sockets refuse to connect or
resolve a name, so a theme or plugin that fetched anything (fonts, an inventory) would fail it here as it would on
a machine without a network.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

OFFLINE_BUILD = """
import socket
import sys

def refuse(*args, **kwargs):
    raise OSError("the documentation build used the network")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from mkdocs.__main__ import cli

sys.exit(cli(["build", "--strict", "--config-file", sys.argv[1], "--site-dir", sys.argv[2]]))
"""


def test_the_site_builds_strict_and_offline_with_every_page(tmp_path):
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-c", OFFLINE_BUILD, str(ROOT / "mkdocs.yml"), str(site)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # without the theme's notice
    log = built.stdout + built.stderr
    assert built.returncode == 0, log
    assert "WARNING" not in log, log

    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Two commands" in home  # the home page is the README itself
    opening = home.split('id="two-commands"', 1)[1].split('id="knorri-in-brief"', 1)[0]  # the first screen
    words = html.unescape(re.sub(r"<[^>]+>", "", opening))
    assert opening.count("<pre") == 2 and "pip install -e . && knorri-sim run" in words and "-m pytest" in words
    assert 'href="#do-hands-really-loop-the-cut-offs-measured"' in opening and 'href="first_bot/"' in opening
    assert "stylesheets/extra.css" in home  # code blocks wrap rather than scroll
    assert "white-space: pre-wrap" in (site / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert 'href="experiments/"' in home and 'href="rules/knorri/"' in home  # its links made relative to docs/
    for game, title in (("knorri", "Knorri as knorri-sim plays it"), ("knockout_whist", "Knockout Whist as"),
                        ("kort", "Kort as knorri-sim plays it")):
        assert title in (site / "rules" / game / "index.html").read_text(encoding="utf-8")
    assert "Where compiled bots live" in (site / "contributing" / "index.html").read_text(encoding="utf-8")
    notebooks = (site / "notebooks" / "index.html").read_text(encoding="utf-8")  # notebooks/README.md
    assert "jupyter nbconvert --to notebook --execute" in notebooks
    reference = {page: (site / "reference" / page / "index.html").read_text(encoding="utf-8")
                 for page in ("sim", "knorri", "agents", "runner", "analysis")}
    for page, name in (("sim", "sim.games.register_game"), ("knorri", "sim.knorri.reference.KnorriHand"),
                       ("agents", "agents.base.make_agent"), ("runner", "experiments.runner.execute.run_experiment"),
                       ("analysis", "experiments.analysis.knorri.stream.stream_run")):
        assert f'id="{name}"' in reference[page], (page, name)  # its docstring, under its own heading

    for page in site.rglob("*.html"):  # nothing a reader's browser would fetch from elsewhere
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(?:link|script|img)[^>]+(?:href|src)="(?:https?:)?//', text), page
