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

from experiments.analysis.load import complete_shards, iter_shard_batches
from experiments.errors import UsageError
from experiments.replay.build import run_replay
from experiments.replay.page import write_page


def end_reason_examples(run: Any, out: Path) -> tuple[list[Path], list[str]]:
    """Write a replay of the first hand of each end reason of ``run`` (a loaded or streamed run) into ``out``;
    return the pages and the summary's Markdown lines linking them."""
    lines = ["## Example hands", "", "A replay of the first hand of each end reason (open it in a browser; it "
             "works offline):", ""]
    written = []
    for reason, index in first_hand_of_each_reason(run).items():
        try:
            replay = run_replay(run.folder, index)
        except UsageError as error:
            lines.append(f"- {reason}: hand {index} is not replayed ({error})")
            continue
        path = write_page(replay, out / f"replay-{reason}.html")
        written.append(path)
        lines.append(f"- {reason}: [hand {index}]({path.name}), {replay.steps} steps")
    return written, lines + [""]


def first_hand_of_each_reason(run: Any) -> dict[str, int]:
    """Each end reason's lowest ``hand_index``, in the reasons' own order, read two columns at a time from the
    run's complete shards (a run of any size)."""
    first: dict[str, int] = {}
    order: list[str] = []
    shards = complete_shards(run.folder, run.manifest)
    for batch in iter_shard_batches(shards, ["hand_index", "end_reason"]):
        frame = batch.to_pandas()
        order += [str(reason) for reason in frame["end_reason"].cat.categories if str(reason) not in order]
        for reason, index in frame.groupby("end_reason", observed=True)["hand_index"].min().items():
            first[str(reason)] = min(int(index), first.get(str(reason), int(index)))
    return {reason: first[reason] for reason in order if reason in first}
