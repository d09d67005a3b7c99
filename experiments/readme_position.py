"""Draw the picture of a Knorri position on docs/replay.md: the render facet's SVG, screenshot to PNG by Chromium.

``python -m experiments.readme_position`` replays the hand of ``knorri-sim replay --seed 7
--agents "greedy;random;greedy;random"``, takes the first position of phase 2 with three plays
in the trick, writes it as ``docs/figures/knorri_position.svg`` and asks headless Chromium
(Debian's ``chromium``) for ``docs/figures/knorri_position.png``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from experiments.replay.build import fresh_replay

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"
AGENTS = ["greedy", "random", "greedy", "random"]


def main() -> int:
    """Write the SVG and the PNG; say where."""
    replay = fresh_replay("knorri", 4, 7, AGENTS, {})
    step = next(k for k, svg in enumerate(replay.frames) if "phase 2" in svg and "trick: 3 of" in svg)
    svg_path = FIGURES / "knorri_position.svg"
    svg_path.write_text(replay.frames[step], encoding="utf-8")
    height = int(float(replay.frames[step].split('height="', 1)[1].split('"', 1)[0]))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium is not installed: apt-get install chromium", file=sys.stderr)
        return 2
    png = FIGURES / "knorri_position.png"
    subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size=900,{height}", f"--screenshot={png}", svg_path.as_uri()],
                   check=True, capture_output=True)
    print(f"step {step} of the hand drawn to {svg_path} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
