"""Code says what it is: no module docstring runs past 15 lines, and no comment or docstring quotes a measured figure
or cites an issue. Measurements live where they can be measured again (``docs/``, ``experiments/results/``), with
the command that made them; a figure in a comment is stale the day the code changes."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest
from conftest import ROOT

FOLDERS = ("sim", "agents", "rl", "experiments", "backend", "docs", "tests")
MODULES = sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))
MAX_MODULE_DOCSTRING_LINES = 15

UNIT = r"(?:ms|µs|us|ns|s|secs?|seconds?|minutes?|mins?|hours?|h|%|[KMG]i?B|kB)"
MEASURED = re.compile(
    r"(?<![\w.\-/^])\d+(?:[.,]\d+)*\s?(?:" + UNIT + r"(?![\w/])"  # a time, a share, a size
    r"|(?:×|x)\s*(?:faster|slower|quicker|as fast)"  # a speed-up
    r"|(?:times )(?:faster|slower|as fast)"
    r"|(?:hands?|deals?|decisions?|games?|matches|rows|playouts|iterations|steps)\s*(?:/|a|per)\s*(?:s\b|sec|second|CPU)"
    r"|points? (?:a|per) (?:hand|row|game|match)"  # a strength
    r"|(?:of )?CPU\b)"  # CPU time
    r"|\bH[01] after \d+ deals"  # a duel's verdict
)
ISSUE = re.compile(r"(?i)\bissues?\s+#?\d+|(?<![\w&])#\d{1,4}\b|\bPR\s*#?\d+")
LITERAL = re.compile(r"``.*?``|`[^`\n]*`")  # code and examples of a format (``57.1% (54.8–59.4)``), not measurements

# Figures that are definitions, not measurements, each with why.
ALLOWED = {
    "95%": "the confidence level every interval of the project is stated at",
    "0%": "a bound of a share, as a figure's axis runs",
    "100%": "a bound of a share, as a figure's axis runs",
}


def module_docstring_lines(path: Path) -> int:
    """The lines of a module's docstring text, 0 for none."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    return len(docstring.strip().splitlines()) if docstring else 0


def prose(path: Path) -> list[tuple[int, str]]:
    """Every comment and docstring line of a module, with its line number."""
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                first = node.body[0].lineno
                found += [(first + i, line) for i, line in enumerate(docstring.splitlines())]
    found += [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT]
    return found


def figures_and_issues(text: str) -> list[str]:
    """The measured figures and issue references in a line of prose, its code literals left out."""
    text = LITERAL.sub("", text)
    return [m.group(0) for m in MEASURED.finditer(text) if m.group(0) not in ALLOWED] + ISSUE.findall(text)


def test_every_module_docstring_says_what_the_module_is_in_at_most_15_lines():
    assert len(MODULES) > 300
    long = {path.relative_to(ROOT).as_posix(): n for path in MODULES
            if (n := module_docstring_lines(path)) > MAX_MODULE_DOCSTRING_LINES}
    assert not long, f"module docstrings over {MAX_MODULE_DOCSTRING_LINES} lines (move the rest to docs/): {long}"


def test_no_comment_or_docstring_quotes_a_measured_figure_or_an_issue():
    found = [f"{path.relative_to(ROOT).as_posix()}:{line}: {hits} in {text.strip()!r}"
             for path in MODULES for line, text in prose(path) if (hits := figures_and_issues(text))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", [
    "numba would compile a second _expand for it (2 s)", "0.6 ms a decision", "5× faster than before",
    "a lineup at 10,000 hands/s", "cost 9% against the session start", "took 24.5 s of CPU, 1.7 s once cached",
    "lost 0.03 points a hand", "(version 2: H0 after 228 deals)", "about 110 KB a shard, 0.5 GB in all",
    "as issue 24 asked", "see #31", "issue #40's rule",
])
def test_the_check_finds_a_measured_figure_or_an_issue(text):
    assert figures_and_issues(text)


@pytest.mark.parametrize("text", [
    "the mean with its 95% CI", "room for a whole marker at 0% or 100%", "``m +- 1.96 s / sqrt(n)``",
    "as percentages (``57.1% (54.8–59.4)``)", "int64 for an index that grows", "seats 3 to 6", "a 13-card run",
    "uint64[NUM_RNG] splitmix64 states", "every 2 seats", "8 hands", "decks of 52 cards", "mu ± 2 sigma",
    "the 7th trick", "colour #1b6ca8 in a string",
])
def test_the_check_passes_constants_ranges_and_code(text):
    assert not figures_and_issues(text)
