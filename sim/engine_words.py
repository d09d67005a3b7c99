"""The words that name an engine, in one table: what ``--engine``, a config's ``engine`` and ``play_matches`` read.

``auto`` plays on compiled code wherever some compiled code plays the lineup (the same rows), but
for a run too small to repay the compile (``experiments.runner.compiling.cold_routes``); ``compiled``
insists on it (a lineup it cannot play is refused), ``reference`` plays the rules as written in
Python. ``fast`` is the compiled engine's older name, still read. A benchmark or a command that
times one engine, and an adapter's ``play_matches``, take ``ENGINES`` (no ``auto``: the plan
resolves it, ``experiments.runner.routes.choose_route``); a run and a plan take ``ENGINE_CHOICES``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.errors import GameInputError

AUTO, COMPILED, REFERENCE = "auto", "compiled", "reference"
ENGINE_WORDS: dict[str, str] = {
    AUTO: "compiled code wherever some plays the lineup, else the reference engine (the same rows)",
    COMPILED: "the compiled engine, the agents' compiled lineup player or the batch engine; refused where none plays",
    REFERENCE: "the reference engine: the rules as written, in Python",
}
ENGINE_ALIASES: dict[str, str] = {"fast": COMPILED}  # an older name -> the word it stands for
ENGINE_CHOICES: tuple[str, ...] = tuple(ENGINE_WORDS)  # what a run (and routes.play_matches) takes
ENGINES: tuple[str, ...] = (REFERENCE, COMPILED)  # the engines a game may have: what an adapter is given


def engine_word(word: str, allowed: Sequence[str] = ENGINE_CHOICES) -> str:
    """``word`` as one of ``allowed`` (an alias read as the word it stands for); anything else is one line."""
    resolved = ENGINE_ALIASES.get(word, word) if isinstance(word, str) else word
    if resolved not in allowed:
        aliases = [f"{alias}, for {meant}" for alias, meant in ENGINE_ALIASES.items() if meant in allowed]
        also = f" (or {'; '.join(aliases)})" if aliases else ""
        raise GameInputError(f"engine must be {', '.join(allowed)}{also}, not {word!r}")
    return resolved


def spelled(allowed: Sequence[str] = ENGINE_CHOICES) -> tuple[str, ...]:
    """Every word a command line may give for ``allowed``: the words, then their aliases (argparse's choices)."""
    return (*allowed, *(alias for alias, meant in ENGINE_ALIASES.items() if meant in allowed))
