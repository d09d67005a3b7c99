"""A duel's folder read as a duel: where its test stands, and the command that plays it on.

``knorri-sim report`` on a duel's folder (``knorri-sim duel``'s, whose manifest records its test under ``duel``)
says what the test decided and after how many deals, and draws the duel's figures (``experiments.duel.figures``)
beside the game's own figures of the rows. A duel stops by design when its test decides: its folder is whole with
the chunks it played (``experiments.analysis.load.chunks_total``). ``knorri-sim run --resume`` on a duel says it is
decided, or gives the duel command that plays on until it is.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.duel.play import (
    DuelSeating,
    duel_decision,
    folder_differences,
    is_duel,
    looks,
    manifest_design,
    recorded_test,
)
from experiments.duel.sprt import (
    H0,
    H1,
    UNDECIDED,
    Sprt,
    Verdict,
    sequential_test,
    verdict_words,
)
from experiments.runner.config import default_options
from experiments.runner.storage import RunFolder
from sim import games
from sim.contract import plural


@dataclass(frozen=True)
class DuelReading:
    """A duel's folder as its test reads it: the deals in deal order, the verdict, and what played them."""

    folder: str
    manifest: dict[str, Any]
    test: Sprt
    design: tuple[DuelSeating, ...]
    differences: np.ndarray
    verdict: Verdict
    decision: str  # H1, H0, undecided, or continue (deals still to play)
    recorded: bool = True  # False: a duel from before its manifest recorded the test, read with the defaults

    @property
    def agents(self) -> tuple[str, ...]:
        """A, B, then the other seats' specs in seat order."""
        return tuple(self.manifest["config"]["tables"][0]["agents"])

    @property
    def row(self) -> str:
        """What a score is per: the game's row (hand, game, match)."""
        return games.adapter(self.game).ROW

    @property
    def game(self) -> str:
        """The game the duel played."""
        return self.manifest.get("game", games.DEFAULT_GAME)

    @property
    def max_deals(self) -> int:
        """The deals the duel may play before it stops undecided."""
        return int(self.manifest["config"]["hands"]) // len(self.design)

    def state_line(self) -> str:
        """What the folder is and where its test stands, in one line: a duel its test stopped, one undecided at its
        last deal, or one with deals still to play and the command that plays them; then the verdict in the duel's
        own words (``sprt.verdict_words``)."""
        a, b = self.agents[:2]
        deals = f"{self.verdict.deals:,} deals ({self.verdict.deals * len(self.design):,} {plural(self.row)})"
        state = {H0: f"stopped by its test after {deals}", H1: f"stopped by its test after {deals}",
                 UNDECIDED: f"undecided after all its {deals}"}.get(self.decision, f"not decided yet after {deals}")
        words = verdict_words(self.decision, self.verdict, self.test, a, b, self.row)
        more = "" if self.decision in (H0, H1, UNDECIDED) else \
            f"; {resume_command(self.manifest, self.folder)} plays on until its test decides"
        return f"a duel, {state}: {words}{more}"


def read_duel(folder: str | Path, manifest: dict[str, Any]) -> DuelReading | None:
    """The duel in ``folder`` (its ``manifest`` read already), or None for a run that is not a duel the duel
    command played (``run --assign duel`` has a duel's rows but no test: it is an ordinary run). A duel from before
    its manifest recorded the test is read with the default test, and says so."""
    if not is_duel(manifest):
        return None
    test = recorded_test(manifest)
    if test is None and manifest["config"].get("name") != "duel":
        return None
    recorded = test is not None
    design = manifest_design(manifest)
    differences = folder_differences(RunFolder(str(folder)), in_order=True)
    max_deals = int(manifest["config"]["hands"]) // len(design)
    verdict = sequential_test(differences, test or Sprt(), looks(max_deals))
    return DuelReading(str(folder), manifest, test or Sprt(), design, differences, verdict,
                       duel_decision(verdict, max_deals), recorded)


def resume_command(manifest: dict[str, Any], folder: str) -> str:
    """The ``knorri-sim duel`` command that plays on the duel in ``folder``: its agents, game, seats, options,
    seed, deals and test, the defaults left out."""
    config = manifest["config"]
    table = config["tables"][0]
    a, b, *others = table["agents"]
    game = manifest.get("game", games.DEFAULT_GAME)
    words = ["knorri-sim", "duel", a, b]
    if game != games.DEFAULT_GAME:
        words += ["--game", game]
    words += ["--seats", str(table["seats"]), "--others", others[0] if len(set(others)) == 1 else ";".join(others)]
    defaults = default_options(game)
    for name, value in config.get("options", {}).items():
        if defaults.get(name) != value:
            words += ["--option", f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
    test, default = recorded_test(manifest) or Sprt(), Sprt()
    for name in ("delta0", "delta1", "alpha", "beta"):
        if getattr(test, name) != getattr(default, name):
            words += [f"--{name}", f"{getattr(test, name):g}"]
    words += ["--max-deals", str(int(config["hands"]) // len(manifest_design(manifest)))]
    if config.get("seed"):
        words += ["--seed", str(config["seed"])]
    return shlex.join([*words, "--out", folder])
