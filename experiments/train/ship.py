"""Ship a training's best weights inside the package, with their model card beside them.

    python -m experiments.train.ship runs/train-knorri-4

copies the training folder's ``best.npz`` (its best evaluated weights) to ``agents/learned/weights/<game>.npz``,
where plain ``learned`` finds them, and writes the model card (``experiments.train.report.model_card``: the
command, seed, hands, CPU time, library versions, evaluations and sha256) as ``<game>.md`` beside them, the
training folder written as ``runs/<its name>``.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from agents.learned.agent import shipped_weights
from agents.learned.network import load
from experiments.train.loop import BEST_FILE, WEIGHTS_FILE, read_settings
from experiments.train.report import model_card


def ship(folder: Path, weights: Path | None = None) -> Path:
    """Copy the training's best (or given) weights into the package with their model card; the weights' path."""
    settings = read_settings(folder)
    if settings is None:
        raise SystemExit(f"{str(folder)!r} holds no training")
    game = settings["method"]["game"]
    source = weights or (folder / BEST_FILE if (folder / BEST_FILE).exists() else folder / WEIGHTS_FILE)
    load(source, game=game)  # refuses a file that is not this game's network
    target = shipped_weights(game)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    card = model_card(folder, source)
    for where in dict.fromkeys((str(folder.resolve()), str(folder))):  # the machine's own paths stay on it
        card = card.replace(where, f"runs/{folder.name}")
    target.with_suffix(".md").write_text(card)
    return target


def main() -> None:
    """Ship the training folder named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a knorri-sim train folder")
    parser.add_argument("--weights", type=Path, help="ship these weights of the training instead of best.npz")
    args = parser.parse_args()
    target = ship(args.folder, args.weights)
    print(f"shipped {target} and its model card {target.with_suffix('.md')}")


if __name__ == "__main__":
    main()
