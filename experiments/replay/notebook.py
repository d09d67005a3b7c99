"""Step through a deal in a notebook: a slider (with a play button) over its drawn positions and log lines.

``step_through(fresh_replay("knorri", 4, 7, ["random"] * 4, {}))`` shows a Knorri hand;
``step_through(run_replay(RUN_DIR, 12))`` a run's row. Each engine's deal also shows itself
as it stands (``_repr_svg_``), so a cell ending in a ``KnorriHand`` draws it.
"""

from __future__ import annotations

from html import escape
from typing import Any

from experiments.replay.build import Replay


def frame_html(replay: Replay, step: int) -> str:
    """Step ``step`` of the replay as HTML: the counter, its log lines and the drawn position."""
    lines = escape("\n".join(replay.lines[step]))
    return (f"<div><b>step {step} / {replay.steps}</b><pre style=\"white-space:pre-wrap\">{lines}</pre>"
            f"{replay.frames[step]}</div>")


def step_through(replay: Replay, interval_ms: int = 400) -> Any:
    """An ipywidgets box stepping through ``replay``: a play button and a slider over its steps, the step shown."""
    import ipywidgets as widgets

    slider = widgets.IntSlider(value=0, min=0, max=replay.steps, description="step", continuous_update=True,
                               layout=widgets.Layout(width="520px"))
    player = widgets.Play(value=0, min=0, max=replay.steps, interval=interval_ms)
    widgets.jslink((player, "value"), (slider, "value"))
    shown = widgets.HTML(frame_html(replay, 0))

    def show(change: dict[str, Any]) -> None:
        shown.value = frame_html(replay, int(change["new"]))

    slider.observe(show, names="value")
    return widgets.VBox([widgets.HTML(f"<b>{escape(replay.title)}</b>"), widgets.HBox([player, slider]), shown])
