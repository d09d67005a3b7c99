"""Every ``knorri-sim`` command in README.md and on the documentation pages (``docs/**/*.md``) is a checked example:
it runs, at a reduced size, and plays the lineup the text around it names.

Which commands: every line of a fenced ``bash`` block that starts with ``knorri-sim`` (a trailing ``\\`` continues
it; ``[...]`` marks an optional part, left out), and every ``knorri-sim run`` written inline in the prose (the
measured commands quoted beside their figures; one with a placeholder such as ``OUT`` is a pattern, not an
example). A command shown in several places runs once, checked against the text of every place. Not run: the
install commands at the top of the README (they build a virtual environment from the network), the ``python -m
experiments.bench`` modules (tested in ``test_bench_*.py``) and the Python blocks. How a command is cut down is
``reduced``'s, how its lineup is checked ``check_lineup``'s, and the files a page has the reader save are
``page_files``'.
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agents.base import parse_spec
from agents.lineup import split_agent_specs
from experiments.cli import main
from experiments.runner.storage import read_manifest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]  # the README first: its place names a shared example

# option -> the largest value a checked example may use (larger values are cut to it), per command
SIZES: dict[str, dict[str, int]] = {
    "run": {"--hands": 8, "--matches": 2},
    "bench": {"--hands": 200, "--games": 200, "--matches": 20, "--repeat": 1},
    "league": {"--deals": 1},
    "duel": {"--max-deals": 4},
    "train": {"--hands": 256, "--eval-deals": 2},
}
DEFAULT_RUN_SIZE = ("--hands", "8")  # added to a run that names no size (a config's thousands of rows)
DEFAULT_DUEL_SIZE = ("--max-deals", "4")  # added to a duel that names no size: one look, at its fourth deal
DEFAULT_TRAIN_SIZE = (("--hands", "256"), ("--eval-deals", "2"))  # a training stops at whichever limit comes first
SEARCH_SIZE = {"mcts": "iters=10"}  # a search's budget in a checked example, a training's teacher or a league's
# seat (its other budgets follow iters)
DEFAULT_BENCH_SIZE = {"knorri": ("--hands", "200"), "knockout-whist": ("--games", "200"), "kort": ("--matches", "20")}
TRAJ_SEEDS = 5  # traj --seeds A B plays at most A .. A+5
ONE_WORKER = {"run", "bench", "league", "duel"}  # given --workers 1 (in this process: nothing to spawn, compiled once)


@dataclass(frozen=True)
class Example:
    """One example: its commands in order, the texts that name what they play, where each is, and the files its
    page has the reader save (name, text)."""

    where: str
    commands: tuple[str, ...]
    contexts: tuple[str, ...]
    files: tuple[tuple[str, str], ...] = ()


FILE_TITLE = re.compile(r'^python\s+title="([\w.-]+\.py)"')  # a fenced block the reader saves as that file


def readme_examples(text: str, page: str = "README.md") -> list[Example]:
    """Every fenced bash block of one page holding a ``knorri-sim`` command, and every inline ``knorri-sim run``."""
    examples: list[Example] = []
    prose: list[str] = []
    lines = text.splitlines()
    files = tuple(page_files(text))
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("```"):
            language = lines[i].strip()[3:].strip()
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            block = lines[i + 1:end]
            if language == "bash":
                commands = _fenced_commands(block)
                if commands:
                    examples.append(Example(f"{page} line {i + 1}", tuple(commands),
                                            ("\n".join(block) + "\n" + _last_paragraph(prose),), files))
            prose.append("")
            i = end + 1
            continue
        prose.append(lines[i])
        i += 1
    seen = set()
    for paragraph in "\n".join(prose).split("\n\n"):
        for match in re.finditer(r"`(knorri-sim run [^`]*)`", paragraph):
            command = " ".join(match.group(1).split())
            if command not in seen and not re.search(r"\b[A-Z][A-Z_]+\b", command):  # OUT, RUN_DIR: a pattern
                seen.add(command)
                examples.append(Example(f"{page} inline: {command[:60]}", (command,), (paragraph,), files))
    return examples


def page_files(text: str) -> list[tuple[str, str]]:
    """The files a page has the reader save: each fenced block titled with a Python file's name, and its text
    (a block indented in a list item taken at the fence's indent).

    Such a block (```` ```python title="lowbot.py" ````, which the site shows above the code) is written into the
    scratch folder before any of that page's commands run, so ``knorri-sim play --agents "lowbot:LowBot;..."``
    finds it there, as it would in the reader's folder. The pages the site includes from elsewhere
    (``seeds/*.md``, ``CONTRIBUTING.md``) hold no fenced commands; their inline ones are patterns.
    """
    files = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        fence = line.strip()
        match = FILE_TITLE.match(fence[3:].strip()) if fence.startswith("```") else None
        if match:
            indent = len(line) - len(line.lstrip())
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            files.append((match.group(1), "\n".join(row[indent:] for row in lines[i + 1:end]) + "\n"))
    return files


def site_examples(texts: dict[str, str]) -> list[Example]:
    """The examples of every page (name -> text), each distinct sequence of commands once, with the texts of every
    place that shows it; the first place names it."""
    merged: dict[tuple[str, ...], Example] = {}
    for page, text in texts.items():
        for example in readme_examples(text, page):
            key = tuple(" ".join(command.split()) for command in example.commands)
            first = merged.get(key)
            merged[key] = example if first is None else Example(
                first.where, first.commands, first.contexts + example.contexts,
                first.files + tuple(file for file in example.files if file not in first.files))
    return list(merged.values())


def _fenced_commands(block: list[str]) -> list[str]:
    commands, pending = [], ""
    for line in block:
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip().startswith("knorri-sim"):
            commands.append(pending.strip())
        pending = ""
    return commands


def _last_paragraph(prose: list[str]) -> str:
    return "\n".join(prose).rstrip().split("\n\n")[-1]


def reduced(command: str, run_dirs: list[str], index: int) -> list[str]:
    """The command's argv (without ``knorri-sim``) at the checked size, per ``SIZES``.

    A run plays a few hands, matches or games per table instead of thousands (``--hands 1000000`` becomes
    ``--hands 8``, ``--matches 600`` ``--matches 2``; a run without either gets ``--hands 8``), ``traj`` at most 5
    seeds, ``bench`` one short timing per case, a duel at most 4 deals, a training one generation (its ``mcts`` teacher
    searching 10 iterations a decision), a league one deal (its ``mcts`` seats searching as little), and every
    command one worker in this
    process (``--workers 1``); ``docs/experiments.md`` says so where it lists the commands. A ``--config`` path is
    taken from the repository's root. ``RUN_DIR`` stands for the run the block wrote last; a run without ``--out``
    is given one so its manifest can be read. (The README's quick start ends with the default experiment, which the
    block of ``docs/experiments.md`` runs as a command of its own.)
    """
    command = re.sub(r"\s*\[[^\]]*\]", "", command)
    words = shlex.split(command, comments=True)[1:]
    name = words[0]
    if name == "run" and "--list-configs" in words:  # lists the shipped configs; runs nothing
        return words
    for option, largest in SIZES.get(name, {}).items():
        if option in words:
            at = words.index(option) + 1
            words[at] = str(min(int(words[at].replace(",", "").replace("_", "")), largest))
    if name == "run" and "--resume" not in words:
        if "--hands" not in words and "--matches" not in words:
            words += DEFAULT_RUN_SIZE
        if "--out" not in words:
            words += ["--out", f"runs/example-{index}"]
        run_dirs.append(words[words.index("--out") + 1])
    if name == "duel" and "--max-deals" not in words:
        words += DEFAULT_DUEL_SIZE
    if name == "train":  # one generation of self-play and a two-deal evaluation, whatever --budget says
        words += [word for option, value in DEFAULT_TRAIN_SIZE for word in (option, value) if option not in words]
        if "--teacher" in words:  # the teacher's searches are nearly all of a generation's cost
            at = words.index("--teacher") + 1
            words[at] = searching_less(words[at])
        if "--out" in words:
            run_dirs.append(words[words.index("--out") + 1])
    if name == "league" and "--agents" in words:  # one deal is every seating of it: the searches are its cost
        at = words.index("--agents") + 1
        words[at] = ";".join(searching_less(spec) for spec in split_agent_specs(words[at]))
    if "--config" in words:  # the pages' paths are from the repository's root; the command runs in a scratch folder
        at = words.index("--config") + 1
        if "/" in words[at]:  # a path; a bare name is a shipped config's, found from any folder
            words[at] = str(ROOT / words[at])
    if name == "bench" and not {"--hands", "--games", "--matches"} & set(words):
        words += DEFAULT_BENCH_SIZE[words[words.index("--game") + 1] if "--game" in words else "knorri"]
    if name in ONE_WORKER and not (name == "bench" and "--agents" in words):  # a lineup's bench is one core
        if "--workers" in words:
            words[words.index("--workers") + 1] = "1"
        else:
            words += ["--workers", "1"]
    if name == "traj":
        at = words.index("--seeds")
        words[at + 2] = str(min(int(words[at + 2]), int(words[at + 1]) + TRAJ_SEEDS))
    if "RUN_DIR" in words:
        assert run_dirs, f"{command!r}: RUN_DIR, but no run before it in its block"
        words[words.index("RUN_DIR")] = run_dirs[-1]
    return words


def searching_less(spec: str) -> str:
    """``spec`` with a search's budget cut to ``SEARCH_SIZE`` (the spec itself for an agent that does not search)."""
    size = SEARCH_SIZE.get(parse_spec(spec)[0])
    return spec + ("," if ":" in spec else ":") + size if size else spec


def _per_seat(agents: list[str], seats: int) -> list[str]:
    return agents * seats if len(agents) == 1 else agents


def check_lineup(words: list[str], out: Path, context: str) -> None:
    """The run in ``out`` played the ``--agents`` given, or agents the text (of one place showing it) names.

    A run with ``--agents`` must have played exactly those specs (from its manifest); a run without must have
    played agents that the text names: every agent of its config appears in the command's block (its comments
    included) or in the paragraph that introduces it.
    """
    manifest = read_manifest(out)
    assert manifest is not None and manifest["status"] == "complete", f"{out}: no complete run"
    tables = manifest["config"]["tables"]
    if "--agents" in words:
        given = split_agent_specs(words[words.index("--agents") + 1])
        for table in tables:
            assert _per_seat(list(table["agents"]), table["seats"]) == _per_seat(given, table["seats"])
        return
    named = set(re.findall(r"[A-Za-z_]+", context))
    for table in tables:
        for spec in table["agents"]:
            agent = parse_spec(spec)[0]
            assert agent in named, f"the run played {agent!r}, which the text about it never names"


EXAMPLES = site_examples({path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in PAGES})


def test_the_readme_and_the_pages_have_checked_examples_of_every_command():
    names = {shlex.split(command, comments=True)[1] for example in EXAMPLES for command in example.commands}
    assert {"run", "report", "traj", "bench", "duel", "league", "replay", "cutoffs", "play"} <= names
    assert len(EXAMPLES) >= 10
    assert any(example.where.startswith("README.md") for example in EXAMPLES)  # the quick start is checked too


def test_an_example_shown_in_two_places_runs_once_and_is_checked_against_both_texts():
    page = "```bash\nknorri-sim run --game kort\n```\n"
    twice = site_examples({"README.md": "Kort, tracker\n\n" + page, "docs/kort.md": "greedy\n\n" + page})
    assert len(twice) == 1 and twice[0].where == "README.md line 3" and len(twice[0].contexts) == 2



def test_a_python_block_titled_with_a_file_name_is_a_file_the_pages_commands_find():
    page = ('```python title="bot.py"\nclass Bot:\n    pass\n```\n\n- a step:\n\n  ```python title="two.py"\n'
            '  X = 2\n  ```\n\n```python\nnot = "a file"\n```\n\n```bash\nknorri-sim play --agents bot:Bot\n```\n')
    (example,) = readme_examples(page, "page.md")
    assert example.files == (("bot.py", "class Bot:\n    pass\n"), ("two.py", "X = 2\n"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.where for example in EXAMPLES])
def test_a_documented_command_runs_and_plays_the_lineup_its_text_names(example, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, text in example.files:  # the files the page has the reader save, in the folder the commands run in
        (tmp_path / name).write_text(text, encoding="utf-8")
        monkeypatch.delitem(sys.modules, Path(name).stem, raising=False)  # this folder's copy, not an earlier one
    run_dirs: list[str] = []
    for index, command in enumerate(example.commands):
        words = reduced(command, run_dirs, index)
        try:
            code = main(words)
        except SystemExit as stop:  # argparse refusing the command line
            code = stop.code
        output = capsys.readouterr()
        assert code == 0, f"{command!r} (run as {' '.join(words)!r}) exited {code}: {output.err.strip()}"
        if words[0] == "run" and "--resume" not in words and "--list-configs" not in words:
            for context in example.contexts:
                check_lineup(words, tmp_path / run_dirs[-1], context)
