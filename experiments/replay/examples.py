"""A report's example hands: a replay of one hand of each end reason, written beside the figures and linked.

Knorri's report (``experiments.analysis.report``) hands this to the report registry
as its ``extras``: for each end reason in the run (``out``, ``repeat``, ``cap``) the
first such hand by ``hand_index`` is replayed (``experiments.replay``) to
``replay-<reason>.html``. A hand that cannot be replayed exactly is named in the
summary with the reason instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from experiments.errors import UsageError
from experiments.replay.build import run_replay
from experiments.replay.page import write_page


def end_reason_examples(run: Any, out: Path) -> tuple[list[Path], list[str]]:
    """Write a replay of the first hand of each end reason of ``run`` (a loaded run) into ``out``; return the
    pages and the summary's Markdown lines linking them."""
    hands = run.hands
    lines = ["## Example hands", "", "A replay of the first hand of each end reason (open it in a browser; it "
             "works offline):", ""]
    written = []
    for reason in hands["end_reason"].cat.categories:
        chosen = hands[hands["end_reason"] == reason]
        if chosen.empty:
            continue
        index = int(chosen["hand_index"].min())
        try:
            replay = run_replay(run.folder, index)
        except UsageError as error:
            lines.append(f"- {reason}: hand {index} is not replayed ({error})")
            continue
        path = write_page(replay, out / f"replay-{reason}.html")
        written.append(path)
        lines.append(f"- {reason}: [hand {index}]({path.name}), {replay.steps} steps")
    return written, lines + [""]
